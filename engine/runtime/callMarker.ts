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
//
// A call whose promise is pending need not hold its thread: the executor sets its subtask aside
// and the thread's other subtasks go on calling (suspension.ts). So the marker has two slots:
// the call in progress, and the oldest call set aside that way, written only when that changes
// (a promise per record costs far more than these stores). A promise that never settles stays
// in the second slot for the reader to name, however busy the thread is otherwise.

import type { JobError } from '../graph/jobError.js';
import type { Envelope } from './envelope.js';
import { type RecordSource, recordSourceKey } from './recordSource.js';

/**
 * What a subtask was asked to do when it entered the call; `condition`: a debug run's breakpoint
 * condition, run on the record the subtask took.
 */
export type CallKind = 'process' | 'produce' | 'endInput' | 'onTimer' | 'condition';
const KINDS: readonly CallKind[] = ['process', 'produce', 'endInput', 'onTimer', 'condition'];
const KIND_CODES: Readonly<Record<CallKind, number>> = {
  process: 0,
  produce: 1,
  endInput: 2,
  onTimer: 3,
  condition: 4,
};
/** The source word is (source + 1) * KIND_SPAN + kind. */
const KIND_SPAN = 8;

// Whether the thread is in a call, and how: the low 2 bits of the state word.
const IDLE = 0;
/** Running synchronously: a loop that never ends is stuck here. */
const RUNNING = 1;
/** The call returned a promise that has not settled yet. */
const AWAITING = 2;

// Byte offsets of a slot's words: (calls << 2) | state; the subtask's ordinal; (source + 1) *
// KIND_SPAN + kind (source 0: none); the position's low and high 32 bits (byte offsets pass
// 2^32); the breakpoint's ordinal (conditions only).
const STATE_WORD = 0;
const SUBTASK_WORD = 4;
const SOURCE_WORD = 8;
const POSITION_LOW = 12;
const POSITION_HIGH = 16;
const BREAKPOINT_WORD = 20;
const SLOT_BYTES = 24;
/** The call in progress; then the oldest call set aside while its promise is pending. */
const CURRENT = 0;
const ASIDE = SLOT_BYTES;
const BYTES = 2 * SLOT_BYTES;
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
  | { readonly type: 'source'; readonly ordinal: number; readonly source: MarkedSource }
  | { readonly type: 'breakpoint'; readonly ordinal: number; readonly id: string };

/** A call whose promise is pending, as awaiting() made it: settled() ends it. */
export interface PendingCall {
  readonly calls: number;
  readonly subtask: number;
  readonly source: number;
  readonly position: number;
  readonly breakpoint: number;
}

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
  private readonly written = { subtask: 0, source: 0, high: 0, breakpoint: 0 };
  private position = 0;
  /** Breakpoint ids by ordinal, as sent. */
  private readonly breakpoints = new Map<string, number>();
  /** Calls whose promise is pending, oldest first: the first is in the ASIDE slot. */
  private readonly pending: PendingCall[] = [];
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
    this.breakpoints.clear();
    this.lastSource = undefined;
    this.lastOrdinal = -1;
    this.leave();
    this.pending.length = 0;
    this.view.setInt32(ASIDE + STATE_WORD, IDLE, true);
    this.onUpdate({ type: 'subtasks', subtasks });
  }

  /** A debug run's breakpoint condition, run on the record `ordinal`'s subtask took. */
  enterCondition(
    ordinal: number,
    owner: CallOwner,
    envelope: Envelope | undefined,
    breakpoint: string,
  ): void {
    let code = this.breakpoints.get(breakpoint);
    if (code === undefined) {
      code = this.breakpoints.size;
      this.breakpoints.set(breakpoint, code);
      this.onUpdate({ type: 'breakpoint', ordinal: code, id: breakpoint });
    }
    if (code !== this.written.breakpoint) {
      this.written.breakpoint = code;
      this.view.setUint32(BREAKPOINT_WORD, code, true);
    }
    this.enter(ordinal, owner, 'condition', envelope);
  }

  enter(ordinal: number, owner: CallOwner, kind: CallKind, envelope: Envelope | undefined): void {
    const view = this.view;
    const source = envelope?.source === undefined ? 0 : this.ordinalOf(envelope.source) + 1;
    const position = envelope?.position ?? 0;
    // The words that seldom change (a slice is one subtask's, records mostly of one source) are
    // written only when they do: two calls a record, not five.
    const sourceWord = source * KIND_SPAN + KIND_CODES[kind];
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
    this.position = position;
    this.calls = (this.calls + 1) & 0x1fffffff;
    view.setInt32(STATE_WORD, (this.calls << 2) | RUNNING, true);
    this.owner = owner;
    this.envelope = envelope;
    this.running = true;
  }

  /**
   * The call returned a promise: it stays the call in progress until the next call or leave(),
   * and a pending call until settled().
   */
  awaiting(): PendingCall {
    this.view.setInt32(STATE_WORD, (this.calls << 2) | AWAITING, true);
    this.running = false;
    const { subtask, source, breakpoint } = this.written;
    const call = { calls: this.calls, subtask, source, position: this.position, breakpoint };
    this.pending.push(call);
    if (this.pending.length === 1) this.writeAside(call);
    return call;
  }

  /** The promise of a call awaiting() returned has settled. */
  settled(call: PendingCall): void {
    const at = this.pending.indexOf(call);
    if (at >= 0) this.pending.splice(at, 1);
    if (at === 0) this.writeAside(this.pending[0]);
    // Still the call in progress (nothing else was called meanwhile): it is over.
    if (this.view.getInt32(STATE_WORD, true) === ((call.calls << 2) | AWAITING)) this.leave();
  }

  leave(): void {
    this.view.setInt32(STATE_WORD, (this.calls << 2) | IDLE, true);
    this.owner = undefined;
    this.envelope = undefined;
    this.running = false;
  }

  private writeAside(call: PendingCall | undefined): void {
    const view = this.view;
    if (call === undefined) {
      view.setInt32(ASIDE + STATE_WORD, IDLE, true);
      return;
    }
    view.setUint32(ASIDE + SUBTASK_WORD, call.subtask, true);
    view.setUint32(ASIDE + SOURCE_WORD, call.source, true);
    view.setUint32(ASIDE + POSITION_LOW, call.position % TWO_TO_32, true);
    view.setUint32(ASIDE + POSITION_HIGH, Math.floor(call.position / TWO_TO_32), true);
    view.setUint32(ASIDE + BREAKPOINT_WORD, call.breakpoint, true);
    view.setInt32(ASIDE + STATE_WORD, (call.calls << 2) | AWAITING, true);
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
  /** A condition's breakpoint (kind `condition` only). */
  readonly breakpoint?: string;
}

