// The accumulators of the windows a tumbling or sliding window operator has open, kept on the
// heap between checkpoints. Flink SQL's window aggregation does the like (its window buffer and
// combiner, and one timer per window rather than per key and window; Arroyo too): a record
// updates an accumulator in memory, and keyed state is read once when a (key, window) is first
// touched and written once when a checkpoint comes, not read, decoded, encoded and written per
// record. A window that opens and fires between two checkpoints never reaches the store, and has
// no timers: as event time passes its end (advance(), before the subtask's timers fire) it fires
// every key it holds, in the timers' order (key group, then key as UTF-8). The accumulator is built
// by `add` record after record exactly as it would be through state, so results do not depend on
// when writes happen (a float sum gives the same bits whatever the checkpoints).
//
// A (key, window) is looked up in the store only where the store may hold it: a window later
// than any this operator wrote back (or restored) cannot be there, and that is most of them, since
// windows open as event time goes on. So a new window costs no read, on LevelDB a _getSync.
//
// What must see the store sees it whole: a checkpoint's snapshot (writeBack first, which also
// registers the timers of what it writes, so that a restore fires it), and the state size, which
// counts accumulators held here. Debug runs do not use this: the debugger shows and rolls back
// keyed state after each step, and steps through timers one by one.
import type { TimerService } from '../../runtime/timers.js';
import type { KeyedState, MapStateApi, StateSize } from '../../state/keyedState.js';
import { compareUtf8 } from '../../state/storeBrowser.js';
import type { WindowAggregate } from './windowAggregate.js';

/**
 * Held at most; past this the dirty ones are written back and all let go (their keys are read
 * again when next touched, and their timers fire them). At some 200 bytes each (an accumulator,
 * its entry and map slot), 65,536 hold about 13 MB, well within the 96 MB heaps tests run under.
 */
export const MAX_HELD = 65_536;

/** Timers are whole ms within ±2^52 (state/timerStore.ts); a cleanup beyond that never comes. */
export const LAST_TIMER = 2 ** 52 - 1;

interface Held {
  readonly keyGroup: number;
  readonly key: unknown;
  /** The key as keyed state encodes it, and whether `<` orders it as UTF-8 does (no unit ≥ U+D800). */
  readonly keyText: string;
  readonly plain: boolean;
  acc: unknown;
  /** Keyed state holds this (key, window) too: it was read from there or written back. */
  stored: boolean;
  /**
   * Its timers are registered (it was read from the store or written back). They stay when it
   * fires from here: a timer at one time may also be another window's cleanup, and a timer that
   * finds its window gone or held here does nothing (WindowLogic's windowTimer).
   */
  timers: boolean;
  /** Changed since it was last read or written back. */
  dirty: boolean;
  /** For the state size while not stored: its entry's bytes, as estimated when it was made. */
  bytes: number;
}

/** One window's accumulators, by key as keyed state encodes it. */
interface WindowKeys {
  readonly byKey: Map<string, Held>;
  /** Of them, those not in the store. */
  unstored: number;
  /** Event time has reached its last ms: its keys have fired (those of late records fire at once). */
  fired: boolean;
}

/** What the window operator is, for the windows held here. */
export interface HeldWindowShape {
  readonly size: number;
  readonly allowedLateness: number;
  readonly timers: TimerService;
  /** The subtask's event time now. */
  watermark(): number;
  /** Emits the current key's result of [start, end). */
  fire(start: number, end: number, acc: unknown): void;
}

export class WindowAccumulators {
  /** By window start, then key: a record looks up a few windows by number, then its key. */
  private readonly byStart = new Map<number, WindowKeys>();
  private held = 0;
  /** Accumulators not in the store and their estimated bytes. */
  private unstored = 0;
  private unstoredBytes = 0;
  /** The earliest event time at which a held window fires or goes: a watermark below costs nothing. */
  private nextDue = Number.POSITIVE_INFINITY;
  /** Whether the last add() made its window: none of that start held anything for the key before. */
  created = false;

  /**
   * `storedUpTo`: the latest window start the store may hold (-Infinity: it holds none, as in a
   * run that did not restore; Infinity: not known).
   */
  constructor(
    private readonly state: KeyedState,
    private readonly windows: MapStateApi,
    private readonly aggregate: WindowAggregate,
    private storedUpTo: number,
    private readonly shape: HeldWindowShape,
  ) {}

