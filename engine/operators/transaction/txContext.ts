// The `tx` user code gets in transact(record, tx): reads and writes of the rows keys(record)
// named, abort, and emits. One hardened object per subtask, pointed at the transaction being
// run, so running one costs no new object for user code to hold.
import { recordCopy } from '../../runtime/recordCopy.js';
import { hardenForUser } from '../../sandbox/lockdown.js';
import { rowIndex, type TxRows } from './txRows.js';

/** A row as it stands for the transaction: its value, if it exists. */
export interface RowValue {
  readonly exists: boolean;
  readonly value: unknown;
}

export const NO_ROW: RowValue = Object.freeze({ exists: false, value: undefined });

/** What one run of transact did, by row index; applied only once it returned. */
export interface TxOutcome {
  /** Rows read with tx.get. */
  readonly read: boolean[];
  /** Writes: a value, or deleted (exists false); undefined where it wrote nothing. */
  readonly writes: (RowValue | undefined)[];
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
  /** Points `tx` at a transaction: its rows and their values before it, by row index. */
  begin(rows: TxRows, values: readonly (RowValue | undefined)[], timestamp: number | undefined): TxOutcome;
  /** After transact returned: `tx` refuses further use. */
  end(): void;
}

/** A copy of a JSON value (a primitive is its own). */
export function copied(value: unknown): unknown {
  return typeof value === 'object' && value !== null ? structuredClone(value) : value;
}

export function txHandle(): TxHandle {
  let rows: TxRows | undefined;
  let values: readonly (RowValue | undefined)[] = [];
  let outcome: TxOutcome | undefined;
  let timestamp: number | undefined;

  const row = (call: string, table: unknown, key: unknown): number => {
    if (rows === undefined || outcome === undefined) {
      throw new Error(`tx.${call} was called after transact returned`);
    }
    const index = rowIndex(rows.rows, table, key);
    if (index < 0) {
      throw new TypeError(
        `tx.${call}(${JSON.stringify(table)}, ${JSON.stringify(key)}): that row is not one keys(record) named`,
      );
    }
    return index;
  };

  const tx = {
    get(table: unknown, key: unknown): unknown {
      const index = row('get', table, key);
      outcome!.read[index] = true;
      const current = outcome!.writes[index] ?? values[index];
      // A copy: changing what get returned changes nothing until tx.set.
      return current?.exists ? copied(current.value) : undefined;
    },
    set(table: unknown, key: unknown, value: unknown): void {
      const index = row('set', table, key);
      outcome!.writes[index] =
        value === undefined
          ? NO_ROW
          : { exists: true, value: recordCopy(value, () => `the value tx.set gave row ${table}/${key}`) };
    },
    delete(table: unknown, key: unknown): void {
      outcome!.writes[row('delete', table, key)] = NO_ROW;
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
      // Sized to the rows: an empty array written at an index grows a backing store per transaction.
      const count = nextRows.rows.length;
      outcome = { read: new Array(count), writes: new Array(count), emits: [], aborted: undefined };
      return outcome;
    },
    end() {
      rows = undefined;
      outcome = undefined;
    },
  };
}
