// One key group's timers of one time domain as far as the heap holds them (timerStore.ts): its
// earliest timers, in the store's order, and what the store may hold beyond them.
import { compareUtf8 } from './storeBrowser.js';
import { parseTimerEntry } from './timerKeys.js';
import { TimerList } from './timerList.js';

/** A timer the heap holds. */
export interface CachedTimer {
  readonly timestamp: number;
  readonly keyText: string;
  readonly entry: string;
  /**
   * Its full key in the store (space + entry), built once: the pending write's Map finds it
   * again by the same string, whose hash V8 keeps, instead of a new one made, flattened and
   * hashed for the deletion.
   */
  readonly full: string;
}

/** One key group's timers of one domain, as far as the heap holds them. */
export class GroupTimers {
  constructor(
    /** Its space in the store, built once: a string made per timer is hashed per timer. */
    readonly space: string,
    limit: number,
  ) {
    this.limit = limit;
  }

  /** The group's earliest timers, in the store's order: time, then key as UTF-8 (LevelDB's). */
  items = new TimerList<CachedTimer>();
  /** How many timers `items` holds at most. */
  limit: number;
  /** Whether `items` is every timer the group has; if not, the store's others all come after them. */
  complete = true;
  /** Writes that went to the store only: a read of the store that saw some of them is redone. */
  storeWrites = 0;
  /**
   * The last timer taken, while every timer of the group comes after it: a read of the store
   * starts after it, so LevelDB does not step over the deletions of every timer fired before.
   */
  after: CachedTimer | undefined;
  /** A read of the timers after the cached ones, started before the cache ran dry. */
  ahead: Promise<void> | undefined;

  /** The index of (timestamp, keyText), or −(where it would go) − 1. */
  find(timestamp: number, keyText: string): number {
    const items = this.items;
    let high = items.length;
    // Timers mostly come later than every one held: check the last first; then the first, for
    // timers set latest first (each earlier than every one held).
    if (high === 0 || compareAt(items, high - 1, timestamp, keyText) > 0) return -high - 1;
    const first = compareAt(items, 0, timestamp, keyText);
    if (first <= 0) return first === 0 ? 0 : -1;
    let low = 1;
    while (low < high) {
      const mid = (low + high) >>> 1;
      const c = compareAt(items, mid, timestamp, keyText);
      if (c === 0) return mid;
      if (c < 0) high = mid;
      else low = mid + 1;
    }
    return -low - 1;
  }
}

/** As compare, with the cached timer's time and key read from the list, not from its object. */
function compareAt(items: TimerList<CachedTimer>, index: number, timestamp: number, keyText: string): number {
  return compareTimes(timestamp, keyText, items.timeAt(index), items.keyAt(index));
}

/** A timer read back from the store by its entry's key (and its full key). */
export function cachedTimer(entry: string, full: string): CachedTimer {
  const { timestamp, keyText } = parseTimerEntry(entry);
  return { timestamp, keyText, entry, full };
}

/** The store's order of a timer (time, key) against a cached one. */
export function compare(timestamp: number, keyText: string, item: CachedTimer): number {
  return compareTimes(timestamp, keyText, item.timestamp, item.keyText);
}

/** The store's order of two timers: time, then key as UTF-8 (LevelDB's). */
function compareTimes(timestamp: number, keyText: string, otherTime: number, otherKey: string): number {
  if (timestamp !== otherTime) return timestamp < otherTime ? -1 : 1;
  return keyText === otherKey ? 0 : compareUtf8(keyText, otherKey);
}
