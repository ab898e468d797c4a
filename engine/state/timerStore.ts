// Timers as keyed state: one store entry per timer, in a space per key group and time domain,
// its key the timer's time (14 hex digits, so entries sort by time) followed by the timer's key.
// So a million timers cost no heap (on LevelDB), go into checkpoints with the key group's other
// state and move with it on rescale.
//
// In front of the store, as Flink's RocksDBCachingPriorityQueueSet: each key group keeps its
// earliest timers on the heap (at most CACHED_PER_GROUP of them on LevelDB; all of them on a heap
// store, whose entries are on the heap anyway), in the store's order, and knows whether those are
// all the group has. Every timer is written through to the store, but a timer at or before the
// last cached one is known there or not without a read: a duplicate (key, time) is dropped, a new
// one written without reading what it replaces, and firing takes the cached head without reading.
// Only a group whose cache ran dry while the store holds more reads the store again (the next
// CACHED_PER_GROUP, twice as many each time it runs dry again, up to MAX_CACHED_PER_GROUP while
// all groups' caches stay within CACHED_TIMERS: each read is a round trip to LevelDB's threads,
// and a group that holds thousands of timers is read a thousand times otherwise). Per key group and domain a bound below which it has no timer (its head when
// cached) makes a watermark that passes no timer cost no read and no scan of the groups.
import type { KvStore } from './kvStore.js';
import { decodeKey } from './stateKeys.js';
import { type CachedTimer, cachedTimer, compare, GroupTimers } from './timerGroup.js';
import { parseTimerEntry, type TimerDomain, timerDomainOf, timerEntryKey, timerSpace } from './timerKeys.js';
import { TimerList } from './timerList.js';

/** A key group's timers held on the heap of a store that keeps its entries on disk, at first. */
const CACHED_PER_GROUP = 128;
/** At most, for a group whose cache keeps running dry. */
const MAX_CACHED_PER_GROUP = 4096;
/** All groups' caches together at most (about 150 bytes of heap each: 10 MB). */
const CACHED_TIMERS = 65_536;
/** A group's cache is read ahead when it is down to 1/2^this of its limit. */
const READ_AHEAD_SHIFT = 2;

/** A timer read back from the store. */
export interface StoredTimer {
  readonly keyGroup: number;
  readonly timestamp: number;
  readonly key: unknown;
  /** Its entry's key within its space. */
  readonly entry: string;
}

/** Where a timer store stands between two steps of a debug run. */
export interface TimerProgress {
  readonly count: number;
  readonly event: Float64Array;
  readonly processing: Float64Array;
  /** Each key group's cache then (the cached timers are never changed, only replaced). */
  readonly caches: Record<TimerDomain, readonly (GroupProgress | undefined)[]>;
}

interface GroupProgress {
  readonly items: readonly CachedTimer[];
  readonly limit: number;
  readonly complete: boolean;
  readonly after: CachedTimer | undefined;
}

export class TimerStore {
  /** Timers held, every key group and domain. */
  count = 0;
  private groups: Record<TimerDomain, (GroupTimers | undefined)[]> = {
    eventTime: [],
    processingTime: [],
  };
  /**
   * Per key group and domain, a time before which it has no timer: its first cached timer's, or
   * +Infinity when it has none, or (its cache ran dry, the store holds more) a bound below them.
   */
  private readonly bounds: Record<TimerDomain, Float64Array>;
  /**
   * The least bound per domain, kept as bounds change (NaN: to be found again): a watermark
   * after every record asks for it, and 128 key groups' bounds are not to be scanned each time.
   */
  private readonly least: Record<TimerDomain, number> = { eventTime: Number.NaN, processingTime: Number.NaN };
  private readonly marker: unknown;
  /** Each group's cache's limit at first (unbounded on a heap store). */
  private readonly capacity: number;
  /** The sum of all groups' limits, kept within CACHED_TIMERS as limits grow. */
  private limits = 0;

