// What a LevelDB store holds on the heap for one space that has a handle (a key group's value
// state, or the meta entries of its maps or lists): the cached entries and the pending writes,
// by the key inside the space. The full key (space + key) is a new string on every access, which
// V8 must flatten and hash for each Map look-up; the key inside the space is the record's own
// string, hashed once. Looking up the space's maps by it instead was a fifth of a keyed job's
// time (levelKvStore.read in its profile).

export class SpaceCache {
  /** The read cache's two generations (see LevelKvStore): the latest value of every key held. */
  young = new Map<string, string | null>();
  old = new Map<string, string | null>();
  /** The writes of the batch being gathered, null deleting. */
  dirty = new Map<string, string | null>();

  constructor(readonly space: string) {}

  /** The read cache's next generation: the young one becomes the old one, the old one is dropped. */
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
