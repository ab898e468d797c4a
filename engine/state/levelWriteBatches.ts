// The batches a LevelDB store (levelKvStore.ts) has cut and is writing: each goes to LevelDB in
// order, after the one before, and stays readable here until it is written, because LevelDB
// does not see a batch until its write completes. The store gathers the next batch meanwhile.
import type { ClassicLevel } from 'classic-level';
import type { Written } from './batchWritten.js';
import { cannotWrite } from './fileFault.js';
import { type FlushedBatch, forEachWrite } from './kvStore.js';
import { spaceEnd } from './levelReads.js';
import type { MaybePromise } from './maybePromise.js';
import { compareUtf8 } from './storeBrowser.js';
import type { BatchUnread, UnreadWrites } from './unreadWrites.js';

/** Writes by full key, null deleting. */
export type Pending = Map<string, string | null>;
/** A dropped container's range, as [gte, lt). */
export type Range = readonly [string, string];

/** A batch as the store cuts it. */
export interface CutBatch {
  readonly batch: Pending;
  /** Then the writes to spaces with a handle: by space, then by key within it. */
  readonly spaced: ReadonlyMap<string, Pending>;
  /** The ranges it drops after its writes. */
  readonly dropped: Range[];
  /** Where it writes. */
  readonly written: Written;
  /** Its writes whose replaced values are still to be told. */
  readonly unread: BatchUnread;
  /** The changelog's write of it, waited for (never failing) like the batch's own. */
  readonly logged: MaybePromise<unknown>;
}

export class WriteBatches {
  /** Batches being written to LevelDB, oldest first. */
  private readonly inFlight: CutBatch[] = [];
  /** The last batch write; each waits for the one before, so they apply in order. */
  private last: MaybePromise;

  constructor(
    private readonly db: ClassicLevel<string, string>,
    private readonly unread: UnreadWrites,
    /** The database's folder, which a failure names. */
    private readonly location: string,
  ) {}

  /**
   * What the newest batch in flight that writes `key` by its full key writes there (null: deletes
   * it). A space with a handle keeps its writes apart in the batch: getIn finds those.
   */
  get(key: string): string | null | undefined {
    const inFlight = this.inFlight;
    for (let i = inFlight.length - 1; i >= 0; i--) {
      const value = inFlight[i]!.batch.get(key);
      if (value !== undefined) return value;
    }
    return undefined;
  }

  /** As get, for a key of a space with a handle: `full` is its full key. */
  getIn(space: string, key: string, full: string): string | null | undefined {
    const inFlight = this.inFlight;
    for (let i = inFlight.length - 1; i >= 0; i--) {
      const cut = inFlight[i]!;
      let value = cut.spaced.get(space)?.get(key);
      if (value === undefined) value = cut.batch.get(full);
      if (value !== undefined) return value;
    }
    return undefined;
  }

  /** The last batch write started, until it is written (undefined then): a failure rejects it. */
  get flushing(): MaybePromise {
    return this.last;
  }

  /** Whether a batch in flight writes a key of `space` after `after`, or drops part of the space. */
  touches(space: string, after: string | undefined): boolean {
    if (this.inFlight.length === 0) return false;
    for (const { written } of this.inFlight) if (written.touches(space, after)) return true;
    return this.inFlight.some(({ dropped }) => droppedIn(dropped, space));
  }

  /** The batches in flight as they go to disk, for a snapshot to apply after its entries. */
  pending(): FlushedBatch[] {
    return this.inFlight.map(({ batch, spaced, dropped }) => ({ batch, spaced, dropped }));
  }

  /** Starts writing a batch, after the ones before it. */
  write(cut: CutBatch): void {
    this.inFlight.push(cut);
    const operations = this.db.batch();
    // forEach, not for-of: an entry array per write was a tenth of a timer-heavy run's allocation.
    forEachWrite(cut, (key, value) => {
      if (value === null) operations.del(key);
      else operations.put(key, value);
    });
    const previous = this.last;
    let done: MaybePromise;
    done = (async () => {
      await previous;
      try {
        // Dropped containers are never written again (a clear starts a new generation), but this
        // batch may hold elements written before the drop: delete the ranges after it.
        if (cut.unread.writes.length > 0) await this.unread.told(cut.unread);
        await operations.write();
        for (const [gte, lt] of cut.dropped) await this.db.clear({ gte, lt });
      } catch (error) {
        throw cannotWrite('state', this.location, error);
      }
      // A changelog that cannot be written fails its checkpoint, not the job.
      if (cut.logged !== undefined) await cut.logged.catch(() => {});
      this.inFlight.shift();
      this.unread.written();
      if (this.last === done) this.last = undefined;
    })();
    // A failure is reported where `flushing` is awaited (the next batch, flush, close); this only marks it handled.
    done.catch(() => {});
    this.last = done;
  }
}

/** Whether one of `ranges` overlaps `space`. */
export function droppedIn(ranges: readonly Range[], space: string): boolean {
  if (ranges.length === 0) return false;
  const end = spaceEnd(space);
  return ranges.some(([gte, lt]) => compareUtf8(gte, end) < 0 && compareUtf8(space, lt) < 0);
}
