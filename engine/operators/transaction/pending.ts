// A transaction a subtask takes part in, between its turn and its emit, and the messages its
// participants exchange; and the same as plain data, for the debugger's time travel.
import type { RowValue, TxOutcome } from './txContext.js';
import { type ChannelClockState, type QueuedRecord, recordId } from './txOrder.js';
import type { TxRows } from './txRows.js';

/** The rows one participant read for a transaction (by their index in keys()), sent to the others. */
export interface RowsMessage {
  /** The transaction's orderId. */
  readonly order: number;
  readonly rows: ReadonlyArray<readonly [index: number, exists: boolean, value: unknown]>;
}

/** A transaction this subtask takes part in, from its turn until it has emitted. */
export interface Pending {
  readonly record: QueuedRecord;
  readonly rows: TxRows;
  /** Its orderId (txOrder.ts). */
  readonly order: number;
  /** Rows as they stood before it, by index: its own once read, the others' as they come. */
  readonly values: (RowValue | undefined)[];
  /** Its own rows' lock names, once it queued for them (one that ran at once never did). */
  lockIds: string[] | undefined;
  /** Other participants whose rows have not come. */
  missing: number;
  /** Own rows an earlier transaction still holds. */
  blocked: number;
  /** Own rows read and sent. */
  read: boolean;
  /** Once run: what it emits when every earlier transaction of this subtask has emitted. */
  outcome: TxOutcome | undefined;
}

/** A pending transaction as data (time travel): its outcome's sets as arrays. */
export interface SavedPending {
  readonly record: QueuedRecord;
  readonly values: (RowValue | undefined)[];
  readonly missing: number;
  readonly read: boolean;
  readonly outcome:
    | {
        readonly read: boolean[];
        readonly writes: (RowValue | undefined)[];
        readonly emits: TxOutcome['emits'];
        readonly aborted: string | undefined;
      }
    | undefined;
}

export interface SavedProgress {
  readonly queued: QueuedRecord[];
  readonly clocks: ChannelClockState[];
  readonly window: SavedPending[];
  readonly early: [number, RowsMessage[]][];
}

export function savedPending(p: Pending): SavedPending {
  const o = p.outcome;
  return {
    record: p.record,
    values: [...p.values],
    missing: p.missing,
    read: p.read,
    outcome:
      o === undefined
        ? undefined
        : { read: [...o.read], writes: [...o.writes], emits: [...o.emits], aborted: o.aborted },
  };
}

/** A saved transaction back as it was; one still to run queues for its locks again (the caller's). */
export function restoredPending(p: SavedPending, rows: TxRows): Pending {
  const o = p.outcome;
  return {
    record: p.record,
    rows,
    order: recordId(p.record),
    values: [...p.values],
    lockIds: undefined,
    missing: p.missing,
    blocked: 0,
    read: p.read,
    outcome:
      o === undefined
        ? undefined
        : { read: [...o.read], writes: [...o.writes], emits: [...o.emits], aborted: o.aborted },
  };
}
