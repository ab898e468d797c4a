// The rows one transaction touches, as keys(record) named them, and which subtask owns each.
// A row is keyed value state named after its table, under its key: the owner is the subtask
// whose key groups hold the key, as for any keyed state, so tables rescale like it.
import { keyGroupOf, subtaskOfKeyGroup } from '../../graph/keyGroups.js';

export interface TxRow {
  readonly table: string;
  readonly key: string | number;
  readonly keyGroup: number;
  readonly owner: number;
  /** `table/key`, as breakpoints and messages name a row. */
  readonly id: string;
}

export interface TxRows {
  readonly rows: readonly TxRow[];
  readonly byId: ReadonlyMap<string, TxRow>;
  /** The subtasks that own a row, ascending. */
  readonly participants: readonly number[];
  /** The owner of the first row: it emits and reports. */
  readonly leader: number;
}

export function rowId(table: string, key: string | number): string {
  return `${table}/${typeof key === 'number' ? String(key) : key}`;
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
  const byId = new Map<string, TxRow>();
  for (const pair of returned) {
    if (!Array.isArray(pair) || pair.length !== 2) {
      throw new TypeError(`keys(record) must return [table, key] pairs; it returned ${describe(pair)}`);
    }
    const [table, key] = pair as [unknown, unknown];
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
    const id = rowId(table, key);
    if (byId.has(id)) continue;
    const keyGroup = keyGroupOf(key, maxParallelism);
    const row: TxRow = {
      table,
      key,
      keyGroup,
      owner: subtaskOfKeyGroup(keyGroup, parallelism, maxParallelism),
      id,
    };
    rows.push(row);
    byId.set(id, row);
  }
  const participants = [...new Set(rows.map((r) => r.owner))].sort((a, b) => a - b);
  // A transaction that names no row still runs once, on subtask 0.
  return {
    rows,
    byId,
    participants: participants.length > 0 ? participants : [0],
    leader: rows[0]?.owner ?? 0,
  };
}