  /** The latest window start the store may hold, for the checkpoint to keep (see the constructor). */
  get latestStored(): number {
    return this.storedUpTo;
  }

  /**
   * The current key's accumulator of the window at `start`, with `record` added (see `created`).
   * A window whose last ms event time has passed (a late record within the allowed lateness) is
   * the caller's to fire at once.
   */
  add(start: number, record: unknown): unknown {
    const keyText = this.state.currentKeyEncoded();
    let window = this.byStart.get(start);
    const held = window?.byKey.get(keyText);
    if (held !== undefined) {
      held.acc = this.aggregate.add(held.acc, record);
      held.dirty = true;
      this.created = false;
      return held.acc;
    }
    const fromStore = start <= this.storedUpTo ? this.windows.get(start) : undefined;
    const created = fromStore === undefined;
    // Added before anything is kept: a record the aggregate refuses leaves nothing behind.
    const acc = this.aggregate.add(created ? this.aggregate.createAccumulator() : fromStore, record);
    if (this.held >= MAX_HELD) {
      this.writeBack(true);
      window = undefined;
    }
    if (window === undefined) {
      const due = start + this.shape.size - 1;
      const fired = due <= this.shape.watermark();
      window = { byKey: new Map(), unstored: 0, fired };
      this.byStart.set(start, window);
      this.nextDue = Math.min(this.nextDue, fired ? due + this.shape.allowedLateness : due);
    }
    const state = this.state;
    // From the store it has its timers (registered when it was written).
    const entry: Held = {
      keyGroup: state.currentKeyGroup,
      key: state.currentKey,
      keyText,
      plain: !BEYOND_PLAIN.test(keyText),
      acc,
      stored: !created,
      timers: !created,
      dirty: true,
      bytes: 0,
    };
    window.byKey.set(keyText, entry);
    this.held++;
    if (created) {
      // Once per (key, window): its state entry's key and value, about as the store counts them
      // (a number's JSON is not made: most accumulators are counts and sums).
      entry.bytes =
        2 * keyText.length + 40 + (typeof acc === 'number' ? 8 : (JSON.stringify(acc)?.length ?? 0));
      this.unstored++;
      this.unstoredBytes += entry.bytes;
      window.unstored++;
    }
    this.created = created;
    return acc;
  }

  /**
   * For a timer of the current key: the accumulator of the window at `start` when only the store
   * has it. One held here has fired from here (advance() runs before the timers), so a timer
   * that comes for it (registered at a checkpoint, or another window's cleanup at the same time)
   * must not fire it again.
   */
  storedOnly(start: number): unknown {
    if (this.byStart.get(start)?.byKey.has(this.state.currentKeyEncoded())) return undefined;
    return start <= this.storedUpTo ? this.windows.get(start) : undefined;
  }

  /** The current key's window at `start` is over (its timer said so): gone from here and the store. */
  delete(start: number): void {
    const keyText = this.state.currentKeyEncoded();
    const window = this.byStart.get(start);
    const held = window?.byKey.get(keyText);
    if (held === undefined) {
      if (start <= this.storedUpTo) this.windows.delete(start);
      return;
    }
    window!.byKey.delete(keyText);
    if (window!.byKey.size === 0) this.byStart.delete(start);
    this.drop(window!, start, held);
  }

  /**
   * Event time reaches `watermark`: every held window whose last ms it has reached fires, each
   * key once, and every one whose allowed lateness it has passed goes. Oldest window first; the
   * state stays scoped to the last key fired.
   */
  advance(watermark: number): void {
    if (watermark < this.nextDue) return;
    const { size, allowedLateness } = this.shape;
    let next = Number.POSITIVE_INFINITY;
    for (const start of [...this.byStart.keys()].sort((a, b) => a - b)) {
      const window = this.byStart.get(start)!;
      const due = start + size - 1;
      if (!window.fired && due <= watermark) {
        window.fired = true;
        for (const held of inTimerOrder(window.byKey)) {
          this.state.setKey(held.keyGroup, held.key);
          this.shape.fire(start, start + size, held.acc);
          // Without lateness the window goes with its firing.
          if (allowedLateness === 0) {
            window.byKey.delete(held.keyText);
            this.drop(window, start, held);
          }
        }
      }
      if (due + allowedLateness <= watermark) {
        for (const held of window.byKey.values()) {
          this.state.setKey(held.keyGroup, held.key);
          this.drop(window, start, held);
        }
        window.byKey.clear();
      }
      if (window.byKey.size === 0) this.byStart.delete(start);
      else next = Math.min(next, window.fired ? due + allowedLateness : due);
    }
    this.nextDue = next;
  }

