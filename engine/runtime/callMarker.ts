// Where a run's thread is in user code, readable from another thread while this one is stuck.
//
// A `while (true) {}` in a process function never gives the thread back, so nothing on it can
// say where it is; the thread that serves signals and the designer reads this instead, then
// terminates the worker and names the operator and the record. The writer is the run's own
// thread: each delivery writes three numbers into a SharedArrayBuffer, and what the numbers
// mean (which subtask, which source) is sent once as plain data, since only plain data crosses
// a thread.
//
// Cost, measured on the reference machine: after SES lockdown an indexed store into any typed
// array (or array) leaves V8's fast path, ~70-100 ns where it was ~2 ns; a DataView's integer
// setters are calls that stay at ~10 ns (its float setters SES wraps, against NaN side
// channels, and they cost several times that). So the marker is a DataView of 32-bit words:
// one packs the call's state with a count of calls (so a reader sees a new call even between
// two readings), one the subtask, one the source and kind, two the record's position. Only
// operators that run user code are marked (Subtask.marksCalls): a sink or a file source never
// holds its thread, and the run does not pay for them.
// Plain stores, not Atomics (~35 ns each, fenced): the reader needs no ordering, since it acts
// only on a call that has not changed for a second, whose numbers were written long before; a
// reading taken mid-write is superseded by the next one.

import type { JobError } from '../graph/jobError.js';
import type { Envelope } from './envelope.js';
import { type RecordSource, recordSourceKey } from './recordSource.js';

/** What a subtask was asked to do when it entered the call. */
export type CallKind = 'process' | 'produce' | 'endInput' | 'onTimer';
const KINDS: readonly CallKind[] = ['process', 'produce', 'endInput', 'onTimer'];
const KIND_CODES: Readonly<Record<CallKind, number>> = { process: 0, produce: 1, endInput: 2, onTimer: 3 };

// Whether the thread is in a call, and how: the low 2 bits of the state word.
const IDLE = 0;
/** Running synchronously: a loop that never ends is stuck here. */
const RUNNING = 1;
/** The call returned a promise that has not settled yet. */
const AWAITING = 2;

// Byte offsets of the words: (calls << 2) | state; the subtask's ordinal; (source + 1) * 4 +
// kind (source 0: none); the position's low and high 32 bits (byte offsets pass 2^32).
const STATE_WORD = 0;
const SUBTASK_WORD = 4;
const SOURCE_WORD = 8;
const POSITION_LOW = 12;
const POSITION_HIGH = 16;
const BYTES = 20;
const TWO_TO_32 = 2 ** 32;

/** A subtask as the reading thread names it. */
export interface MarkedSubtask {
  readonly operatorId: string;
  readonly subtask: number;
  readonly parallelism: number;
}

/** A record source as the reading thread gets it: it is plain data already. */
export type MarkedSource = RecordSource;

/** Sent to the reading thread as the writer learns what its numbers mean. */
export type MarkerUpdate =
  | { readonly type: 'subtasks'; readonly subtasks: readonly MarkedSubtask[] }
  | { readonly type: 'source'; readonly ordinal: number; readonly source: MarkedSource };

/** Who is in the call, on the run's own thread: it words a failure that surfaces later. */
export interface CallOwner {
  readonly operator: { readonly id: string };
  failure(error: unknown, envelope?: Envelope, context?: string): JobError;
}

export function createMarkerBuffer(): SharedArrayBuffer {
  return new SharedArrayBuffer(BYTES);
}

/** The run's side: written before and after every call into an operator's logic. */
export class CallMarker {
  private readonly view: DataView;
  /** By recordSourceKey: a source copied from another thread is still the same source. */
  private readonly sources = new Map<string, number>();
  private calls = 0;
  /** What the words that seldom change hold now. */
  private readonly written = { subtask: 0, source: 0, high: 0 };
  /** The last source looked up: a subtask's records mostly come from one. */
  private lastSource: RecordSource | undefined;
  private lastOrdinal = -1;
  /** The call in progress (escapedRejections.ts names it), kept until leave(). */
  owner: CallOwner | undefined;
  envelope: Envelope | undefined;
  /** Running synchronously: promises made now are the call's. */
  running = false;

  constructor(
    buffer: SharedArrayBuffer,
    private readonly onUpdate: (update: MarkerUpdate) => void = () => {},
  ) {
    this.view = new DataView(buffer);
  }

