// Keyed state rolled back in place, for stepping back in a debug run. Every write user code makes
// through ctx.state reaches the store as a put that returns the value it replaced; the journal
// keeps that old value, so going back to a mark writes the old values back, newest first. This
// costs what the steps undone wrote, whatever the size of the state (a copy of 10 MB of LevelDB
// would cost more than the 300 ms a step back may take).
//
// A cleared map or list drops its container, and a drop cannot be written back: so a drop is held
// here instead of reaching the store. The old container stays in the store, unreachable (its
// meta entry names the next generation), until the journal forgets the drop (no step back can
// reach before it any more) and passes it on. Until then a checkpoint of the run carries those
// old elements too; nothing ever reads them.

import type { KvSpace, KvStore, SpaceEntries, Stored } from '../state/kvStore.js';
import type { MaybePromise } from '../state/maybePromise.js';
import type { StateCodec } from '../state/stateCodecs.js';
import type { StoreBrowser } from '../state/storeBrowser.js';

type Entry =
  | {
      readonly store: JournaledStore;
      readonly space: string;
      readonly key: string;
      readonly old: Stored | undefined;
    }
  | { readonly store: JournaledStore; readonly drop: string };

/** Bytes an entry costs beyond its strings (an estimate, for the memory budget). */
const ENTRY_OVERHEAD = 64;

function sizeOf(value: Stored | undefined): number {
  return typeof value === 'string' ? value.length * 2 : ENTRY_OVERHEAD;
}

export class StateJournal {
  private entries: Entry[] = [];
  /** The mark of entries[0]. */
  private offset = 0;
  /** Estimated bytes held, and what they were at each mark still kept (for trimming). */
  private bytes = 0;
  private bytesAt: number[] = [0];

  /** A point to roll back to. */
  get mark(): number {
    return this.offset + this.entries.length;
  }

  /** Estimated memory held since `mark`. */
  bytesSince(mark: number): number {
    return this.bytes - (this.bytesAt[mark - this.offset] ?? this.bytes);
  }

  record(entry: Entry): void {
    this.entries.push(entry);
    this.bytes +=
      'drop' in entry
        ? entry.drop.length * 2
        : (entry.space.length + entry.key.length) * 2 + sizeOf(entry.old);
    this.bytesAt.push(this.bytes);
  }

  /** Writes back what every store held at `mark`. */
  rollBack(mark: number): void {
    if (mark < this.offset)
      throw new Error(`internal: the state journal no longer reaches back to mark ${mark}`);
    while (this.mark > mark) {
      const entry = this.entries.pop()!;
      this.bytesAt.pop();
      if (!('drop' in entry)) entry.store.inner.put(entry.space, entry.key, entry.old);
    }
    this.bytes = this.bytesAt[this.bytesAt.length - 1]!;
  }

  /** Gives up going back before `mark`: the drops held until then reach their stores. */
  forget(mark: number): void {
    const count = Math.min(mark, this.mark) - this.offset;
    if (count <= 0) return;
    for (let i = 0; i < count; i++) {
      const entry = this.entries[i]!;
      if ('drop' in entry) entry.store.inner.dropSpace(entry.drop);
    }
    this.entries = this.entries.slice(count);
    this.bytesAt = this.bytesAt.slice(count);
    this.offset += count;
  }
}

/** A keyed subtask's store with its writes journaled (see above); everything else passes through. */
export class JournaledStore implements KvStore {
  constructor(
    readonly inner: KvStore,
    private readonly journal: StateJournal,
  ) {}

  get codec(): StateCodec {
    return this.inner.codec;
  }

  get onHeap(): boolean | undefined {
    return this.inner.onHeap;
  }

  space(space: string): KvSpace {
    const handle = this.inner.space(space);
    return {
      get: (key) => handle.get(key),
      put: (key, value) => {
        const old = handle.put(key, value);
        this.journal.record({ store: this, space, key, old });
        return old;
      },
    };
  }

  get(space: string, key: string): Stored | undefined {
    return this.inner.get(space, key);
  }

  put(space: string, key: string, value: Stored | undefined): Stored | undefined {
    const old = this.inner.put(space, key, value);
    this.journal.record({ store: this, space, key, old });
    return old;
  }

  entries(space: string, after?: string): SpaceEntries {
    return this.inner.entries(space, after);
  }

  dropSpace(space: string): void {
    this.journal.record({ store: this, drop: space });
  }

  snapshotEntries(): ReturnType<KvStore['snapshotEntries']> {
    return this.inner.snapshotEntries();
  }

  restoreEntry(key: string, json: string | undefined): void {
    this.inner.restoreEntry(key, json);
  }

  restoreDrop(gte: string, lt: string): Promise<void> {
    return this.inner.restoreDrop(gte, lt);
  }

  maybeFlush(): MaybePromise {
    return this.inner.maybeFlush();
  }

  flush(): Promise<void> {
    return this.inner.flush();
  }

  browse(): Promise<StoreBrowser> {
    return this.inner.browse();
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
