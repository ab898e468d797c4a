// The rows one transaction touches, as keys(record) named them, and which subtask owns each.
// A row is keyed value state named after its table, under its key: the owner is the subtask
// whose key groups hold the key, as for any keyed state, so tables rescale like it. A
// transaction names a few rows, so they are found by a scan of a short array: the index of a
// row in it is how participants, reads and writes refer to it (every participant computes the
// same array from the same record).
import { keyGroupOf, subtaskOfKeyGroup } from '../../graph/keyGroups.js';

export interface TxRow {
  readonly table: string;
  readonly key: string | number;
  readonly keyGroup: number;
  readonly owner: number;
}

export interface TxRows {
  readonly rows: readonly TxRow[];
  /** The subtasks that own a row, ascending. */
  readonly participants: readonly number[];
  /** The owner of the first row: it emits and reports. */
  readonly leader: number;
}

/** `table/key`, as breakpoints, locks and messages name a row. */
export function rowId(table: string, key: string | number): string {
  return `${table}/${key}`;
}

/** The index of a row in `rows`, or -1 when keys() did not name it. */
export function rowIndex(rows: readonly TxRow[], table: unknown, key: unknown): number {
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    if (row.key === key && row.table === table) return i;
  }
  return -1;
}

function describe(value: unknown): string {
  try {
    const text = JSON.stringify(value);
    if (text !== undefined) return text.length > 60 ? `${text.slice(0, 57)}...` : text;
  } catch {}
  return String(value);
}

/** Checks what keys(record) returned and places its rows; throws a TypeError a user can act on. */
export function txRows(
  returned: unknown,
  tables: ReadonlySet<string>,
  parallelism: number,
  maxParallelism: number,
): TxRows {
  if (!Array.isArray(returned)) {
    throw new TypeError(`keys(record) must return an array of [table, key] pairs, not ${describe(returned)}`);
  }
  const rows: TxRow[] = [];
  const participants: number[] = [];
  for (let i = 0; i < returned.length; i++) {
    const pair: unknown = returned[i];
    if (!Array.isArray(pair) || pair.length !== 2) {
      throw new TypeError(`keys(record) must return [table, key] pairs; it returned ${describe(pair)}`);
    }
    const table: unknown = pair[0];
    const key: unknown = pair[1];
    if (typeof table !== 'string' || !tables.has(table)) {
      throw new TypeError(
        `keys(record) named table ${describe(table)}, which is not one of this operator's tables (${[...tables].join(', ')})`,
      );
    }
    if (!(typeof key === 'string' || (typeof key === 'number' && Number.isFinite(key)))) {
      throw new TypeError(
        `keys(record) gave the row of table "${table}" the key ${describe(key)}: a key is a string or a finite number`,
      );
    }
    if (rowIndex(rows, table, key) >= 0) continue;
    const keyGroup = keyGroupOf(key, maxParallelism);
    const owner = subtaskOfKeyGroup(keyGroup, parallelism, maxParallelism);
    rows.push({ table, key, keyGroup, owner });
    if (!participants.includes(owner)) {
      // Kept in order by moving the greater ones up: splice was ~30% of this function (measured).
      let at = participants.length;
      participants.push(owner);
      for (; at > 0 && participants[at - 1]! > owner; at--) participants[at] = participants[at - 1]!;
      participants[at] = owner;
    }
  }
  // A transaction that names no row still runs once, on subtask 0.
  if (participants.length === 0) participants.push(0);
  return { rows, participants, leader: rows[0]?.owner ?? 0 };
}
