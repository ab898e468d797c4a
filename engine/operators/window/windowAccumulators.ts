// The accumulators of the windows a tumbling or sliding window operator has open, kept on the
// heap between checkpoints. Flink SQL's window aggregation does the like (its window buffer and
// combiner; Arroyo too): a record updates an accumulator in memory, and keyed state is read once
// when a (key, window) is first touched and written once when a checkpoint comes, not read,
// decoded, encoded and written per record. A window that opens and fires between two checkpoints
// never reaches the store at all. The accumulator is built by `add` record after record exactly
// as it would be through state, so results do not depend on when writes happen (a float sum
// gives the same bits whatever the checkpoints).
//
// A (key, window) is looked up in the store only where the store may hold it: a window later
// than any this operator wrote back (or restored) cannot be there, and that is most of them, since
// windows open as event time goes on. So a new window costs no read, on LevelDB a _getSync.
//
// What must see the store sees it whole: a checkpoint's snapshot (writeBack first), and the
// state size, which counts accumulators held here. Debug runs do not use this: the debugger
// shows and rolls back keyed state after each step.
import type { KeyedState, MapStateApi, StateSize } from '../../state/keyedState.js';
import type { WindowAggregate } from './windowAggregate.js';

/**
 * Held at most; past this the dirty ones are written back and all let go (their keys are read
 * again when next touched). At some 200 bytes each (an accumulator, its entry and map slot),
 * 65,536 hold about 13 MB, well within the 96 MB heaps the tests run under.
 */
export const MAX_HELD = 65_536;

interface Held {
  readonly keyGroup: number;
  readonly key: unknown;
  acc: unknown;
  /** Keyed state holds this (key, window) too: it was read from there or written back. */
  stored: boolean;
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
}

export class WindowAccumulators {
  /** By window start, then key: a record looks up a few windows by number, then its key. */
  private readonly byStart = new Map<number, WindowKeys>();
  private held = 0;
  /** Accumulators not in the store and their estimated bytes. */
  private unstored = 0;
  private unstoredBytes = 0;
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
  ) {}

  /** The latest window start the store may hold, for the checkpoint to keep (see the constructor). */
  get latestStored(): number {
    return this.storedUpTo;
  }

  /** The current key's accumulator of the window at `start`, with `record` added (see `created`). */
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
      window = { byKey: new Map(), unstored: 0 };
      this.byStart.set(start, window);
    }
    const state = this.state;
    const entry: Held = {
      keyGroup: state.currentKeyGroup,
      key: state.currentKey,
      acc,
      stored: !created,
      dirty: true,
      bytes: 0,
    };
    window.byKey.set(keyText, entry);
    this.held++;
    if (created) {
      // Once per (key, window): its state entry's key and value, about as the store counts them.
      entry.bytes = 2 * keyText.length + 40 + (JSON.stringify(acc)?.length ?? 0);
      this.unstored++;
      this.unstoredBytes += entry.bytes;
      window.unstored++;
    }
    this.created = created;
    return acc;
  }

  /**
   * The current key's accumulator of the window at `start`, wherever it is; undefined when it
   * holds nothing. It stays held.
   */
  get(start: number): unknown {
    const held = this.byStart.get(start)?.byKey.get(this.state.currentKeyEncoded());
    if (held !== undefined) return held.acc;
    return start <= this.storedUpTo ? this.windows.get(start) : undefined;
  }

  /** The current key's window at `start` is over: gone from here and from the store. */
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
    this.held--;
    if (held.stored) this.windows.delete(start);
    else this.forgetUnstored(window!, held);
  }

  /**
   * Writes every changed accumulator into keyed state (a checkpoint is about to read it), and
   * with `release` lets go of all of them. The state stays scoped to the key it was.
   */
  writeBack(release: boolean): void {
    const { currentKeyGroup, currentKey } = this.state;
    for (const [start, window] of this.byStart) {
      if (window.byKey.size > 0 && start > this.storedUpTo) this.storedUpTo = start;
      for (const held of window.byKey.values()) {
        if (!held.dirty) continue;
        this.state.setKey(held.keyGroup, held.key);
        this.windows.set(start, held.acc);
        held.dirty = false;
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

  private forgetUnstored(window: WindowKeys, held: Held): void {
    this.unstored--;
    this.unstoredBytes -= held.bytes;
    held.bytes = 0;
    window.unstored--;
  }
}