  constructor(
    private readonly store: KvStore,
    maxParallelism: number,
  ) {
    this.bounds = {
      eventTime: new Float64Array(maxParallelism).fill(Number.POSITIVE_INFINITY),
      processingTime: new Float64Array(maxParallelism).fill(Number.POSITIVE_INFINITY),
    };
    this.marker = store.codec.encode('timer', 1);
    this.capacity = store.onHeap === true ? Number.POSITIVE_INFINITY : CACHED_PER_GROUP;
  }

  private group(domain: TimerDomain, keyGroup: number): GroupTimers {
    const groups = this.groups[domain];
    let group = groups[keyGroup];
    if (group === undefined) {
      group = new GroupTimers(timerSpace(keyGroup, domain), this.capacity);
      this.limits += this.capacity;
      groups[keyGroup] = group;
    }
    return group;
  }

  /** A write the cache says needs no read of what it replaces (`absent`: nothing). */
  private writeKnown(space: string, entry: string, full: string, value: unknown, absent = false): void {
    if (this.store.set === undefined) this.store.put(space, entry, value);
    else this.store.set(space, entry, value, absent, full);
  }

  /** Registers a timer; one of the same key and time is there already: nothing changes. */
  register(domain: TimerDomain, keyGroup: number, keyText: string, timestamp: number): void {
    const group = this.group(domain, keyGroup);
    const at = group.find(timestamp, keyText);
    if (at >= 0) return;
    if (group.after !== undefined && compare(timestamp, keyText, group.after) <= 0) group.after = undefined;
    const entry = timerEntryKey(timestamp, keyText);
    const space = group.space;
    const position = -at - 1;
    const items = group.items;
    if (position < items.length || group.complete) {
      // At or before the last cached timer, or the cache is all there is: the store has no such timer.
      const full = space + entry;
      this.writeKnown(space, entry, full, this.marker, true);
      this.count++;
      items.insert(position, { timestamp, keyText, entry, full });
      if (items.length > group.limit) {
        // The latest cached timer stays in the store only.
        items.pop();
        group.complete = false;
      }
      if (position === 0) this.headChanged(domain, keyGroup, group, timestamp);
      return;
    }
    // After every cached timer, and the store holds more: only the store knows whether it is new.
    group.storeWrites++;
    if (this.store.put(space, entry, this.marker) === undefined) this.count++;
    if (items.length === 0 && timestamp < this.bounds[domain][keyGroup]!)
      this.setBound(domain, keyGroup, timestamp);
  }

  delete(domain: TimerDomain, keyGroup: number, keyText: string, timestamp: number): boolean {
    const group = this.group(domain, keyGroup);
    const at = group.find(timestamp, keyText);
    if (at >= 0) {
      const removed = group.items.removeAt(at);
      this.writeKnown(group.space, removed.entry, removed.full, undefined);
      this.count--;
      if (at === 0) this.headChanged(domain, keyGroup, group, timestamp);
      return true;
    }
    if (-at - 1 < group.items.length || group.complete) return false;
    group.storeWrites++;
    const old = this.store.put(group.space, timerEntryKey(timestamp, keyText), undefined);
    if (old === undefined) return false;
    this.count--;
    return true;
  }

  /** A group's first timer changed: its bound is that timer's time (`dry`: the bound once none is cached). */
  private headChanged(domain: TimerDomain, keyGroup: number, group: GroupTimers, dry: number): void {
    const items = group.items;
    const bound =
      items.length > 0
        ? items.at(0).timestamp
        : group.complete
          ? Number.POSITIVE_INFINITY
          : Math.min(dry, this.bounds[domain][keyGroup]!);
    this.setBound(domain, keyGroup, bound);
  }

  private setBound(domain: TimerDomain, keyGroup: number, bound: number): void {
    const bounds = this.bounds[domain];
    const old = bounds[keyGroup]!;
    if (bound === old) return;
    bounds[keyGroup] = bound;
    const least = this.least[domain];
    if (bound < least) this.least[domain] = bound;
    else if (old === least) this.least[domain] = Number.NaN;
  }

  /** Whether a timer at or before `upTo` may exist (no read needed when not). */
  mayHaveDue(domain: TimerDomain, upTo: number): boolean {
    const earliest = this.earliest(domain);
    return earliest <= upTo && earliest !== Number.POSITIVE_INFINITY;
  }

