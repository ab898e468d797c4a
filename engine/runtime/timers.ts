// Timers as operators see them (Flink's TimerService). A timer belongs to a key and fires once
// for it: event-time timers when the watermark reaches their time, processing-time ones when the
// wall clock does. They are keyed state (state/timerStore.ts keeps them per key group in the
// state backend), so a million timers are not a million heap objects, they are in checkpoints
// and they move with their key group on rescale.

export type TimeDomain = 'eventTime' | 'processingTime';

/** A timer that fires: the subtask scopes state to its key and sets the lineage's time to it. */
export interface FiredTimer {
  readonly domain: TimeDomain;
  readonly timestamp: number;
  readonly keyGroup: number;
  readonly key: unknown;
}

/** The timers of the key being processed (the one state is scoped to). */
export interface TimerService {
  /** Registers a timer of the current key; registering one that exists changes nothing. */
  register(domain: TimeDomain, timestamp: number): void;
  /** Deletes a timer of the current key, if it exists. */
  delete(domain: TimeDomain, timestamp: number): void;
  /** Timers this subtask holds (every key, both domains). */
  readonly count: number;
}

/** The event time before any watermark (Flink's Long.MIN_VALUE). */
export const NO_WATERMARK = Number.NEGATIVE_INFINITY;
/** The watermark an input that ended sends: every event-time timer fires. */
export const FINAL_WATERMARK = Number.POSITIVE_INFINITY;
