// Keyed state into checkpoints and back. On LevelDB a checkpoint persists what changed: every
// batch the write-back cache flushes is also appended to a changes file, and a checkpoint closes
// the file of the changes since the previous one. A full copy (the base) is taken again when the
// changes since the last one outgrow it, so restore reads a bounded amount. The heap backend is
// copied whole each time.
import { type FlushedBatch, forEachWrite, type KvStore, type SnapshotChunks } from '../state/kvStore.js';
import type { MaybePromise } from '../state/maybePromise.js';
import { MemoryKvStore } from '../state/memoryKvStore.js';
import { keyGroupOfStoreKey } from '../state/stateKeys.js';
import type { FileRef, StateHandle } from './checkpointMetadata.js';
import type { CheckpointStorage } from './checkpointStorage.js';
import { readStateFile, StateFileWriter } from './stateFile.js';

export interface StateSnapshotResult {
  readonly handle: StateHandle;
  /** Bytes this checkpoint wrote. */
  readonly persistedBytes: number;
}

export interface PendingStateSnapshot {
  /** The subtask may take its next record once this resolves (the synchronous part is done). */
  readonly taken: Promise<void>;
  /** Files written: the asynchronous part. */
  readonly written: Promise<StateSnapshotResult>;
}

/**
 * A new base is taken when the changes since the last one outgrow it this many times: a
 * restore then reads at most about three times the state, and a job whose every key keeps
 * changing does not copy its whole state at every other checkpoint.
 */
const BASE_AFTER_CHANGES = 2;

export class StateSnapshots {
  /** The changes file being filled: flushed batches since the last checkpoint. */
  private segment: StateFileWriter | undefined;
  private nextSegmentId: number;
  /** The files of the latest checkpoint, as they were decided at its barrier. */
  private base: MaybePromise<FileRef>;
  private changes: Promise<FileRef>[] = [];
  private baseBytes = 0;
  private changesBytes = 0;
  /**
   * Whether flushed batches go to a changes file. Not before the first base, nor once the changes
   * have outgrown the base: the next checkpoint takes a base then, which holds them anyway.
   */
  private logging = false;
  /**
   * Names of the files written so far. A debug run that goes back in time takes a checkpoint id
   * again while its changes chain still names the files written under that id the first time:
   * a second file of one id gets a suffix instead of writing over the first.
   */
  private readonly names = new Set<string>();
  /** Snapshots still writing; one that failed leaves a gap in the changes, so a base follows. */
  private writing = 0;
  private failed = false;

  constructor(
    private readonly storage: CheckpointStorage,
    private readonly operator: string,
    private readonly subtask: number,
    private readonly store: KvStore,
    private readonly keyGroups: { start: number; end: number },
    firstCheckpointId: number,
  ) {
    this.nextSegmentId = firstCheckpointId;
    if (!(store instanceof MemoryKvStore)) store.onFlush = (flushed) => this.log(flushed);
  }

  /**
   * Encodes a batch as the store hands it to LevelDB, into blocks that go to disk as they fill.
   * Later records win on restore, so nothing is coalesced; a batch's drops apply after its
   * writes, as in LevelDB. The promise returned is the disk's backpressure.
   */
  private log(flushed: FlushedBatch): MaybePromise {
    if (!this.logging) return undefined;
    this.segment ??= new StateFileWriter(
      this.storage,
      this.storage.dataPath(this.operator, this.subtask, this.fileName('changes', this.nextSegmentId)),
    );
    return writeBatch(this.segment, flushed);
  }

  /**
   * At the barrier. The changes since the last checkpoint are closed at once; a new base is read
   * from a snapshot of LevelDB taken now, followed by the batches still being written, while
   * records keep flowing (a store without snapshotNow needs every batch written first: a short wait).
   */
  snapshot(checkpointId: number, size: { entries: number; bytes: number }): PendingStateSnapshot {
    this.store.flushNow?.();
    const segment = this.segment;
    this.segment = undefined;
    this.nextSegmentId = checkpointId + 1;
    const needBase = this.store instanceof MemoryKvStore || !this.logging || this.failed || this.writing > 0;
    if (needBase) {
      this.failed = false;
      this.logging = true;
      const store: KvStore = this.store;
      const now = store.snapshotNow?.();
      const entries = now === undefined ? store.snapshotEntries() : Promise.resolve(now.entries);
      const base = (async () => {
        // The base holds every change these batches made.
        await segment?.discard();
        return this.writeBase(checkpointId, await entries, now?.pending ?? []);
      })();
      this.base = base;
      this.changes = [];
      this.changesBytes = 0;
      const written = this.track(
        base.then((ref) => {
          this.baseBytes = ref.bytes;
          return { handle: this.handle(ref, [], size), persistedBytes: ref.bytes };
        }),
      );
      return { taken: entries.then(() => {}), written };
    }
    const base = this.base!;
    if (segment !== undefined) {
      this.changes = [...this.changes, segment.close()];
      this.changesBytes += segment.bytes;
      this.logging = this.changesBytes <= BASE_AFTER_CHANGES * this.baseBytes;
    }
    const changes = this.changes;
    const written = this.track(
      (async () => {
        const handle = this.handle(await base, await Promise.all(changes), size);
        return { handle, persistedBytes: segment === undefined ? 0 : handle.changes.at(-1)!.bytes };
      })(),
    );
    return { taken: Promise.resolve(), written };
  }

