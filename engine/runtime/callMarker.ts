// Where a run's thread is in user code, readable from another thread while this one is stuck.
//
// A `while (true) {}` in a process function never gives the thread back, so nothing on it can
// say where it is; the thread that serves signals and the designer reads this instead, then
// terminates the worker and names the operator and the record. The writer is the run's own
// thread: each delivery writes four numbers into a SharedArrayBuffer (a few ns, against ~6 µs
// per record for the whole pipeline), and what the numbers mean (which subtask, which source)
// is sent once as plain data, since only plain data crosses a thread.
import type { Envelope, RecordSource } from './envelope.js';
import type { JobError } from './jobError.js';

/** What a subtask was asked to do when it entered the call. */
export type CallKind = 'process' | 'produce' | 'endInput';
const KINDS: readonly CallKind[] = ['process', 'produce', 'endInput'];

// Whether the thread is in a call, and how.
const IDLE = 0;
/** Running synchronously: a loop that never ends is stuck here. */
const RUNNING = 1;
/** The call returned a promise that has not settled yet. */
const AWAITING = 2;

// Int32 slots, then the position as a Float64 (byte offsets pass 2^31).
const STATE = 0;
const SUBTASK = 1;
const SOURCE = 2;
const KIND = 3;
const CALLS = 4;
const INT_SLOTS = 6;
const BYTES = INT_SLOTS * 4 + 8;

/** A subtask as the reading thread names it. */
export interface MarkedSubtask {
  readonly operatorId: string;
  readonly subtask: number;
  readonly parallelism: number;
}

/** A record source as plain data: a file source's file, or none (generators number their records). */
export interface MarkedSource {
  readonly operatorId: string;
  readonly file?: string;
}

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
  private readonly ints: Int32Array;
  private readonly position: Float64Array;
  private readonly sources = new Map<RecordSource, number>();
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
    this.ints = new Int32Array(buffer, 0, INT_SLOTS);
    this.position = new Float64Array(buffer, INT_SLOTS * 4, 1);
  }

  /** A run opened with these subtasks (a subtask's ordinal is its index here). */
  begin(subtasks: readonly MarkedSubtask[]): void {
    this.sources.clear();
    this.lastSource = undefined;
    this.lastOrdinal = -1;
    this.leave();
    Atomics.store(this.ints, STATE, IDLE);
    this.onUpdate({ type: 'subtasks', subtasks });
  }

  enter(ordinal: number, owner: CallOwner, kind: CallKind, envelope: Envelope | undefined): void {
    const ints = this.ints;
    const source = envelope?.source;
    ints[SUBTASK] = ordinal;
    ints[SOURCE] = source === undefined ? -1 : this.ordinalOf(source);
    ints[KIND] = KINDS.indexOf(kind);
    this.position[0] = envelope?.position ?? 0;
    ints[CALLS] = (ints[CALLS]! + 1) | 0;
    // The state last: a reader that sees RUNNING sees the rest of this call.
    Atomics.store(ints, STATE, RUNNING);
    this.owner = owner;
    this.envelope = envelope;
    this.running = true;
  }

  /** The call returned a promise; it stays the call in progress until leave(). */
  awaiting(): void {
    Atomics.store(this.ints, STATE, AWAITING);
    this.running = false;
  }

  leave(): void {
    Atomics.store(this.ints, STATE, IDLE);
    this.owner = undefined;
    this.envelope = undefined;
    this.running = false;
  }

  private ordinalOf(source: RecordSource): number {
    if (source === this.lastSource) return this.lastOrdinal;
    let ordinal = this.sources.get(source);
    if (ordinal === undefined) {
      ordinal = this.sources.size;
      this.sources.set(source, ordinal);
      this.onUpdate({
        type: 'source',
        ordinal,
        source: {
          operatorId: source.operatorId,
          ...(source.file === undefined ? {} : { file: source.file }),
        },
      });
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
  private readonly ints: Int32Array;
  private readonly position: Float64Array;
  private subtasks: readonly MarkedSubtask[] = [];
  private readonly sources: MarkedSource[] = [];
  private lastCalls = -1;
  private since = 0;

  constructor(buffer: SharedArrayBuffer) {
    this.ints = new Int32Array(buffer, 0, INT_SLOTS);
    this.position = new Float64Array(buffer, INT_SLOTS * 4, 1);
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
    const state = Atomics.load(this.ints, STATE);
    if (state === IDLE) return undefined;
    const source = this.ints[SOURCE]!;
    return {
      subtask: this.subtasks[this.ints[SUBTASK]!],
      kind: KINDS[this.ints[KIND]!] ?? 'process',
      awaiting: state === AWAITING,
      source: source < 0 ? undefined : this.sources[source],
      position: this.position[0]!,
    };
  }

  /**
   * How long the call in progress has lasted, in ms, as far as calls to this method can tell:
   * call it on a timer. 0 between calls.
   */
  stuckFor(now: number = performance.now()): number {
    const calls = Atomics.load(this.ints, STATE) === IDLE ? -1 : this.ints[CALLS]!;
    if (calls !== this.lastCalls) {
      this.lastCalls = calls;
      this.since = now;
    }
    return calls === -1 ? 0 : now - this.since;
  }
}
