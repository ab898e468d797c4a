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
// Held by key, then window (heldKey.ts): a record's windows are found through its key, side by
// side in one object, where a Map of keys per window and an object per (key, window) cost a cache
// miss per window. The sliding job (60 s every 20 s) took 2.28-2.39 CPU-s on its run thread that
// way, 1.98-2.08 by key; the tumbling one 1.44-1.52 and 1.39-1.50.
//
// What must see the store sees it whole: a checkpoint's snapshot (writeBack first, which also
// registers the timers of what it writes, so that a restore fires it), and the state size, which
// counts accumulators held here. Debug runs do not use this: the debugger shows and rolls back
// keyed state after each step, and steps through timers one by one.
import type { TimerService } from '../../runtime/timers.js';
import type { KeyedState, MapStateApi, StateSize } from '../../state/keyedState.js';
import { compareUtf8 } from '../../state/storeBrowser.js';
import { DIRTY, HeldKey, type Slot, STORED, TIMERS } from './heldKey.js';
import type { WindowAggregate } from './windowAggregate.js';

/**
 * Held at most; past this the dirty ones are written back and all let go (their keys are read
 * again when next touched, and their timers fire them). At most some 200 bytes each (a key's
 * object, its map slot and accumulator, for a key with one window), 65,536 hold about 13 MB, and
 * the keys kept without a window (sweepKeys) as much again: within the 96 MB heaps tests run under.
 */
export const MAX_HELD = 65_536;

/** Timers are whole ms within ±2^52 (state/timerStore.ts); a cleanup beyond that never comes. */
export const LAST_TIMER = 2 ** 52 - 1;

/** One window's keys held here. */
interface WindowKeys {
  /** Each once, in the order they came; a key leaves when its (key, window) goes. */
  keys: HeldKey[];
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
  /** By key as keyed state encodes it: each key's windows. */
  private readonly byKey = new Map<string, HeldKey>();
  /** The first window start seen, from which HeldKey counts its windows' places. */
  private firstStart: number | undefined;
  /** By window start: the keys to fire when event time reaches its end. */
  private readonly byStart = new Map<number, WindowKeys>();
  /** (key, window) pairs held, and the most since keys were last swept (sweepKeys). */
  private held = 0;
  private peakHeld = 0;
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

  /** A window's place in a HeldKey: its start less the first start seen here (heldKey.ts). */
  private placeOf(start: number): number {
    this.firstStart ??= start;
    return start - this.firstStart;
  }