  /**
   * Writes every changed accumulator into keyed state (a checkpoint is about to read it), with
   * the timers that fire what it writes after a restore, and with `release` lets go of all of
   * them. The state stays scoped to the key it was.
   */
  writeBack(release: boolean): void {
    const { currentKeyGroup, currentKey } = this.state;
    const { size, allowedLateness, timers } = this.shape;
    const watermark = this.shape.watermark();
    for (const [start, window] of this.byStart) {
      if (window.byKey.size > 0 && start > this.storedUpTo) this.storedUpTo = start;
      const due = start + size - 1;
      const cleanup = due + allowedLateness;
      for (const held of window.byKey.values()) {
        if (!held.dirty && held.timers) continue;
        this.state.setKey(held.keyGroup, held.key);
        if (held.dirty) this.windows.set(start, held.acc);
        held.dirty = false;
        if (!held.timers) {
          // What has fired already needs only its cleanup.
          if (due > watermark) timers.register('eventTime', due);
          if (cleanup !== due && cleanup <= LAST_TIMER) timers.register('eventTime', cleanup);
          held.timers = true;
        }
        if (!held.stored) {
          held.stored = true;
          this.forgetUnstored(window, held);
        }
      }
    }
    this.state.setKey(currentKeyGroup, currentKey);
    if (release) {
      this.byStart.clear();
      this.held = 0;
      this.nextDue = Number.POSITIVE_INFINITY;
    }
  }

  /**
   * What is held here and not yet in the store, for the state size. Keys: those of the window
   * holding most (one entry per key in a window), since counting keys across windows would cost
   * a look-up per record.
   */
  size(): StateSize {
    let keys = 0;
    for (const window of this.byStart.values()) keys = Math.max(keys, window.unstored);
    return { entries: this.unstored, bytes: this.unstoredBytes, keys };
  }

  /** An entry taken out of its window goes: from the store too when it was there (current key). */
  private drop(window: WindowKeys, start: number, held: Held): void {
    this.held--;
    if (held.stored) this.windows.delete(start);
    else this.forgetUnstored(window, held);
  }

  private forgetUnstored(window: WindowKeys, held: Held): void {
    this.unstored--;
    this.unstoredBytes -= held.bytes;
    held.bytes = 0;
    window.unstored--;
  }
}

/** A code unit where JavaScript's `<` and UTF-8's byte order may disagree (surrogates and above). */
const BEYOND_PLAIN = /[\ud800-\uffff]/;

/**
 * A window's keys in the order their timers would fire: key group, then key as UTF-8 (LevelDB's).
 * Dealt into key groups first, then each group sorted: a window of 10,000 keys over 128 groups
 * takes half the comparisons of one sort over all, and a group of keys `<` orders as UTF-8 does
 * (most keys) compares without a branch per pair.
 */
function inTimerOrder(byKey: Map<string, Held>): Held[] {
  const groups: (Held[] | undefined)[] = [];
  for (const held of byKey.values()) {
    const group = groups[held.keyGroup];
    if (group === undefined) groups[held.keyGroup] = [held];
    else group.push(held);
  }
  const ordered: Held[] = [];
  for (let g = 0; g < groups.length; g++) {
    const group = groups[g];
    if (group === undefined) continue;
    if (group.length > 1) group.sort(group.every(isPlain) ? byPlainKey : byUtf8Key);
    for (const held of group) ordered.push(held);
  }
  return ordered;
}

const isPlain = (held: Held): boolean => held.plain;
const byPlainKey = (x: Held, y: Held): number => (x.keyText < y.keyText ? -1 : x.keyText > y.keyText ? 1 : 0);
const byUtf8Key = (x: Held, y: Held): number => compareUtf8(x.keyText, y.keyText);
