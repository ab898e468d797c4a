// The key-value layer under keyed state. An entry is addressed by a space and a key inside it;
// in LevelDB the two are simply concatenated, on the heap a space is a Map of its own. A space
// is a (key group, state) pair for value state, or a container for the elements of one map or
// list, so a container can be read in order, or dropped, without loading it whole. Values are
// in the store's own stored form (its codec's): JSON text in LevelDB, copies on the heap.

import type { MaybePromise } from './maybePromise.js';
import type { StateCodec } from './stateCodecs.js';
import type { StoreBrowser } from './storeBrowser.js';

/** A value in a store's stored form. */
export type Stored = unknown;

/** Entries of a space in key order. */
export type SpaceEntries = AsyncIterableIterator<[key: string, value: Stored]>;

/** Every entry as [full key, JSON text], in chunks: a step of an async iteration per entry costs more than the entry. */
export type SnapshotChunks =
  | AsyncIterable<readonly [string, string][]>
  | Iterable<readonly [string, string][]>;

/** A batch as it goes to LevelDB: its writes (null deletes), then its dropped ranges [gte, lt). */
export interface FlushedBatch {
  /** Writes by full key. */
  readonly batch: ReadonlyMap<string, string | null>;
  /**
   * Then the writes to spaces with a handle, by space and by key within it: copying them into
   * `batch` under a new full key each was a twelfth of a timer-heavy run's allocation.
   */
  readonly spaced?: ReadonlyMap<string, ReadonlyMap<string, string | null>>;
  readonly dropped: readonly (readonly [string, string])[];
}

/** Calls `write` with each write of a batch by its full key, in the order LevelDB applies them (drops aside). */
export function forEachWrite(
  flushed: FlushedBatch,
  write: (key: string, value: string | null) => void,
): void {
  flushed.batch.forEach((value, key) => {
    write(key, value);
  });
  flushed.spaced?.forEach((writes, space) => {
    writes.forEach((value, key) => {
      write(space + key, value);
    });
  });
}

/**
 * A whole-state snapshot taken without waiting for the disk: the entries of a store snapshot taken
 * at the call, then the batches that were still being written, to be applied after them in order.
 * A batch the snapshot already holds is applied twice, to the same result.
 */
export interface ImmediateSnapshot {
  readonly entries: SnapshotChunks;
  readonly pending: readonly FlushedBatch[];
}

/** What `putUnread` returns when it tells what the write replaced later. */
export const UNREAD: unique symbol = Symbol('unread');

/** One space, resolved once: the hot path of value state costs no look-up of the space. */
export interface KvSpace {
  get(key: string): Stored | undefined;
  /** `undefined` deletes. Returns the value it replaces. */
  put(key: string, value: Stored | undefined): Stored | undefined;
  /**
   * Writes a value, as its codec's encodeTransient gave it, over the entry at `key` in place,
   * where the store can (the heap): the change in its length, or undefined with nothing changed
   * (no entry, or a value of another shape: put it then, kept). Stores that need the old value
   * (the debugger's journal) leave it out.
   */
  overwrite?(key: string, fresh: unknown): number | undefined;
}

export interface KvStore {
  readonly codec: StateCodec;
  /** A handle on a space that is never dropped (value state and meta entries of one key group). */
  space(space: string): KvSpace;
  get(space: string, key: string): Stored | undefined;
  /** `undefined` deletes. Returns the value it replaces (state sizes are kept exact with it). */
  put(space: string, key: string, value: Stored | undefined): Stored | undefined;
  /**
   * As put, for a caller who knows what it replaces (timers, from their cache): on LevelDB that
   * saves a read. Stores that need the old value (the debugger's journal) leave it out.
   * `absent`: the store holds no entry at the key now, so one written and deleted before the
   * store writes it out need never be written (a timer that fires soon after it is set).
   * `full`: space + key, when the caller keeps that string (a timer's, hashed once).
   */
  set?(space: string, key: string, value: Stored | undefined, absent?: boolean, full?: string): void;
  /**
   * As put, where what the write replaces may be told later: when the store does not hold it on
   * the heap it returns UNREAD and calls `replaced` with it before the write goes to disk, read
   * with the rest of its batch on another thread (a read per new map element was a sixth of a
   * large state's time), or at the latest on `settle`. Stores that need the old value at once
   * (the debugger's journal) leave it out.
   */
  putUnread?(
    space: string,
    key: string,
    value: Stored,
    replaced: (old: Stored | undefined) => void,
  ): Stored | undefined | typeof UNREAD;
  /** Calls every `replaced` still due, now: before a state size is shown or a batch is cut for a checkpoint. */
  settle?(): void;
  /** Entries live on the heap: caching them there again costs nothing to speak of (timers). */
  readonly onHeap?: boolean;
  /**
   * Entries in order of their key; sees every write made before the call. `after`: only the keys
   * after it (a reader that knows nothing lies before it, so LevelDB need not step over the
   * deleted entries there). `expected`: how many entries the reader means to take, so that LevelDB
   * reads them in one step (a timer cache's refill).
   */
  entries(space: string, after?: string, expected?: number): SpaceEntries;
  /** At most `limit` keys of `space` after `after`, in order, as full keys (a timer cache's refill). */
  keysAfter?(space: string, after: string | undefined, limit: number): Promise<string[]>;
  /** Forgets a whole space at once (a cleared map or list); it is never written again. */
  dropSpace(space: string): void;
  /**
   * Every entry as [full key, JSON text], as of the call: the promise resolves once that snapshot is
   * taken (on LevelDB, after pending batches are written), and later writes do not show in it.
   */
  snapshotEntries(): Promise<SnapshotChunks>;
  /**
   * What a checkpoint's base copies, taken at once (see ImmediateSnapshot): stores that write in
   * batches have it, so that the records do not wait at the barrier for the batches in flight.
   */
  snapshotNow?(): ImmediateSnapshot;
  /** Restore: sets (from JSON text) or deletes (undefined) an entry by its full key; no size accounting. */
  restoreEntry(key: string, json: string | undefined): void;
  /** Restore: deletes every entry in [gte, lt). */
  restoreDrop(gte: string, lt: string): Promise<void>;
  /** Writes pending changes when enough have gathered; a promise only when the caller must wait. */
  maybeFlush(): MaybePromise;
  flush(): Promise<void>;
  /**
   * Sees every batch as it goes to disk, in order: a checkpoint's changelog. Only stores that
   * write in batches call it; the others are copied whole. A promise returned is waited for
   * (never failing) like the batch's own write, so the changelog shares the state's backpressure.
   */
  onFlush?: ((flushed: FlushedBatch) => MaybePromise<unknown>) | undefined;
  /** Starts writing what is pending now (so onFlush sees it) without waiting for the disk. */
  flushNow?(): void;
  /** A read-only view of the raw entries for the state browser; sees every write made before the call. */
  browse(): Promise<StoreBrowser>;
  close(): Promise<void>;
}
