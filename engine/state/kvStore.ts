// The key-value layer under keyed state. An entry is addressed by a space and a key inside it;
// in LevelDB the two are simply concatenated, on the heap a space is a Map of its own. A space
// is a (key group, state) pair for value state, or a container for the elements of one map or
// list, so a container can be read in order, or dropped, without loading it whole.

/** Entries of a space in key order. */
export type SpaceEntries = AsyncIterableIterator<[key: string, value: string]>;

/** One space, resolved once: the hot path of value state costs no look-up of the space. */
export interface KvSpace {
  get(key: string): string | undefined;
  /** `undefined` deletes. Returns the value it replaces. */
  put(key: string, value: string | undefined): string | undefined;
}

export interface KvStore {
  /** A handle on a space that is never dropped (value state and meta entries of one key group). */
  space(space: string): KvSpace;
  get(space: string, key: string): string | undefined;
  /** `undefined` deletes. Returns the value it replaces (state sizes are kept exact with it). */
  put(space: string, key: string, value: string | undefined): string | undefined;
  /** Entries in order of their key; sees every write made before the call. */
  entries(space: string): SpaceEntries;
  /** Forgets a whole space at once (a cleared map or list); it is never written again. */
  dropSpace(space: string): void;
  /**
   * Every entry as [full key, value], as of the call: the promise resolves once that snapshot is
   * taken (on LevelDB, after pending batches are written), and later writes do not show in it.
   */
  snapshotEntries(): Promise<AsyncIterable<[string, string]> | Iterable<[string, string]>>;
  /** Restore: sets or deletes (undefined) an entry by its full key; no size accounting. */
  restoreEntry(key: string, value: string | undefined): void;
  /** Restore: deletes every entry in [gte, lt). */
  restoreDrop(gte: string, lt: string): Promise<void>;
  /** Writes pending changes when enough have gathered; a promise only when the caller must wait. */
  maybeFlush(): Promise<void> | undefined;
  flush(): Promise<void>;
  /**
   * Sees every batch as it goes to disk, in order: a checkpoint's changelog. Only stores that
   * write in batches call it; the others are copied whole.
   */
  onFlush?:
    | ((batch: ReadonlyMap<string, string | null>, dropped: readonly (readonly [string, string])[]) => void)
    | undefined;
  /** Starts writing what is pending now (so onFlush sees it) without waiting for the disk. */
  flushNow?(): void;
  close(): Promise<void>;
}
