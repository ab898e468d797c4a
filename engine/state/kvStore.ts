// The key-value layer under keyed state. Keys and values are strings (encoded by stateKeys.ts);
// map and list elements live in "containers" so that one element is one entry and a container
// can be read in order without loading it whole.

/** A container's elements in key order. */
export type ElementEntries = AsyncIterableIterator<[element: string, value: string]>;

export interface KvStore {
  get(key: string): string | undefined;
  /** `undefined` deletes. Returns the value it replaces (state sizes are kept exact with it). */
  put(key: string, value: string | undefined): string | undefined;
  elementGet(container: string, element: string): string | undefined;
  elementPut(container: string, element: string, value: string | undefined): string | undefined;
  /** Elements in order of their encoded key; sees every write made before the call. */
  elements(container: string): ElementEntries;
  /** Forgets a whole container at once (a cleared map or list). */
  dropContainer(container: string): void;
  /** Writes pending changes when enough have gathered; a promise only when the caller must wait. */
  maybeFlush(): Promise<void> | undefined;
  flush(): Promise<void>;
  close(): Promise<void>;
}