  /** A run opened with these subtasks (a subtask's ordinal is its index here). */
  begin(subtasks: readonly MarkedSubtask[]): void {
    this.sources.clear();
    this.lastSource = undefined;
    this.lastOrdinal = -1;
    this.leave();
    this.onUpdate({ type: 'subtasks', subtasks });
  }

  enter(ordinal: number, owner: CallOwner, kind: CallKind, envelope: Envelope | undefined): void {
    const view = this.view;
    const source = envelope?.source === undefined ? 0 : this.ordinalOf(envelope.source) + 1;
    const position = envelope?.position ?? 0;
    // The words that seldom change (a slice is one subtask's, records mostly of one source) are
    // written only when they do: two calls a record, not five.
    const sourceWord = source * 4 + KIND_CODES[kind];
    const high = Math.floor(position / TWO_TO_32);
    const written = this.written;
    if (ordinal !== written.subtask) {
      written.subtask = ordinal;
      view.setUint32(SUBTASK_WORD, ordinal, true);
    }
    if (sourceWord !== written.source) {
      written.source = sourceWord;
      view.setUint32(SOURCE_WORD, sourceWord, true);
    }
    if (high !== written.high) {
      written.high = high;
      view.setUint32(POSITION_HIGH, high, true);
    }
    view.setUint32(POSITION_LOW, position % TWO_TO_32, true);
    this.calls = (this.calls + 1) & 0x1fffffff;
    view.setInt32(STATE_WORD, (this.calls << 2) | RUNNING, true);
    this.owner = owner;
    this.envelope = envelope;
    this.running = true;
  }

  /** The call returned a promise; it stays the call in progress until leave(). */
  awaiting(): void {
    this.view.setInt32(STATE_WORD, (this.calls << 2) | AWAITING, true);
    this.running = false;
  }

  leave(): void {
    this.view.setInt32(STATE_WORD, (this.calls << 2) | IDLE, true);
    this.owner = undefined;
    this.envelope = undefined;
    this.running = false;
  }

  private ordinalOf(source: RecordSource): number {
    if (source === this.lastSource) return this.lastOrdinal;
    const key = recordSourceKey(source);
    let ordinal = this.sources.get(key);
    if (ordinal === undefined) {
      ordinal = this.sources.size;
      this.sources.set(key, ordinal);
      this.onUpdate({ type: 'source', ordinal, source });
    }
    this.lastSource = source;
    this.lastOrdinal = ordinal;
    return ordinal;
  }
}

/** A call as the reading thread sees it. */
export interface MarkedCall {
  readonly subtask: MarkedSubtask | undefined;
  readonly kind: CallKind;
  /** Still running synchronously, or waiting on a promise it returned. */
  readonly awaiting: boolean;
  readonly source: MarkedSource | undefined;
  readonly position: number;
}

/** The reading side: another thread's view of a CallMarker, and how long its call has lasted. */
export class CallMarkerView {
  private readonly view: DataView;
  private subtasks: readonly MarkedSubtask[] = [];
  private readonly sources: MarkedSource[] = [];
  private lastWord = IDLE;
  private since = 0;

  constructor(buffer: SharedArrayBuffer) {
    this.view = new DataView(buffer);
  }

  update(update: MarkerUpdate): void {
    if (update.type === 'subtasks') {
      this.subtasks = update.subtasks;
      this.sources.length = 0;
    } else {
      this.sources[update.ordinal] = update.source;
    }
  }

  /** The call in progress, or undefined between calls. */
  current(): MarkedCall | undefined {
    const state = this.view.getInt32(STATE_WORD, true) & 3;
    if (state === IDLE) return undefined;
    const view = this.view;
    const sourceWord = view.getUint32(SOURCE_WORD, true);
    const source = sourceWord >>> 2;
    return {
      subtask: this.subtasks[view.getUint32(SUBTASK_WORD, true)],
      kind: KINDS[sourceWord & 3] ?? 'process',
      awaiting: state === AWAITING,
      source: source === 0 ? undefined : this.sources[source - 1],
      position: view.getUint32(POSITION_HIGH, true) * TWO_TO_32 + view.getUint32(POSITION_LOW, true),
    };
  }

  /**
   * How long the call in progress has lasted, in ms, as far as calls to this method can tell:
   * call it on a timer. 0 between calls.
   */
  stuckFor(now: number = performance.now()): number {
    const word = this.view.getInt32(STATE_WORD, true);
    const busy = (word & 3) !== IDLE;
    if (word !== this.lastWord) {
      this.lastWord = word;
      this.since = now;
    }
    return busy ? now - this.since : 0;
  }
}
