// LevelDB under a write-back cache. Reads are synchronous (`getSync`): a promise per record
// costs ~25x. Writes are held pending (levelPendingWrites.ts) and go to LevelDB as one batch;
// while that batch is in flight it stays readable in `batches` (levelWriteBatches.ts), because
// LevelDB does not see it until it completes.
// The read cache holds what was read and what was written (not timers, which their own cache
// keeps), so a read of a recent entry is one look-up, before the pending batches. Each batch
// knows the greatest key it writes in each timer space: a key group's timer refill, read after
// the last timer it fired, takes LevelDB's iterator at once when no pending batch writes in
// its range, instead of waiting for the batches to be written. A space with a handle (value
// state, meta entries) keeps its cached and pending entries apart, by the key inside the space
// (levelReadCache.ts): the full key is built only for LevelDB.
import { ClassicLevel } from 'classic-level';
import { cannotWrite } from './fileFault.js';
import {
  type ImmediateSnapshot,
  type KvSpace,
  type KvStore,
  type SpaceEntries,
  type Stored,
  UNREAD,
} from './kvStore.js';
import { PendingWrites } from './levelPendingWrites.js';
import { ReadCache, SpaceCache } from './levelReadCache.js';
import { allEntries, browseDb, SCAN_CHUNK, spaceEnd, spaceEntries, spaceKeys } from './levelReads.js';
import { WriteBatches } from './levelWriteBatches.js';
import type { MaybePromise } from './maybePromise.js';
import { jsonTextCodec } from './stateCodecs.js';
import { isTimerEntry, splitStoreKey } from './stateKeys.js';
import { trackStateRead } from './stateReads.js';
import type { StoreBrowser } from './storeBrowser.js';
import { UnreadWrites } from './unreadWrites.js';

/** LevelDB's memtable, off the heap: half as many level-0 files to compact as its 4 MB default. */
const WRITE_BUFFER_BYTES = 8 * 1024 * 1024;
export class LevelKvStore implements KvStore {
  readonly codec = jsonTextCodec;
  /** Writes not yet in a batch (levelPendingWrites.ts). */
  private readonly pending = new PendingWrites();
  /** Batches written to LevelDB but maybe not yet visible there. */
  private readonly batches: WriteBatches;
  onFlush: KvStore['onFlush'];
  /**
   * The read cache (levelReadCache.ts): the latest value of every key it holds, pending or not,
   * so it is read first. Timers are never in it (their own cache keeps them, and `set`, theirs,
   * does not update it).
   */
  private readonly cache: ReadCache;
  /** One handle per space, so that what a handle knows of its entries no other handle changes. */
  private readonly handles = new Map<string, KvSpace>();
  /** The entries of each space with a handle (not timers'), which every way of reading or writing uses. */
  private readonly spaceCaches: Map<string, SpaceCache>;
  /** Writes that did not go through a handle: each makes what the handles know stale. */
  private otherWrites = 0;
  /** The last key read: a read-modify-write then costs one look-up, not two. */
  private lastKey: string | undefined;
  private lastValue: string | null = null;
  /** Writes whose replaced value is told later (putUnread). */
  private readonly unread: UnreadWrites;

  /** @param cacheBytes budget of the read cache (see ReadCache). */
  private constructor(
    private readonly db: ClassicLevel<string, string>,
    cacheBytes: number,
    /** The database's folder, which a failure names. */
    location: string,
  ) {
    this.cache = new ReadCache(cacheBytes);
    this.spaceCaches = this.cache.spaces;
    this.unread = new UnreadWrites(db);
    this.batches = new WriteBatches(db, this.unread, location);
  }

  static async open(location: string, cacheBytes: number): Promise<LevelKvStore> {
    const db = new ClassicLevel<string, string>(location, {
      keyEncoding: 'utf8',
      valueEncoding: 'utf8',
      createIfMissing: true,
      writeBufferSize: WRITE_BUFFER_BYTES,
    });
    try {
      await db.open();
    } catch (error) {
      throw cannotWrite('state', location, error);
    }
    return new LevelKvStore(db, cacheBytes, location);
  }

