// The read cache of a LevelDB store (levelKvStore.ts): the latest value of every key it holds,
// pending or not, in two generations. When the young one fills half the budget it becomes the
// old one and the previous old one is dropped, so recently used entries survive at the cost of
// one Map look-up more. A space with a handle (a key group's value state, or the meta entries
// of its maps or lists) has Maps of its own, by the key inside the space: the full key (space +
// key) is a new string on every access, which V8 must flatten and hash for each look-up, while
// the key inside the space is the record's own string, hashed once. Looking entries up by it was
// a fifth of a keyed job's time (levelKvStore.read in its profile).

/** Estimated heap bytes of a cached entry beyond its key and value characters. */
const CACHE_ENTRY_OVERHEAD = 100;

/** What the store holds on the heap for one space with a handle: cached entries and pending writes. */
export class SpaceCache {
  young = new Map<string, string | null>();
  old = new Map<string, string | null>();
  /** The writes of the batch being gathered, null deleting. */
  dirty = new Map<string, string | null>();

  constructor(readonly space: string) {}

  age(): void {
    if (this.young.size === 0 && this.old.size === 0) return;
    this.old = this.young;
    this.young = new Map();
  }

  /** Forgets what is cached (not what is pending). */
  forget(key?: string): void {
    if (key === undefined) {
      this.young = new Map();
      this.old = new Map();
    } else {
      this.young.delete(key);
      this.old.delete(key);
    }
  }
}

export class ReadCache {
  /** Entries of the spaces without a handle, by full key. */
  young = new Map<string, string | null>();
  old = new Map<string, string | null>();
  private youngChars = 0;
  /** The spaces with a handle. */
  readonly spaces = new Map<string, SpaceCache>();

  /** @param budget in chars of keys and values, both generations together. */
  constructor(private readonly budget: number) {}

  /** Caches a key's latest value. */
  remember(key: string, value: string | null): void {
    const young = this.young;
    const before = young.get(key);
    young.set(key, value);
    // A key cached again (a write after its read) counts the change of its value's length only:
    // a miss cached as null and then written 1,000 chars must count them (a large state's store
    // outgrew a 96 MB heap when it did not).
    this.youngChars +=
      before === undefined
        ? key.length + (value?.length ?? 0) + CACHE_ENTRY_OVERHEAD
        : (value?.length ?? 0) - (before?.length ?? 0);
    if (this.youngChars >= this.budget / 2) this.age();
  }

  /** As remember, in a space with a handle: its entries count their full keys, as the others do. */
  rememberIn(cache: SpaceCache, key: string, value: string | null): void {
    const young = cache.young;
    const before = young.get(key);
    young.set(key, value);
    this.youngChars +=
      before === undefined
        ? cache.space.length + key.length + (value?.length ?? 0) + CACHE_ENTRY_OVERHEAD
        : (value?.length ?? 0) - (before?.length ?? 0);
    if (this.youngChars >= this.budget / 2) this.age();
  }

  /** The next generation, in every space at once. */
  private age(): void {
    this.old = this.young;
    this.young = new Map();
    this.youngChars = 0;
    for (const cache of this.spaces.values()) cache.age();
  }

  /** Forgets a key without a handle's space. */
  forget(key: string): void {
    this.young.delete(key);
    this.old.delete(key);
  }

  clear(): void {
    this.young = new Map();
    this.old = new Map();
    this.youngChars = 0;
    for (const cache of this.spaces.values()) cache.forget();
  }

  /** The chars of the keys and values held, both generations (tests check the budget). */
  cachedChars(): number {
    let chars = 0;
    for (const generation of [this.young, this.old])
      for (const [key, value] of generation) chars += key.length + (value?.length ?? 0);
    for (const cache of this.spaces.values())
      for (const generation of [cache.young, cache.old])
        for (const [key, value] of generation)
          chars += cache.space.length + key.length + (value?.length ?? 0);
    return chars;
  }
}
