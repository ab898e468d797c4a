// The messages of the worker pipe, as flink/PROTOCOL.md defines them: what the runner sends
// (open, batch, close, and the answers to reads) and what the worker answers. The runner is
// trusted code of this project, so frames are checked only as far as a mistake would otherwise
// surface as a confusing TypeError deep in the worker.
import type { StateText, StateWrite } from './batchState.js';

export interface OpenMessage {
  readonly t: 'open';
  readonly operator: {
    readonly id: string;
    readonly kind: string;
    readonly parallelism: number;
    readonly params: Readonly<Record<string, unknown>>;
  };
  readonly inputs: readonly {
    readonly id: string;
    readonly partition: string;
    readonly key?: string | readonly string[];
    /** A feedback edge into a loop head (the runner's plan marks it). */
    readonly feedback?: boolean;
  }[];
  readonly subtask: number;
  readonly parallelism: number;
  readonly maxParallelism: number;
  readonly keyed: boolean;
  readonly jobName?: string;
}

/** One record of a batch: its input edge, key, value, event time and the value states read for it. */
export interface BatchRecord {
  readonly e: string;
  readonly k?: unknown;
  readonly r: unknown;
  readonly ts?: number;
  readonly s?: Readonly<Record<string, StateText>>;
}

/** A timer that fired, among a keyed operator's records: `e` event time, `p` processing time. */
export interface BatchTimer {
  readonly timer: 'e' | 'p';
  readonly ts: number;
  readonly k: unknown;
  readonly s?: Readonly<Record<string, StateText>>;
}

/**
 * A watermark in its place among the records (an operator no onTimer sees it fire for): ctx.watermark
 * is `wm` from here on, and the answer's `out` marks the place with null.
 */
export interface BatchWatermark {
  readonly wm: number;
}

export type BatchItem = BatchRecord | BatchTimer | BatchWatermark;

export interface BatchMessage {
  readonly t: 'batch';
  readonly records: readonly BatchItem[];
  /** The operator's watermark as the batch was sent; absent before the first one. */
  readonly w?: number;
}

/** Flink's Long.MAX_VALUE watermark, the end of input, as a double. */
const END_OF_TIME = 9.223372036854776e18;

/** `w` as ctx.watermark says it: -Infinity before the first, Infinity at the end. */
export function watermarkOf(w: number | undefined): number {
  if (w === undefined) return Number.NEGATIVE_INFINITY;
  return w >= END_OF_TIME ? Number.POSITIVE_INFINITY : w;
}

/** A source's records by number (source.nexmark, source.generator): next, next + stride, …, `count` of them. */
export interface MakeMessage {
  readonly t: 'make';
  readonly next: number;
  readonly stride: number;
  readonly count: number;
}

/** The records made: each one's JSON text and event time (null: none; no times: none has one), in order. */
export interface MadeMessage {
  readonly t: 'made';
  readonly records: readonly string[];
  readonly times?: readonly (number | null)[];
}

export type RunnerMessage = OpenMessage | BatchMessage | MakeMessage | { readonly t: 'close' };

/** A state read the batch's cache could not answer, for the key of record `i`. */
export type ReadRequest =
  | { readonly t: 'read'; readonly i: number; readonly what: 'value'; readonly name: string }
  | {
      readonly t: 'read';
      readonly i: number;
      readonly what: 'map';
      readonly name: string;
      readonly mk: string;
    }
  | { readonly t: 'read'; readonly i: number; readonly what: 'mapEntries'; readonly name: string }
  | { readonly t: 'read'; readonly i: number; readonly what: 'list'; readonly name: string };

/**
 * A record emitted: its JSON text on port `out`, or [port, text], or [port, text, event time];
 * or null, the place of a watermark the batch carried.
 */
export type Output =
  | null
  | string
  | readonly [port: string, text: string]
  | readonly [port: string, text: string, ts: number];

export type WorkerMessage =
  | { readonly t: 'ready'; readonly onTimer?: boolean }
  | { readonly t: 'error'; readonly message: string }
  | ReadRequest
  | { readonly t: 'done'; readonly out: readonly Output[]; readonly writes: readonly StateWrite[] }
  | MadeMessage;

/** The type of a runner's frame, or a description of what came instead. */
export function messageType(frame: unknown): string {
  if (typeof frame !== 'object' || frame === null || Array.isArray(frame)) return `not an object`;
  const t = (frame as { t?: unknown }).t;
  return typeof t === 'string' ? t : 'without "t"';
}