/** The reading side: another thread's view of a CallMarker, and how long its call has lasted. */
export class CallMarkerView {
  private readonly view: DataView;
  private subtasks: readonly MarkedSubtask[] = [];
  private readonly sources: MarkedSource[] = [];
  private readonly breakpoints: string[] = [];
  /** Per slot: its state word when last looked at, and since when it has been that. */
  private readonly lastWord = [IDLE, IDLE];
  private readonly since = [0, 0];

  constructor(buffer: SharedArrayBuffer) {
    this.view = new DataView(buffer);
  }

  update(update: MarkerUpdate): void {
    if (update.type === 'subtasks') {
      this.subtasks = update.subtasks;
      this.sources.length = 0;
      this.breakpoints.length = 0;
    } else if (update.type === 'source') {
      this.sources[update.ordinal] = update.source;
    } else {
      this.breakpoints[update.ordinal] = update.id;
    }
  }

  /**
   * The call in progress, or else the oldest one set aside with its promise pending (whichever
   * has lasted longer when both are, as stuckFor says); undefined when there is neither.
   */
  current(): MarkedCall | undefined {
    const slot = this.longer();
    return slot === undefined ? undefined : this.callIn(slot);
  }

  /**
   * How long the call current() gives has lasted, in ms, as far as calls to this method can
   * tell: call it on a timer. 0 when there is none.
   */
  stuckFor(now: number = performance.now()): number {
    for (const slot of [CURRENT, ASIDE]) {
      const i = slot / SLOT_BYTES;
      const word = this.view.getInt32(slot + STATE_WORD, true);
      if (word !== this.lastWord[i]) {
        this.lastWord[i] = word;
        this.since[i] = now;
      }
    }
    const slot = this.longer();
    return slot === undefined ? 0 : now - this.since[slot / SLOT_BYTES]!;
  }

  /**
   * The busy slot whose call began first as stuckFor saw them (a call it has not seen yet is the
   * newest), the call in progress on a tie.
   */
  private longer(): number | undefined {
    let chosen: number | undefined;
    let oldest = Number.POSITIVE_INFINITY;
    for (const slot of [CURRENT, ASIDE]) {
      const i = slot / SLOT_BYTES;
      const word = this.view.getInt32(slot + STATE_WORD, true);
      if ((word & 3) === IDLE) continue;
      const since = word === this.lastWord[i] ? this.since[i]! : Number.POSITIVE_INFINITY;
      if (chosen === undefined || since < oldest) {
        oldest = since;
        chosen = slot;
      }
    }
    return chosen;
  }

  private callIn(slot: number): MarkedCall {
    const view = this.view;
    const sourceWord = view.getUint32(slot + SOURCE_WORD, true);
    const source = Math.floor(sourceWord / KIND_SPAN);
    const kind = KINDS[sourceWord % KIND_SPAN] ?? 'process';
    const call: MarkedCall = {
      subtask: this.subtasks[view.getUint32(slot + SUBTASK_WORD, true)],
      kind,
      awaiting: (view.getInt32(slot + STATE_WORD, true) & 3) === AWAITING,
      source: source === 0 ? undefined : this.sources[source - 1],
      position:
        view.getUint32(slot + POSITION_HIGH, true) * TWO_TO_32 + view.getUint32(slot + POSITION_LOW, true),
    };
    if (kind !== 'condition') return call;
    return { ...call, breakpoint: this.breakpoints[view.getUint32(slot + BREAKPOINT_WORD, true)] ?? '?' };
  }
}