  space(space: string): KvSpace {
    let handle = this.handles.get(space);
    if (handle !== undefined) return handle;
    // Timers keep their own cache: a handle on theirs (none is taken now) reads by full key.
    const cache = isTimerEntry(space) ? undefined : new SpaceCache(space);
    if (cache !== undefined) this.spaceCaches.set(space, cache);
    // The entry last read or written through this handle, while no write came another way: a
    // user function reads a value and writes it back, under the same key text (one string).
    let known: string | undefined;
    let knownValue: string | null = null;
    let knownAt = -1;
    handle = {
      get: (key) => {
        if (knownAt === this.otherWrites && key === known) return knownValue ?? undefined;
        const value = cache === undefined ? this.read(space + key) : this.readIn(cache, key);
        known = key;
        knownValue = value ?? null;
        knownAt = this.otherWrites;
        return value;
      },
      put: (key, value) => {
        const next = (value as string | undefined) ?? null;
        let previous: string | null;
        if (cache === undefined) {
          this.pending.written.note(space, key);
          const full = space + key;
          previous = knownAt === this.otherWrites && key === known ? knownValue : (this.read(full) ?? null);
          this.store(full, next);
        } else {
          this.pending.written.others = true;
          previous =
            knownAt === this.otherWrites && key === known ? knownValue : (this.readIn(cache, key) ?? null);
          this.storeIn(cache, key, next);
        }
        known = key;
        knownValue = next;
        knownAt = this.otherWrites;
        return previous ?? undefined;
      },
    };
    this.handles.set(space, handle);
    return handle;
  }

  get(space: string, key: string): string | undefined {
    const cache = this.spaceCaches.get(space);
    return cache === undefined ? this.read(space + key) : this.readIn(cache, key);
  }

  /** A read in a space with a handle: its own maps first, by the key inside the space. */
  private readIn(cache: SpaceCache, key: string): string | undefined {
    let value = cache.young.get(key);
    if (value === undefined) {
      value = cache.old.get(key);
      if (value === undefined) {
        value = cache.dirty.get(key);
        if (value === undefined) {
          // Written by full key before the space had a handle, in a batch in flight, or in LevelDB.
          const full = cache.space + key;
          value = this.pending.get(full);
          if (value === undefined) value = this.batches.getIn(cache.space, key, full);
          if (value === undefined) value = this.db.getSync(full) ?? null;
        }
      }
      this.cache.rememberIn(cache, key, value);
    }
    return value === null ? undefined : value;
  }

  private read(key: string): string | undefined {
    // The key is a new string each time, so compare contents: still cheaper than a look-up.
    if (key === this.lastKey) return this.lastValue ?? undefined;
    let value = this.cache.young.get(key);
    if (value === undefined) {
      value = this.cache.old.get(key);
      if (value === undefined) {
        value = this.pending.get(key);
        if (value === undefined) value = this.batches.get(key);
        if (value === undefined) value = this.db.getSync(key) ?? null;
      }
      if (!isTimerEntry(key)) this.cache.remember(key, value);
    }
    this.lastKey = key;
    this.lastValue = value;
    return value === null ? undefined : value;
  }

  put(space: string, key: string, value: Stored | undefined): string | undefined {
    this.otherWrites++;
    this.pending.written.note(space, key);
    const cache = this.spaceCaches.get(space);
    if (cache === undefined) return this.write(space + key, value as string | undefined);
    const previous = this.readIn(cache, key);
    this.storeIn(cache, key, (value as string | undefined) ?? null);
    return previous;
  }

  /** The chars of the keys and values the read cache holds, both generations (tests check its budget). */
  cachedChars(): number {
    return this.cache.cachedChars();
  }

  private write(key: string, value: string | undefined): string | undefined {
    const previous = this.read(key) ?? null;
    this.store(key, value ?? null);
    return previous === null ? undefined : previous;
  }

  /** A write whose previous value is known. */
  private store(key: string, next: string | null): void {
    this.pending.pend(key, next);
    if (!isTimerEntry(key)) this.cache.remember(key, next);
    this.lastKey = key;
    this.lastValue = next;
  }

  putUnread(
    space: string,
    key: string,
    value: Stored,
    replaced: (old: string | undefined) => void,
  ): string | undefined | typeof UNREAD {
    if (this.spaceCaches.has(space)) return this.put(space, key, value);
    this.otherWrites++;
    this.pending.written.note(space, key);
    const full = space + key;
    // What the heap knows, it tells at once; LevelDB is read later.
    let previous = full === this.lastKey ? this.lastValue : this.cache.young.get(full);
    if (previous === undefined) previous = this.cache.old.get(full);
    if (previous === undefined) previous = this.pending.get(full);
    if (previous === undefined) previous = this.batches.get(full);
    if (previous !== undefined) {
      this.store(full, value as string);
      return previous ?? undefined;
    }
    // Not cached (it is not now): an element nobody has read is seldom read soon, and a large
    // state's 1,000-char elements kept there cost GC (3% of its CPU, 40 MB of its RSS).
    this.pending.pend(full, value as string);
    this.unread.add(full, replaced);
    return UNREAD;
  }

  settle(): void {
    this.unread.settle();
  }

