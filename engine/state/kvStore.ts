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
  /** Writes pending changes when enough have gathered; a promise only when the caller must wait. */
  maybeFlush(): Promise<void> | undefined;
  flush(): Promise<void>;
  close(): Promise<void>;
}
