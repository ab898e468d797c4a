// The `tx` user code gets in transact(record, tx): reads and writes of the rows keys(record)
// named, abort, and emits. One hardened object per subtask, pointed at the transaction being
// run, so running one costs no new object for user code to hold.
import { recordCopy } from '../../runtime/recordCopy.js';
import { hardenForUser } from '../../sandbox/lockdown.js';
import { rowId, type TxRows } from './txRows.js';

/** A row as it stands for the transaction: its value, if it exists. */
export interface RowValue {
  readonly exists: boolean;
  readonly value: unknown;
}

/** What one run of transact did; applied only once it returned. */
export interface TxOutcome {
  /** Rows read with tx.get, by id. */
  readonly read: Set<string>;
  /** Writes by row id: a value, or deleted (exists false). */
  readonly writes: Map<string, RowValue>;
  /** `afterAbort`: made once tx.abort was called (only those to port `aborted` apply then). */
  readonly emits: Array<{
    readonly record: unknown;
    readonly port: string | undefined;
    readonly afterAbort: boolean;
  }>;
  aborted: string | undefined;
}

export interface TxHandle {
  /** The hardened object user code gets. */
  readonly tx: object;
  /** Points `tx` at a transaction: its rows and their values before it. */
  begin(rows: TxRows, values: ReadonlyMap<string, RowValue>, timestamp: number | undefined): TxOutcome;
  /** After transact returned: `tx` refuses further use. */
  end(): void;
}

export function txHandle(): TxHandle {
  let rows: TxRows | undefined;
  let values: ReadonlyMap<string, RowValue> = new Map();
  let outcome: TxOutcome | undefined;
  let timestamp: number | undefined;

  const row = (call: string, table: unknown, key: unknown): string => {
    if (rows === undefined || outcome === undefined) {
      throw new Error(`tx.${call} was called after transact returned`);
    }
    const id =
      typeof table === 'string' && (typeof key === 'string' || typeof key === 'number')
        ? rowId(table, key)
        : undefined;
    if (id === undefined || !rows.byId.has(id)) {
      throw new TypeError(
        `tx.${call}(${JSON.stringify(table)}, ${JSON.stringify(key)}): that row is not one keys(record) named`,
      );
    }
    return id;
  };

  const tx = {
    get(table: unknown, key: unknown): unknown {
      const id = row('get', table, key);
      outcome!.read.add(id);
      const written = outcome!.writes.get(id);
      const current = written ?? values.get(id);
      // A copy: changing what get returned changes nothing until tx.set.
      return current?.exists ? structuredClone(current.value) : undefined;
    },
    set(table: unknown, key: unknown, value: unknown): void {
      const id = row('set', table, key);
      if (value === undefined) {
        outcome!.writes.set(id, { exists: false, value: undefined });
        return;
      }
      outcome!.writes.set(id, {
        exists: true,
        value: recordCopy(value, () => `the value tx.set gave row ${id}`),
      });
    },
    delete(table: unknown, key: unknown): void {
      const id = row('delete', table, key);
      outcome!.writes.set(id, { exists: false, value: undefined });
    },
    abort(reason?: unknown): void {
      if (outcome === undefined) throw new Error('tx.abort was called after transact returned');
      outcome.aborted = reason === undefined ? 'aborted' : String(reason);
    },
    emit(record: unknown, port?: unknown): void {
      if (outcome === undefined) throw new Error('tx.emit was called after transact returned');
      if (port !== undefined && typeof port !== 'string')
        throw new TypeError('tx.emit: a port is a name (a string)');
      outcome.emits.push({
        record: recordCopy(record, () => 'the record tx.emit was given'),
        port,
        afterAbort: outcome.aborted !== undefined,
      });
    },
    get timestamp(): number | undefined {
      return timestamp;
    },
  };

  return {
    tx: hardenForUser(tx),
    begin(nextRows, nextValues, nextTimestamp) {
      rows = nextRows;
      values = nextValues;
      timestamp = nextTimestamp;
      outcome = { read: new Set(), writes: new Map(), emits: [], aborted: undefined };
      return outcome;
    },
    end() {
      rows = undefined;
      outcome = undefined;
    },
  };
}
