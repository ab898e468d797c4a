// Timers as keyed state: one store entry per timer, in a space per key group and time domain,
// its key the timer's time (14 hex digits, so entries sort by time) followed by the timer's key.
// So a million timers cost no heap (on LevelDB), go into checkpoints with the key group's other
// state and move with it on rescale. The heap holds only, per key group and domain, a bound
// below which it has no timer: a watermark that passes no bound costs no read. A bound may be
// low (a deleted timer); the read that finds nothing due raises it.
import type { KvStore } from './kvStore.js';
import { decodeKey, StateTag, stateSpace } from './stateKeys.js';

export type TimerDomain = 'eventTime' | 'processingTime';

/** Times a timer may have: whole ms within ±2^52 (any date of the next 140,000 years). */
const OFFSET = 2 ** 52;
const TIME_DIGITS = 14;

export function checkTimerTime(what: string, timestamp: unknown): number {
  if (typeof timestamp !== 'number' || !Number.isInteger(timestamp) || Math.abs(timestamp) >= OFFSET) {
    throw new TypeError(
      `${what}(timestamp): timestamp must be a whole number of ms (got ${String(timestamp)})`,
    );
  }
  return timestamp;
}

export function timerEntryKey(timestamp: number, keyText: string): string {
  return (timestamp + OFFSET).toString(16).padStart(TIME_DIGITS, '0') + keyText;
}

export function parseTimerEntry(entry: string): { timestamp: number; keyText: string } {
  return {
    timestamp: Number.parseInt(entry.slice(0, TIME_DIGITS), 16) - OFFSET,
    keyText: entry.slice(TIME_DIGITS),
  };
}

export function timerTag(domain: TimerDomain): StateTag {
  return domain === 'eventTime' ? StateTag.EventTimers : StateTag.ProcessingTimers;
}

export function timerSpace(keyGroup: number, domain: TimerDomain): string {
  return stateSpace(keyGroup, timerTag(domain), '');
}

/** Whether a full store key is a timer, and of which domain. */
export function timerDomainOf(fullKey: string): TimerDomain | undefined {
  const tag = fullKey.charAt(4);
  if (tag === StateTag.EventTimers) return 'eventTime';
  if (tag === StateTag.ProcessingTimers) return 'processingTime';
  return undefined;
}

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
}

export class TimerStore {
  /** Timers held, every key group and domain. */
  count = 0;
  /** Timers deleted by their owners so far: a firing whose reads began after the last one need not look again. */
  deletions = 0;
  private readonly bounds: Record<TimerDomain, Float64Array>;
  /**
   * The least bound per domain, kept as bounds change (NaN: to be found again): a watermark
   * after every record asks for it, and 128 key groups' bounds are not to be scanned each time.
   */
  private readonly least: Record<TimerDomain, number> = { eventTime: Number.NaN, processingTime: Number.NaN };
  private readonly marker: unknown;

  constructor(
    private readonly store: KvStore,
    maxParallelism: number,
  ) {
    this.bounds = {
      eventTime: new Float64Array(maxParallelism).fill(Number.POSITIVE_INFINITY),
      processingTime: new Float64Array(maxParallelism).fill(Number.POSITIVE_INFINITY),
    };
    this.marker = store.codec.encode('timer', 1);
  }

  register(domain: TimerDomain, keyGroup: number, keyText: string, timestamp: number): void {
    const old = this.store.put(timerSpace(keyGroup, domain), timerEntryKey(timestamp, keyText), this.marker);
    if (old === undefined) this.count++;
    this.lower(domain, keyGroup, timestamp);
  }

  private lower(domain: TimerDomain, keyGroup: number, timestamp: number): void {
    const bounds = this.bounds[domain];
    if (timestamp >= bounds[keyGroup]!) return;
    bounds[keyGroup] = timestamp;
    if (timestamp < this.least[domain]) this.least[domain] = timestamp;
  }

  delete(domain: TimerDomain, keyGroup: number, keyText: string, timestamp: number): boolean {
    const old = this.store.put(timerSpace(keyGroup, domain), timerEntryKey(timestamp, keyText), undefined);
    if (old === undefined) return false;
    this.count--;
    this.deletions++;
    return true;
  }

  /** The key groups that may hold a timer at or before `upTo` (+Infinity: any timer). */
  dueKeyGroups(domain: TimerDomain, upTo: number): number[] {
    const bounds = this.bounds[domain];
    const due: number[] = [];
    for (let g = 0; g < bounds.length; g++) {
      const bound = bounds[g]!;
      if (bound <= upTo && bound !== Number.POSITIVE_INFINITY) due.push(g);
    }
    return due;
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
   * A firing is about to read a key group's timers: its bound is forgotten, and set again from
   * what the read finds beyond the watermark (lowerBound) and from what is registered meanwhile.
   */
  claim(domain: TimerDomain, keyGroup: number): void {
    this.bounds[domain][keyGroup] = Number.POSITIVE_INFINITY;
    this.least[domain] = Number.NaN;
  }

  lowerBound(domain: TimerDomain, keyGroup: number, timestamp: number): void {
    this.lower(domain, keyGroup, timestamp);
  }

  /** A key group's timers of a domain, in time order (a snapshot, as the store's scans are). */
  async *timers(domain: TimerDomain, keyGroup: number): AsyncGenerator<StoredTimer> {
    for await (const [entry] of this.store.entries(timerSpace(keyGroup, domain))) {
      const { timestamp, keyText } = parseTimerEntry(entry);
      yield { keyGroup, timestamp, key: decodeKey(keyText), entry };
    }
  }

  /**
   * Removes a timer that is about to fire; false when it was deleted meanwhile. `unchanged`: no
   * timer was deleted since it was read, so it is certainly there (no look-up).
   */
  take(domain: TimerDomain, timer: StoredTimer, unchanged: boolean): boolean {
    const space = timerSpace(timer.keyGroup, domain);
    if (!unchanged && this.store.get(space, timer.entry) === undefined) return false;
    this.store.put(space, timer.entry, undefined);
    this.count--;
    return true;
  }

  /** Restore: a timer entry the store holds (its full key), counted and bounded. */
  restored(fullKey: string): void {
    const domain = timerDomainOf(fullKey);
    if (domain === undefined) return;
    const keyGroup = Number.parseInt(fullKey.slice(0, 4), 16);
    const { timestamp } = parseTimerEntry(fullKey.slice(timerSpace(keyGroup, domain).length));
    this.count++;
    this.lower(domain, keyGroup, timestamp);
  }

  /** Time travel in debug runs: the count and bounds now, valid for the store as it is now. */
  progress(): TimerProgress {
    return {
      count: this.count,
      event: this.bounds.eventTime.slice(),
      processing: this.bounds.processingTime.slice(),
    };
  }

  /** Puts count and bounds back, with the store rolled back to where progress() was taken. */
  restoreProgress(progress: TimerProgress): void {
    this.count = progress.count;
    this.bounds.eventTime.set(progress.event);
    this.bounds.processingTime.set(progress.processing);
    this.least.eventTime = Number.NaN;
    this.least.processingTime = Number.NaN;
  }
}
