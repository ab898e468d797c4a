// What travels on a channel: records in envelopes, and control events in order with them. All
// of it is plain data (no classes, no functions, no shared instances), so an executor may carry
// it to another thread as it is.
import type { RecordSource } from './recordSource.js';

export type { RecordSource } from './recordSource.js';

export interface Envelope {
  readonly type: 'record';
  readonly value: unknown;
  /**
   * The key of a hash edge (an array for a composite key); on a routed edge the records skipped
   * just before this one (a `SkipCount`), if any; undefined on other edges.
   */
  readonly key: unknown;
  readonly keyGroup: number;
  /** Event time in ms, when the source assigns one. */
  readonly timestamp: number | undefined;
  /** Where the record (or the record it was derived from) entered the job, for error messages. */
  readonly source: RecordSource | undefined;
  /** A byte offset or index within `source`. */
  readonly position: number;
  /**
   * The JSON text `value` was just parsed from, when the record is still exactly what it says (a
   * source.jsonl line no user code has touched), kept only on the way to another thread: the
   * transport sends it as it is instead of encoding the value again. Undefined otherwise.
   */
  readonly text: string | undefined;
}

/** Checkpoint `checkpointId` separates the records before it from those after it. */
export interface Barrier {
  readonly type: 'barrier';
  readonly checkpointId: number;
}

/**
 * Event time has reached `timestamp` on this channel: no record with an earlier or equal time is
 * expected any more (later ones that still come are late). Made by sources from their records'
 * times, forwarded by every operator as the least of its inputs'.
 */
export interface Watermark {
  readonly type: 'watermark';
  readonly timestamp: number;
}

/**
 * The producer has gone idle (a source with nothing to read for its idle timeout): this channel
 * stops holding back the consumer's watermark until its next record or watermark.
 */
export interface Idle {
  readonly type: 'idle';
}

/** The producer on this channel has no more records. */
export interface EndOfStream {
  readonly type: 'end';
}

/**
 * Records of a routed edge (into a transaction) that went to other subtasks since the last item
 * on this channel: how many, and, if any had an event time, the index among them of the first
 * that had and the highest such time (each as the higher of it and the watermark it came after). That is all a consumer needs to number the channel's records as
 * every subtask does (operators/transaction/txOrder.ts). A record of a routed edge carries the
 * same, in its envelope's `key`, for the records skipped just before it.
 */
export type SkipCount =
  | readonly [count: number]
  | readonly [count: number, firstTimed: number, maxTime: number];

/** A progress mark (Calvin's sequencer): nothing before it is still coming on this channel. */
export interface Skipped {
  readonly type: 'skipped';
  readonly skipped: SkipCount;
}

export type ChannelItem = Envelope | Barrier | Watermark | Idle | EndOfStream | Skipped;

/** Every envelope is made here, so all have one shape (V8 keeps the code that reads them fast). */
export function envelope(
  value: unknown,
  key: unknown,
  keyGroup: number,
  timestamp: number | undefined,
  source: RecordSource | undefined,
  position: number,
  text?: string,
): Envelope {
  return { type: 'record', value, key, keyGroup, timestamp, source, position, text };
}

export function barrier(checkpointId: number): Barrier {
  return { type: 'barrier', checkpointId };
}

export function watermark(timestamp: number): Watermark {
  return { type: 'watermark', timestamp };
}

export const IDLE: Idle = Object.freeze({ type: 'idle' });

export const END_OF_STREAM: EndOfStream = Object.freeze({ type: 'end' });