  /** The earliest time any timer of `domain` may have (+Infinity: none). */
  earliest(domain: TimerDomain): number {
    const cached = this.least[domain];
    if (!Number.isNaN(cached)) return cached;
    let least = Number.POSITIVE_INFINITY;
    for (const bound of this.bounds[domain]) if (bound < least) least = bound;
    this.least[domain] = least;
    return least;
  }

  /**
   * The key group whose timer is next at or before `upTo`: least bound, then least key group;
   * −1 when none may be due. Its first timer may still have to be read (mustRead).
   */
  nextDueGroup(domain: TimerDomain, upTo: number): number {
    if (!this.mayHaveDue(domain, upTo)) return -1;
    const least = this.least[domain];
    return this.bounds[domain].indexOf(least);
  }

  /** Whether the group's first timer is in the store only: read() it before takeFirst(). */
  mustRead(domain: TimerDomain, keyGroup: number): boolean {
    const group = this.groups[domain][keyGroup];
    return group === undefined || (group.items.length === 0 && !group.complete);
  }

  /** Reads a group's earliest timers from the store into its cache (its cache ran dry). */
  async read(domain: TimerDomain, keyGroup: number): Promise<void> {
    const group = this.group(domain, keyGroup);
    if (group.ahead !== undefined) {
      await group.ahead;
      if (!this.mustRead(domain, keyGroup)) return;
    }
    const space = group.space;
    for (;;) {
      const writes = group.storeWrites;
      const found = await this.readCache(space, group.after?.entry, group.limit + 1);
      // Time travel replaced the group meanwhile: this read is of the undone future.
      if (this.groups[domain][keyGroup] !== group) return;
      // A write while the read was under way may or may not be in what it found: read again.
      if (group.storeWrites !== writes) continue;
      group.complete = found.length <= group.limit;
      if (!group.complete) found.pop();
      group.items = new TimerList(found);
      this.resize(group);
      this.setBound(domain, keyGroup, found.length > 0 ? found[0]!.timestamp : Number.POSITIVE_INFINITY);
      return;
    }
  }

  /** The first `count` timers of a space after `after`. */
  private async readCache(space: string, after: string | undefined, count: number): Promise<CachedTimer[]> {
    const found: CachedTimer[] = [];
    if (this.store.keysAfter !== undefined) {
      for (const full of await this.store.keysAfter(space, after, count))
        found.push(cachedTimer(full.slice(space.length), full));
      return found;
    }
    for await (const [entry] of this.store.entries(space, after, count)) {
      found.push(cachedTimer(entry, space + entry));
      if (found.length === count) break;
    }
    return found;
  }

  /**
   * After a read: a group that had more than its cache held gets twice the cache for its next
   * read, within the budget; one that had all its timers in it goes back to the first size.
   */
  private resize(group: GroupTimers): void {
    if (this.capacity === Number.POSITIVE_INFINITY) return;
    const limit = group.complete
      ? this.capacity
      : Math.min(group.limit * 2, MAX_CACHED_PER_GROUP, group.limit + CACHED_TIMERS - this.limits);
    if (limit <= group.limit && !group.complete) return;
    this.limits += limit - group.limit;
    group.limit = limit;
  }

  /** Takes the group's first timer, which is cached (mustRead is false), out of the cache and the store. */
  takeFirst(domain: TimerDomain, keyGroup: number): StoredTimer {
    const group = this.groups[domain][keyGroup]!;
    const timer = group.items.shift()!;
    group.after = timer;
    this.writeKnown(group.space, timer.entry, timer.full, undefined);
    this.count--;
    this.headChanged(domain, keyGroup, group, timer.timestamp);
    if (
      group.items.length === group.limit >> READ_AHEAD_SHIFT &&
      !group.complete &&
      group.ahead === undefined
    )
      this.readAhead(domain, keyGroup, group);
    return { keyGroup, timestamp: timer.timestamp, key: decodeKey(timer.keyText), entry: timer.entry };
  }

