// One transaction's run on a participant, once every row it needs is in: the rows it owns read
// from keyed state (the other participants' come in their messages), transact(record, tx) called
// with the tx handle pointed at it, and, unless it aborted, the rows it owns written. How the
// runs are ordered, locked and emitted is transactionLogic.ts's.

import { RecordFailure } from '../../runtime/recordFailure.js';
import type { KeyedState } from '../../state/keyedState.js';
import type { MaybePromise } from '../../state/maybePromise.js';
import type { Pending } from './pending.js';
import type { TxHandle, TxOutcome } from './txContext.js';

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    value !== null &&
    (typeof value === 'object' || typeof value === 'function') &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

/**
 * Reads the rows of `pending` that subtask `me` owns into its values; when it has other
 * participants, also as [index, exists, value] for the rows message they are sent.
 */
export function readOwnRows(
  state: KeyedState,
  pending: Pending,
  me: number,
  shared: boolean,
): [number, boolean, unknown][] | undefined {
  const mine: [number, boolean, unknown][] | undefined = shared ? [] : undefined;
  const rows = pending.rows.rows;
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    if (row.owner !== me) continue;
    state.setKey(row.keyGroup, row.key);
    const value = state.api.value(row.table).get();
    pending.values[i] = { exists: value !== undefined, value };
    if (mine !== undefined) mine.push([i, value !== undefined, value]);
  }
  return mine;
}

/**
 * Runs transact for `pending`: `call` makes the call, and `ran` gets the outcome once it
 * returned, or once the promise it returned settled (then the run is a promise too). A throw
 * or a rejection is the record's failure.
 */
export function runTransaction(
  handle: TxHandle,
  pending: Pending,
  call: (record: unknown, tx: unknown) => unknown,
  ran: (pending: Pending, outcome: TxOutcome) => void,
): MaybePromise {
  const envelope = pending.record.envelope;
  const outcome = handle.begin(pending.rows, pending.values, envelope.timestamp);
  let result: unknown;
  try {
    result = call(envelope.value, handle.tx);
  } catch (error) {
    handle.end();
    throw new RecordFailure(error, envelope);
  }
  if (!isThenable(result)) {
    handle.end();
    ran(pending, outcome);
    return undefined;
  }
  return Promise.resolve(result).then(
    () => {
      handle.end();
      ran(pending, outcome);
    },
    (error) => {
      handle.end();
      throw new RecordFailure(error, envelope);
    },
  );
}

/** All or nothing: unless it aborted, writes the rows `me` owns that the transaction wrote. */
export function writeOwnRows(state: KeyedState, pending: Pending, outcome: TxOutcome, me: number): void {
  if (outcome.aborted !== undefined) return;
  const rows = pending.rows.rows;
  for (let i = 0; i < rows.length; i++) {
    const written = outcome.writes[i];
    const row = rows[i]!;
    if (written === undefined || row.owner !== me) continue;
    state.setKey(row.keyGroup, row.key);
    const value = state.api.value(row.table);
    if (written.exists) value.set(written.value);
    else value.clear();
  }
}
