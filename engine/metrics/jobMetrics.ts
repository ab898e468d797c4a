// Counters a run exposes while it goes: per operator and per subtask, records in and out,
// input queued, state size, and where each subtask's time goes (busy, backpressured, idle).

export interface SubtaskMetrics {
  readonly subtask: number;
  readonly recordsIn: number;
  readonly recordsOut: number;
  /** Items waiting in this subtask's input channels. */
  readonly queued: number;
  /**
   * Where its time went over the last second, in ms, as Flink's task metrics of the same names:
   * processing; holding output it could not hand on (no room downstream, or its consumers had
   * the thread) or, a source, behind its schedule without its turn; nothing to do. They add up
   * to 1000. Measured by the executor per slice (engine/runtime/loadMeter.ts); absent before
   * the run has measured any time, and in debug runs (a user's steps set their pace).
   */
  readonly busyTimeMsPerSecond?: number;
  readonly backPressuredTimeMsPerSecond?: number;
  readonly idleTimeMsPerSecond?: number;
  /** State entries (a value, or one map or list element) and their encoded size; keyed operators only. */
  readonly stateEntries?: number;
  readonly stateBytes?: number;
  /** Keys holding state, once per state they hold (a key with a value and a map counts twice). */
  readonly stateKeys?: number;
  /**
   * Event time (epoch ms) this subtask has reached: absent before its first watermark and once
   * every input ended (+Infinity); a source's is the last watermark it made.
   */
  readonly watermark?: number;
  /**
   * How far its watermark holds back behind the newest record time it has taken (ms): what
   * out-of-orderness and slow inputs cost in latency. Absent where there is no watermark.
   */
  readonly watermarkLagMs?: number;
  /** Timers this subtask holds (keyed operators that use them). */
  readonly timers?: number;
  /** Input records a source skipped (a bad timestamp with `onBadTimestamp: "skip"`). */
  readonly recordsSkipped?: number;
  /**
   * What a connector of this subtask waits for now, as it says it ("waiting for Kafka at
   * localhost:9092 (...): retry 3 in 800 ms"); absent while it waits for nothing.
   */
  readonly wait?: string;
}

export interface OperatorMetrics {
  readonly id: string;
  readonly kind: string;
  readonly parallelism: number;
  readonly recordsIn: number;
  readonly recordsOut: number;
  readonly stateEntries?: number;
  readonly stateBytes?: number;
  readonly stateKeys?: number;
  readonly subtasks: readonly SubtaskMetrics[];
}

export interface JobMetrics {
  readonly job: string;
  readonly elapsedMs: number;
  readonly operators: readonly OperatorMetrics[];
}

/** Sums subtask figures into the operator's, leaving state out where no subtask has any. */
export function operatorTotals(subtasks: readonly SubtaskMetrics[]) {
  let recordsIn = 0;
  let recordsOut = 0;
  let stateEntries: number | undefined;
  let stateBytes: number | undefined;
  let stateKeys: number | undefined;
  for (const s of subtasks) {
    recordsIn += s.recordsIn;
    recordsOut += s.recordsOut;
    if (s.stateEntries !== undefined) stateEntries = (stateEntries ?? 0) + s.stateEntries;
    if (s.stateBytes !== undefined) stateBytes = (stateBytes ?? 0) + s.stateBytes;
    if (s.stateKeys !== undefined) stateKeys = (stateKeys ?? 0) + s.stateKeys;
  }
  return { recordsIn, recordsOut, stateEntries, stateBytes, stateKeys };
}
