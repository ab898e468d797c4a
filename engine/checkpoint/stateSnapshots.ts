// Keyed state into checkpoints and back. On LevelDB a checkpoint persists what changed: every
// batch the write-back cache flushes is also appended to a changelog, and a checkpoint closes
// the changelog segment since the previous one. A full copy (the base) is taken again when the
// changes since the last one outgrow it, so restore reads a bounded amount. The heap backend is
// copied whole each time.
import type { KvStore } from '../state/kvStore.js';
import { MemoryKvStore } from '../state/memoryKvStore.js';
import { keyGroupOfStoreKey } from '../state/stateKeys.js';
import type { FileRef, StateHandle } from './checkpointMetadata.js';
import type { CheckpointStorage, DataFileWriter } from './checkpointStorage.js';

/**
 * A changelog (or base) line, as JSON text: [key, value] sets (the value is the state's own
 * JSON, written as it is rather than escaped into a string), [key] deletes, [gte, lt, 0]
 * deletes a range.
 */
type ChangeLine = string;

const setLine = (key: string, value: string): ChangeLine => `[${JSON.stringify(key)},${value}]`;
const deleteLine = (key: string): ChangeLine => `[${JSON.stringify(key)}]`;
const dropLine = (gte: string, lt: string): ChangeLine => `[${JSON.stringify(gte)},${JSON.stringify(lt)},0]`;

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

/** A batch as the store flushed it: its writes, then the ranges it dropped. */
interface FlushedBatch {
  readonly batch: ReadonlyMap<string, string | null>;
  readonly dropped: readonly (readonly [string, string])[];
}

/** One changelog file: writes are chained so lines land in the order they were made. */
class Segment {
  private chain: Promise<unknown>;
  private readonly writer: Promise<DataFileWriter>;

  constructor(storage: CheckpointStorage, path: string) {
    this.writer = storage.createDataFile(path);
    this.chain = this.writer;
  }

  /**
   * Writes flushed batches in order. Their lines are made here, off the subtask's path: a
   * flushed batch never changes again. Later lines win on restore, so nothing is coalesced.
   */
  append(batches: readonly FlushedBatch[]): Promise<unknown> {
    this.chain = this.chain.then(async () => {
      const writer = await this.writer;
      for (const { batch, dropped } of batches) {
        for (const [key, value] of batch) {
          const wait = writer.writeLine(value === null ? deleteLine(key) : setLine(key, value));
          if (wait !== undefined) await wait;
        }
        // A batch's drops apply after its writes, as in LevelDB.
        for (const [gte, lt] of dropped) writer.writeLine(dropLine(gte, lt));
      }
    });
    return this.chain;
  }

  async close(): Promise<FileRef> {
    await this.chain;
    return (await this.writer).close();
  }

  async discard(): Promise<void> {
    await this.chain.catch(() => {});
    await (await this.writer).discard();
  }
}

/**
 * A new base is taken when the changes since the last one outgrow it this many times: a
 * restore then reads at most about three times the state, and a job whose every key keeps
 * changing does not copy its whole state at every other checkpoint.
 */
const BASE_AFTER_CHANGES = 2;

/** Flushed entries kept (by reference) before they are written to the changelog. */
const SPILL_ENTRIES = 65536;

export class StateSnapshots {
  private segment: Segment | undefined;
  /** Batches flushed since the last spill, in order. */
  private batches: FlushedBatch[] = [];
  private batchedEntries = 0;
  private base: FileRef | undefined;
  private changes: FileRef[] = [];
  private nextSegmentId: number;

  constructor(
    private readonly storage: CheckpointStorage,
    private readonly operator: string,
    private readonly subtask: number,
    private readonly store: KvStore,
    private readonly keyGroups: { start: number; end: number },
    firstCheckpointId: number,
  ) {
    this.nextSegmentId = firstCheckpointId;
    if (!(store instanceof MemoryKvStore)) {
      store.onFlush = (batch, dropped) => {
        this.batches.push({ batch, dropped });
        this.batchedEntries += batch.size + dropped.length;
        // Many changes go to disk as they come, not all at the barrier.
        if (this.batchedEntries >= SPILL_ENTRIES) this.currentSegment().append(this.takeBatches());
      };
    }
  }

  private takeBatches(): FlushedBatch[] {
    const batches = this.batches;
    this.batches = [];
    this.batchedEntries = 0;
    return batches;
  }

  private currentSegment(): Segment {
    this.segment ??= new Segment(
      this.storage,
      this.storage.dataPath(this.operator, this.subtask, `changes-${this.nextSegmentId}.jsonl`),
    );
    return this.segment;
  }

  /**
   * At the barrier. Changes since the last checkpoint go to the changelog at once; a new base
   * needs LevelDB to hold every batch first (a short wait) and is then read from a snapshot
   * while records keep flowing.
   */
  snapshot(checkpointId: number, size: { entries: number; bytes: number }): PendingStateSnapshot {
    this.store.flushNow?.();
    const changesBytes = this.changes.reduce((n, ref) => n + ref.bytes, 0);
    const needBase =
      this.store instanceof MemoryKvStore ||
      this.base === undefined ||
      changesBytes > BASE_AFTER_CHANGES * this.base.bytes;
    // With a new base the batches are simply dropped: it holds every change they made.
    const batches = this.takeBatches();
    const segment = needBase ? this.segment : this.currentSegment();
    this.segment = undefined;
    this.nextSegmentId = checkpointId + 1;
    if (needBase) {
      const entries = this.store.snapshotEntries();
      const written = (async () => {
        await segment?.discard();
        return this.writeBase(checkpointId, await entries, size);
      })();
      return { taken: entries.then(() => {}), written };
    }
    const written = (async () => {
      segment!.append(batches);
      const ref = await segment!.close();
      this.changes = [...this.changes, ref];
      return { handle: this.handle(size), persistedBytes: ref.bytes };
    })();
    return { taken: Promise.resolve(), written };
  }

  private async writeBase(
    checkpointId: number,
    entries: Iterable<[string, string]> | AsyncIterable<[string, string]>,
    size: { entries: number; bytes: number },
  ): Promise<StateSnapshotResult> {
    const writer = await this.storage.createDataFile(
      this.storage.dataPath(this.operator, this.subtask, `base-${checkpointId}.jsonl`),
    );
    for await (const entry of entries) {
      const wait = writer.writeLine(setLine(entry[0], entry[1]));
      if (wait !== undefined) await wait;
    }
    this.base = await writer.close();
    this.changes = [];
    return { handle: this.handle(size), persistedBytes: this.base.bytes };
  }

  private handle(size: { entries: number; bytes: number }): StateHandle {
    return {
      ...(this.base === undefined ? {} : { base: this.base }),
      changes: this.changes,
      keyGroups: this.keyGroups,
      entries: size.entries,
      bytes: size.bytes,
    };
  }

  async discard(): Promise<void> {
    await this.segment?.discard();
  }
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
  for (const handle of handles) {
    if (handle.keyGroups.end < range.start || handle.keyGroups.start > range.end) continue;
    const files = [...(handle.base ? [handle.base] : []), ...handle.changes];
    for (const file of files) {
      for await (const raw of storage.readLines(file)) {
        const line = raw as [key: string, value?: unknown, range?: 0];
        if (!inRange(line[0])) continue;
        if (line[2] === 0) await store.restoreDrop(line[0], line[1] as string);
        else store.restoreEntry(line[0], line.length === 1 ? undefined : JSON.stringify(line[1]));
        const wait = store.maybeFlush();
        if (wait !== undefined) await wait;
      }
    }
  }
  await store.flush();
}
