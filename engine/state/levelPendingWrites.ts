// The writes a LevelDB store holds until they go to LevelDB as one batch (levelKvStore.ts): by
// full key (timers, elements, and what was written before a space had a handle), and per space
// with a handle in that space's own Map (levelReadCache.ts), by the key inside the space. It
// counts them against the batch's budget (batchBudget.ts), knows where they write
// (batchWritten.ts) and cuts them into a batch: all of them, or the timers' alone.
import { BatchBudget } from './batchBudget.js';
import { Written } from './batchWritten.js';
import type { SpaceCache } from './levelReadCache.js';
import { droppedIn, type Pending } from './levelWriteBatches.js';

/**
 * New timer entries pending that send the writes by full key as a batch of their own, while the
 * spaces' small writes wait to be coalesced (batchBudget.ts): a timer is written once and deleted
 * once, never rewritten within a batch, and a pending Map of 131,072 of them missed the cache at
 * every registration (the 2M-timer job: 9% of its run thread).
 */
const TIMER_BATCH = 8192;

/** The pending writes, cut: what one batch writes. */
export interface CutWrites {
  readonly batch: Pending;
  readonly spaced: Map<string, Pending>;
  readonly dropped: [string, string][];
  readonly written: Written;
}

export class PendingWrites {
  /** Writes by full key; those to a space with a handle are in its SpaceCache instead. */
  private byKey: Pending = new Map();
  /** Spaces with a handle that hold pending writes, and how many entries they hold in all. */
  private spaces: SpaceCache[] = [];
  private spaceEntries = 0;
  /** When the pending writes make a batch (batchBudget.ts). */
  private readonly budget = new BatchBudget();
  /** New timer entries in `byKey`. */
  private timers = 0;
  /** Where the pending writes write. */
  written = new Written();
  /**
   * Keys of `byKey` that no earlier batch left in LevelDB (new timers and list elements): deleted
   * within the batch, they leave it, instead of costing LevelDB a put and a delete.
   */
  private fresh = new Set<string>();
  /** Ranges of dropped containers still to delete from LevelDB, as [gte, lt]. */
  private dropped: [string, string][] = [];

  /** The pending write of a full key: a value, null for a deletion, undefined for none. */
  get(full: string): string | null | undefined {
    return this.byKey.get(full);
  }

  /** Puts a write by full key among the pending ones, counted: whether it made a new entry. */
  pend(full: string, next: string | null): boolean {
    const byKey = this.byKey;
    const before = byKey.size;
    byKey.set(full, next);
    const added = byKey.size > before;
    this.budget.note(added, full.length, next);
    return added;
  }

  /** As pend, in a space with a handle, by the key inside the space. */
  pendIn(cache: SpaceCache, key: string, next: string | null): void {
    const dirty = cache.dirty;
    const before = dirty.size;
    if (before === 0) this.spaces.push(cache);
    dirty.set(key, next);
    const added = dirty.size - before;
    this.spaceEntries += added;
    this.budget.note(added > 0, key.length, next);
  }

  /**
   * A write by full key whose caller knows what it replaces (`absent`: nothing, as a new timer or
   * list element): whether it made a new entry; undefined when it was a deletion of an entry this
   * batch wrote where nothing was, which it took out instead.
   */
  pendKnown(full: string, next: string | null, absent: boolean): boolean | undefined {
    if (next === null && this.fresh.delete(full)) {
      this.byKey.delete(full);
      return undefined;
    }
    const added = this.pend(full, next);
    // Not if this batch already wrote the key (it may delete it): LevelDB may still hold it, so
    // that write must stay. Told by the Map's size, not a look-up more (a timer's registration).
    if (absent && added && next !== null) this.fresh.add(full);
    return added;
  }

  /** A timer's write went pending (`added`: as a new entry), `key` within its `space`. */
  timerPending(space: string, key: string, added: boolean): void {
    if (added) this.timers++;
    this.written.noteTimer(space, key);
  }

  /** A container's entries go: the range [gte, lt) is deleted with the next whole batch. */
  drop(gte: string, lt: string): void {
    this.dropped.push([gte, lt]);
  }

  /** Whether a pending write is to a key of `space` after `after`, or a drop to part of the space. */
  touches(space: string, after: string | undefined): boolean {
    return this.written.touches(space, after) || droppedIn(this.dropped, space);
  }

  /** Whether anything is pending. */
  any(): boolean {
    return this.byKey.size > 0 || this.spaces.length > 0 || this.dropped.length > 0;
  }

  /**
   * Whether the pending writes make a batch now: 'all' once the budget is spent (or a drop waits
   * while timers make a batch), 'byKey' once TIMER_BATCH new timers wait, else undefined.
   */
  due(): 'all' | 'byKey' | undefined {
    const full = this.budget.full(this.byKey.size + this.spaceEntries);
    if (!full && this.timers < TIMER_BATCH) return undefined;
    // The writes by full key alone, unless a container's drop waits (it goes with everything).
    return full || this.dropped.length > 0 ? 'all' : 'byKey';
  }

  /**
   * Cuts the pending writes into a batch: all of them, or with `byKey` only those by full key
   * (timers, elements), the spaces' waiting for a later batch. A space's writes come after those
   * by full key either way: any of its entries written by full key was written before the space
   * had a handle, and none is written by full key since.
   */
  cut(byKey = false): CutWrites {
    const batch = this.byKey;
    const spaced = new Map<string, Pending>();
    const written = this.written;
    this.written = new Written();
    if (byKey) {
      // What stays pending: the spaces' writes (never a timer), and a restore's if one wrote.
      // The budget keeps counting what went: the next whole batch comes a little early.
      this.written.others = written.others;
      this.written.unsplit = written.unsplit;
    } else {
      for (const cache of this.spaces) {
        spaced.set(cache.space, cache.dirty);
        cache.dirty = new Map();
      }
      this.spaces = [];
      this.spaceEntries = 0;
      this.budget.reset();
    }
    const dropped = this.dropped;
    this.dropped = [];
    this.byKey = new Map();
    this.timers = 0;
    this.fresh = new Set();
    return { batch, spaced, dropped, written };
  }
}
