// The heap backend: a Map per space. Spaces are read in key order, as LevelDB reads them, so
// both backends give the same results.
import { heapCodec, overwriteHeld } from './heapCodec.js';
import type { KvSpace, KvStore, SpaceEntries, Stored } from './kvStore.js';
import { splitStoreKey } from './stateKeys.js';
import { compareUtf8, inKeyRange, type KeyRange, type StoreBrowser } from './storeBrowser.js';

class MemorySpace implements KvSpace {
  readonly entries = new Map<string, Stored>();
  /** The last entry read: a read-modify-write then costs one look-up, not two. */
  private lastKey: string | undefined;
  private lastValue: Stored | undefined;

  get(key: string): Stored | undefined {
    const value = this.entries.get(key);
    this.lastKey = key;
    this.lastValue = value;
    return value;
  }

  put(key: string, value: Stored | undefined): Stored | undefined {
    const previous = key === this.lastKey ? this.lastValue : this.entries.get(key);
    if (value === undefined) this.entries.delete(key);
    else this.entries.set(key, value);
    this.lastKey = key;
    this.lastValue = value;
    return previous;
  }

  overwrite(key: string, fresh: unknown): number | undefined {
    const held = key === this.lastKey ? this.lastValue : this.entries.get(key);
    return held === undefined ? undefined : overwriteHeld(held, fresh);
  }

  set(key: string, value: Stored | undefined): void {
    if (value === undefined) this.entries.delete(key);
    else this.entries.set(key, value);
    if (key === this.lastKey) this.lastValue = value;
  }
}

export class MemoryKvStore implements KvStore {
  readonly codec = heapCodec;
  readonly onHeap = true;
  private readonly spaces = new Map<string, MemorySpace>();

  space(space: string): MemorySpace {
    let handle = this.spaces.get(space);
    if (handle === undefined) {
      handle = new MemorySpace();
      this.spaces.set(space, handle);
    }
    return handle;
  }

  get(space: string, key: string): Stored | undefined {
    return this.spaces.get(space)?.get(key);
  }

  put(space: string, key: string, value: Stored | undefined): Stored | undefined {
    return this.space(space).put(key, value);
  }

  set(space: string, key: string, value: Stored | undefined): void {
    this.space(space).set(key, value);
  }

  async *entries(space: string, after?: string): SpaceEntries {
    const handle = this.spaces.get(space);
    if (handle === undefined) return;
    // A snapshot, as a LevelDB iterator gives: writes during the scan do not show up in it. In
    // LevelDB's order, too: by UTF-8 bytes, which is not JavaScript's UTF-16 order.
    let snapshot = [...handle.entries];
    if (after !== undefined) snapshot = snapshot.filter(([key]) => compareUtf8(key, after) > 0);
    snapshot.sort(([a], [b]) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    yield* snapshot;
  }

  /** A copy of everything, taken at once: the heap changes as soon as the caller returns. */
  private snapshotAll(): [string, string][] {
    const all: [string, string][] = [];
    for (const [space, handle] of this.spaces) {
      for (const [key, value] of handle.entries) all.push([space + key, this.codec.toJson(value)]);
    }
    return all;
  }

  async snapshotEntries(): Promise<Iterable<[string, string][]>> {
    return [this.snapshotAll()];
  }

  /**
   * The heap has no order: the browser sorts every full key once, when it is made (a page costs
   * a sort of the whole state, which the heap bounds). Values are read when asked for, so they
   * show later writes; keys do not.
   */
  async browse(): Promise<StoreBrowser> {
    const sorted: string[] = [];
    for (const [space, handle] of this.spaces)
      for (const key of handle.entries.keys()) sorted.push(space + key);
    sorted.sort(compareUtf8);
    const first = (range: KeyRange): number => {
      const from = range.gt ?? range.gte;
      if (from === undefined) return 0;
      let low = 0;
      let high = sorted.length;
      while (low < high) {
        const mid = (low + high) >>> 1;
        if (compareUtf8(sorted[mid]!, from) < 0) low = mid + 1;
        else high = mid;
      }
      return low;
    };
    const keys = (range: KeyRange, limit: number): string[] => {
      const found: string[] = [];
      for (let i = first(range); i < sorted.length && found.length < limit; i++) {
        const key = sorted[i]!;
        if (compareUtf8(key, range.lt) >= 0) break;
        if (inKeyRange(key, range)) found.push(key);
      }
      return found;
    };
    const value = (full: string): string | undefined => {
      const [space, key] = splitStoreKey(full);
      const stored = this.spaces.get(space)?.entries.get(key);
      return stored === undefined ? undefined : this.codec.toJson(stored);
    };
    return {
      keys: async (range, limit) => keys(range, limit),
      entries: async (range, limit) =>
        keys(range, limit).flatMap((key): [string, string][] => {
          const json = value(key);
          return json === undefined ? [] : [[key, json]];
        }),
      values: async (list) => list.map(value),
    };
  }

  restoreEntry(full: string, json: string | undefined): void {
    const [space, key] = splitStoreKey(full);
    this.put(space, key, json === undefined ? undefined : this.codec.fromJson(json));
  }

  async restoreDrop(gte: string, lt: string): Promise<void> {
    for (const space of [...this.spaces.keys()]) if (space >= gte && space < lt) this.spaces.delete(space);
  }

  dropSpace(space: string): void {
    this.spaces.delete(space);
  }

  maybeFlush(): undefined {
    return undefined;
  }

  async flush(): Promise<void> {}

  async close(): Promise<void> {
    this.spaces.clear();
  }
}