  /** A write whose previous value is known, in a space with a handle. */
  private storeIn(cache: SpaceCache, key: string, next: string | null): void {
    this.pending.pendIn(cache, key, next);
    this.cache.rememberIn(cache, key, next);
  }

  set(space: string, key: string, value: Stored | undefined, absent = false, fullKey?: string): void {
    const next = value === undefined ? null : (value as string);
    this.otherWrites++;
    // A full key's tag is its space's: one test serves the whole write.
    const timer = isTimerEntry(space);
    if (!timer) {
      const cache = this.spaceCaches.get(space);
      if (cache !== undefined) {
        this.pending.written.others = true;
        this.storeIn(cache, key, next);
        return;
      }
    }
    const full = fullKey ?? space + key;
    // Cheaper than comparing the key with the last one read, which is seldom a timer's.
    this.lastKey = undefined;
    // Any other caller's entry may be cached: keep the cache the latest. A deleted one is forgotten
    // instead (a cleared list's: never read again), as the pending deletion or LevelDB tells it.
    if (!timer) {
      if (next === null) this.cache.forget(full);
      else this.cache.remember(full, next);
    }
    const added = this.pending.pendKnown(full, next, absent);
    if (added === undefined) return;
    if (timer) this.pending.timerPending(space, key, added);
    else this.pending.written.others = true;
  }

  async *entries(space: string, after?: string, expected = SCAN_CHUNK): SpaceEntries {
    // Every write in the range must be in LevelDB before an iterator (a snapshot) is taken.
    if (this.pendingIn(space, after)) await trackStateRead(this.flush());
    yield* spaceEntries(this.db, space, after, expected);
  }

  async keysAfter(space: string, after: string | undefined, limit: number): Promise<string[]> {
    if (this.pendingIn(space, after)) await trackStateRead(this.flush());
    return spaceKeys(this.db, space, after, limit);
  }

  /** Whether a pending batch writes a key of `space` after `after`, or drops part of the space. */
  private pendingIn(space: string, after: string | undefined): boolean {
    return this.pending.touches(space, after) || this.batches.touches(space, after);
  }

  dropSpace(space: string): void {
    this.otherWrites++;
    this.pending.drop(space, spaceEnd(space));
  }

  maybeFlush(): MaybePromise {
    const due = this.pending.due();
    if (due === undefined) return undefined;
    // At most two batches in flight: waiting for the older one is the state's backpressure.
    const previous = this.flushing;
    this.startFlush(due === 'byKey');
    return previous;
  }

  flushNow(): void {
    // A batch cut for a checkpoint holds exact state sizes: what its writes replaced is known.
    this.settle();
    if (this.pending.any()) this.startFlush();
  }

  async flush(): Promise<void> {
    this.flushNow();
    while (this.flushing !== undefined) await this.flushing;
  }

  /** The last batch write started, until it is written: a failure rejects it. */
  private get flushing(): MaybePromise {
    return this.batches.flushing;
  }

  /** Sends the pending writes to LevelDB as a batch: all, or with `byKey` those by full key (PendingWrites.cut). */
  private startFlush(byKey = false): void {
    const { batch, spaced, dropped, written } = this.pending.cut(byKey);
    const logged = this.onFlush?.({ batch, spaced, dropped });
    this.batches.write({ batch, spaced, dropped, written, unread: this.unread.cut(), logged });
  }

  async snapshotEntries(): Promise<AsyncIterable<[string, string][]>> {
    await this.flush();
    return allEntries(this.db);
  }

  snapshotNow(): ImmediateSnapshot {
    this.flushNow();
    return { entries: allEntries(this.db), pending: this.batches.pending() };
  }

  async browse(): Promise<StoreBrowser> {
    await this.flush();
    return browseDb(this.db);
  }

  restoreEntry(key: string, value: string | undefined): void {
    this.otherWrites++;
    this.pending.written.unsplit = true;
    if (this.spaceCaches.size > 0 && !isTimerEntry(key)) {
      const [space, inSpace] = splitStoreKey(key);
      const cache = this.spaceCaches.get(space);
      if (cache !== undefined) {
        cache.forget(inSpace);
        this.pending.pendIn(cache, inSpace, value ?? null);
        return;
      }
    }
    this.cache.forget(key);
    if (key === this.lastKey) this.lastKey = undefined;
    this.pending.pend(key, value ?? null);
  }

  async restoreDrop(gte: string, lt: string): Promise<void> {
    await this.flush();
    await this.db.clear({ gte, lt });
    this.otherWrites++;
    this.cache.clear();
    this.lastKey = undefined;
  }

  async close(): Promise<void> {
    await this.flush();
    await this.db.close();
  }
}