  /** Keys known here, with or without a window held (sweepKeys lets the latter go). */
  get keysKnown(): number {
    return this.byKey.size;
  }

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
    const place = this.placeOf(start);
    let key = this.byKey.get(keyText);
    if (key !== undefined) {
      const at = key.slotOf(place);
      if (at >= 0) {
        const acc = this.aggregate.add(key.acc(at), record);
        key.setAcc(at, acc);
        key.setFlags(at, key.flags(at) | DIRTY);
        this.created = false;
        return acc;
      }
    }
    const fromStore = start <= this.storedUpTo ? this.windows.get(start) : undefined;
    const created = fromStore === undefined;
    // Added before anything is kept: a record the aggregate refuses leaves nothing behind.
    const acc = this.aggregate.add(created ? this.aggregate.createAccumulator() : fromStore, record);
    if (this.held >= MAX_HELD) {
      this.writeBack(true);
      key = undefined;
    }
    let window = this.byStart.get(start);
    if (window === undefined) {
      const due = start + this.shape.size - 1;
      const fired = due <= this.shape.watermark();
      window = { keys: [], unstored: 0, fired };
      this.byStart.set(start, window);
      this.nextDue = Math.min(this.nextDue, fired ? due + this.shape.allowedLateness : due);
    }
    // From the store it has its timers (registered when it was written).
    let bytes = 0;
    if (created) {
      // Once per (key, window): its state entry's key and value, about as the store counts them
      // (a number's JSON is not made: most accumulators are counts and sums).
      bytes = 2 * keyText.length + 40 + (typeof acc === 'number' ? 8 : (JSON.stringify(acc)?.length ?? 0));
      this.unstored++;
      this.unstoredBytes += bytes;
      window.unstored++;
    }
    const flags = created ? DIRTY : STORED | TIMERS | DIRTY;
    if (key === undefined) {
      const state = this.state;
      const plain = !BEYOND_PLAIN.test(keyText);
      key = new HeldKey(state.currentKeyGroup, state.currentKey, keyText, plain);
      this.byKey.set(keyText, key);
    }
    key.add(place, acc, flags, bytes);
    window.keys.push(key);
    if (++this.held > this.peakHeld) this.peakHeld = this.held;
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
    const key = this.byKey.get(this.state.currentKeyEncoded());
    if (key !== undefined && key.slotOf(this.placeOf(start)) >= 0) return undefined;
    return start <= this.storedUpTo ? this.windows.get(start) : undefined;
  }

  /** The current key's window at `start` is over (its timer said so): gone from here and the store. */
  delete(start: number): void {
    const key = this.byKey.get(this.state.currentKeyEncoded());
    const at = key === undefined ? -1 : key.slotOf(this.placeOf(start));
    if (at < 0) {
      if (start <= this.storedUpTo) this.windows.delete(start);
      return;
    }
    const window = this.byStart.get(start)!;
    // Rare (advance() lets windows go before their timers come), so the search costs nothing.
    window.keys.splice(window.keys.indexOf(key!), 1);
    if (window.keys.length === 0) this.byStart.delete(start);
    this.drop(window, start, key!, at);
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
      const place = this.placeOf(start);
      const due = start + size - 1;
      if (!window.fired && due <= watermark) {
        window.fired = true;
        for (const key of inTimerOrder(window.keys)) {
          const at = key.slotOf(place);
          this.state.setKey(key.keyGroup, key.key);
          this.shape.fire(start, start + size, key.acc(at));
          // Without lateness the window goes with its firing.
          if (allowedLateness === 0) this.drop(window, start, key, at);
        }
        if (allowedLateness === 0) window.keys = [];
      }
      if (due + allowedLateness <= watermark) {
        for (const key of window.keys) {
          this.state.setKey(key.keyGroup, key.key);
          this.drop(window, start, key, key.slotOf(place));
        }
        window.keys = [];
      }
      if (window.keys.length === 0) this.byStart.delete(start);
      else next = Math.min(next, window.fired ? due + allowedLateness : due);
    }
    this.nextDue = next;
    this.sweepKeys();
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
      if (window.keys.length > 0 && start > this.storedUpTo) this.storedUpTo = start;
      const place = this.placeOf(start);
      const due = start + size - 1;
      const cleanup = due + allowedLateness;
      for (const key of window.keys) {
        const at = key.slotOf(place);
        let flags = key.flags(at);
        if ((flags & (DIRTY | TIMERS)) === TIMERS) continue;
        this.state.setKey(key.keyGroup, key.key);
        if (flags & DIRTY) this.windows.set(start, key.acc(at));
        flags &= ~DIRTY;
        if (!(flags & TIMERS)) {
          // What has fired already needs only its cleanup.
          if (due > watermark) timers.register('eventTime', due);
          if (cleanup !== due && cleanup <= LAST_TIMER) timers.register('eventTime', cleanup);
          flags |= TIMERS;
        }
        if (!(flags & STORED)) {
          flags |= STORED;
          this.forgetUnstored(window, key, at);
        }
        key.setFlags(at, flags);
      }
    }
    this.state.setKey(currentKeyGroup, currentKey);
    if (release) {
      this.byStart.clear();
      this.byKey.clear();
      this.held = 0;
      this.peakHeld = 0;
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

  /**
   * The (key, window) at `at` of `key` goes (its window lets go of the key): from the store too
   * when it was there (current key). The key stays, without it, until sweepKeys.
   */
  private drop(window: WindowKeys, start: number, key: HeldKey, at: Slot): void {
    this.held--;
    if (key.flags(at) & STORED) this.windows.delete(start);
    else this.forgetUnstored(window, key, at);
    key.remove(at);
  }

  /**
   * Keys without a window go once there are 1,024 more keys than (key, window) pairs were held at
   * most since the last sweep: a key mostly comes back with its next window (tumbling windows
   * fire all their keys at once, and the next window opens them again), and keeping it saves
   * making it again; keys that stopped coming are let go within a few windows.
   */
  private sweepKeys(): void {
    if (this.byKey.size <= this.peakHeld + 1024) return;
    for (const [keyText, key] of this.byKey) if (key.windows === 0) this.byKey.delete(keyText);
    this.peakHeld = this.held;
  }

  private forgetUnstored(window: WindowKeys, key: HeldKey, at: Slot): void {
    this.unstored--;
    this.unstoredBytes -= key.bytes(at);
    key.setBytes(at, 0);
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
function inTimerOrder(keys: readonly HeldKey[]): HeldKey[] {
  const groups: (HeldKey[] | undefined)[] = [];
  for (const held of keys) {
    const group = groups[held.keyGroup];
    if (group === undefined) groups[held.keyGroup] = [held];
    else group.push(held);
  }
  const ordered: HeldKey[] = [];
  for (let g = 0; g < groups.length; g++) {
    const group = groups[g];
    if (group === undefined) continue;
    if (group.length > 1) group.sort(group.every(isPlain) ? byPlainKey : byUtf8Key);
    for (const held of group) ordered.push(held);
  }
  return ordered;
}

const isPlain = (held: HeldKey): boolean => held.plain;
const byPlainKey = (x: HeldKey, y: HeldKey): number =>
  x.keyText < y.keyText ? -1 : x.keyText > y.keyText ? 1 : 0;
const byUtf8Key = (x: HeldKey, y: HeldKey): number => compareUtf8(x.keyText, y.keyText);