  /**
   * Reads the timers after the group's cached ones while the rest of its cache fires: a read
   * the firing waited for left the run thread idle for LevelDB's (2M timers: 4,100 reads, 7% of
   * its profile idle). The timers read join the cache if it still ends where the read began and
   * the store took no write of the group meanwhile; else they are dropped, and the cache, run
   * dry, is read as before. It fills the cache to its limit, which then grows as a read's does.
   */
  private readAhead(domain: TimerDomain, keyGroup: number, group: GroupTimers): void {
    const last = group.items.last()!;
    const writes = group.storeWrites;
    const room = group.limit - group.items.length;
    const merge = (found: CachedTimer[]) => {
      group.ahead = undefined;
      if (this.groups[domain][keyGroup] !== group || group.storeWrites !== writes) return;
      const items = group.items;
      if ((items.length > 0 ? items.last() : group.after) !== last) return;
      const wasEmpty = items.length === 0;
      const fits = Math.min(found.length, group.limit - items.length);
      for (let i = 0; i < fits; i++) items.push(found[i]!);
      // `room` + 1 asked for: fewer found means the store has none after them.
      group.complete = fits === found.length && found.length <= room;
      if (!group.complete) this.resize(group);
      if (wasEmpty)
        this.setBound(domain, keyGroup, items.length > 0 ? items.at(0).timestamp : Number.POSITIVE_INFINITY);
    };
    // A failed read is dropped: the read the cache needs once dry reports the store's failure.
    group.ahead = this.readCache(group.space, last.entry, room + 1).then(merge, () => {
      group.ahead = undefined;
    });
  }

  /** Settles when no read ahead is under way (its timers joined their cache or were dropped). */
  async readsAhead(): Promise<void> {
    for (const domain of ['eventTime', 'processingTime'] as const)
      for (const group of this.groups[domain]) if (group?.ahead !== undefined) await group.ahead;
  }

  /** Restore: a timer entry the store holds (its full key), counted and bounded; read when due. */
  restored(fullKey: string): void {
    const domain = timerDomainOf(fullKey);
    if (domain === undefined) return;
    const keyGroup = Number.parseInt(fullKey.slice(0, 4), 16);
    const { timestamp } = parseTimerEntry(fullKey.slice(timerSpace(keyGroup, domain).length));
    this.count++;
    const group = this.group(domain, keyGroup);
    group.items = new TimerList();
    group.complete = false;
    group.after = undefined;
    // A read under way saw the store before this entry.
    group.storeWrites++;
    if (timestamp < this.bounds[domain][keyGroup]!) this.setBound(domain, keyGroup, timestamp);
  }

  /**
   * Time travel in debug runs: the count, bounds and caches now, valid for the store as it is
   * now. The caches are copied (references to their timers), so that going back to here finds
   * them as they were: a step back then replays exactly what the run did, reading what it read.
   */
  progress(): TimerProgress {
    const caches = (domain: TimerDomain) =>
      this.groups[domain].map((group) =>
        group === undefined
          ? undefined
          : {
              items: group.items.toArray(),
              limit: group.limit,
              complete: group.complete,
              after: group.after,
            },
      );
    return {
      count: this.count,
      event: this.bounds.eventTime.slice(),
      processing: this.bounds.processingTime.slice(),
      caches: { eventTime: caches('eventTime'), processingTime: caches('processingTime') },
    };
  }

  /** Puts count, bounds and caches back, with the store rolled back to where progress() was taken. */
  restoreProgress(progress: TimerProgress): void {
    this.count = progress.count;
    for (const domain of ['eventTime', 'processingTime'] as const) {
      this.bounds[domain].set(domain === 'eventTime' ? progress.event : progress.processing);
      this.least[domain] = Number.NaN;
      // New groups: a read of the store still under way belongs to the undone future.
      this.groups[domain] = progress.caches[domain].map((saved, keyGroup) => {
        if (saved === undefined) return undefined;
        const group = new GroupTimers(timerSpace(keyGroup, domain), saved.limit);
        group.items = new TimerList(saved.items);
        group.complete = saved.complete;
        group.after = saved.after;
        return group;
      });
    }
    this.limits = 0;
    for (const domain of ['eventTime', 'processingTime'] as const)
      for (const group of this.groups[domain]) if (group !== undefined) this.limits += group.limit;
  }
}