  private track(written: Promise<StateSnapshotResult>): Promise<StateSnapshotResult> {
    this.writing++;
    return written.then(
      (result) => {
        this.writing--;
        return result;
      },
      (error: unknown) => {
        this.writing--;
        this.failed = true;
        throw error;
      },
    );
  }

  private async writeBase(
    checkpointId: number,
    entries: SnapshotChunks,
    pending: readonly FlushedBatch[],
  ): Promise<FileRef> {
    const writer = new StateFileWriter(
      this.storage,
      this.storage.dataPath(this.operator, this.subtask, this.fileName('base', checkpointId)),
    );
    try {
      for await (const chunk of entries) {
        for (const [key, value] of chunk) {
          const wait = writer.set(key, value);
          if (wait !== undefined) await wait;
        }
        const wait = writer.endBlock();
        if (wait !== undefined) await wait;
      }
      for (const flushed of pending) {
        const wait = writeBatch(writer, flushed);
        if (wait !== undefined) await wait;
      }
    } catch (error) {
      // A base that could not be written (a full disk) is closed and removed: no checkpoint names
      // it, and its space is what the next one needs.
      await writer.discard();
      throw error;
    }
    return writer.close();
  }

  private handle(
    base: FileRef,
    changes: readonly FileRef[],
    size: { entries: number; bytes: number },
  ): StateHandle {
    return { base, changes, keyGroups: this.keyGroups, entries: size.entries, bytes: size.bytes };
  }

  /** `base-7.kv`, `changes-8.kv`; `changes-8.2.kv` for a second file of the same id (see `names`). */
  private fileName(kind: 'base' | 'changes', id: number): string {
    let name = `${kind}-${id}.kv`;
    for (let n = 2; this.names.has(name); n++) name = `${kind}-${id}.${n}.kv`;
    this.names.add(name);
    return name;
  }

  async discard(): Promise<void> {
    this.logging = false;
    await this.segment?.discard();
  }
}

/**
 * Writes a batch as the store hands it to LevelDB, as one block. Later records win on restore, so
 * nothing is coalesced; a batch's drops apply after its writes, as in LevelDB. The promise
 * returned is the disk's backpressure.
 */
function writeBatch(writer: StateFileWriter, flushed: FlushedBatch): MaybePromise {
  let wait: MaybePromise;
  forEachWrite(flushed, (key, value) => {
    const written = value === null ? writer.delete(key) : writer.set(key, value);
    if (written !== undefined) wait = written;
  });
  for (const [gte, lt] of flushed.dropped) wait = writer.drop(gte, lt) ?? wait;
  return writer.endBlock() ?? wait;
}

/**
 * Loads into `store` the key groups in `range` from the state of old subtasks: each one's base,
 * then its changes in order. Key groups never overlap between old subtasks, so their order does
 * not matter; a restore at another parallelism simply takes each key group from its old owner.
 */
export async function restoreState(
  storage: CheckpointStorage,
  store: KvStore,
  handles: readonly StateHandle[],
  range: { start: number; end: number },
): Promise<void> {
  const inRange = (key: string) => {
    const group = keyGroupOfStoreKey(key);
    return group >= range.start && group <= range.end;
  };
  const visitor = {
    set(key: string, value: string) {
      if (!inRange(key)) return undefined;
      store.restoreEntry(key, value);
      return store.maybeFlush();
    },
    delete(key: string) {
      if (!inRange(key)) return undefined;
      store.restoreEntry(key, undefined);
      return store.maybeFlush();
    },
    drop(gte: string, lt: string) {
      return inRange(gte) ? store.restoreDrop(gte, lt) : undefined;
    },
  };
  for (const handle of handles) {
    if (handle.keyGroups.end < range.start || handle.keyGroups.start > range.end) continue;
    const files = [...(handle.base ? [handle.base] : []), ...handle.changes];
    for (const file of files) await readStateFile(storage.absolute(file), visitor, file.path);
  }
  await store.flush();
}
