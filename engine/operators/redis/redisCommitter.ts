// sink.redis's committer: a checkpoint's entries and the marker of that checkpoint go to Redis in
// one MULTI/EXEC, under WATCH of the marker, so that a commit done twice (a restore redoing it, a
// retry after a reply lost with the connection) adds nothing the second time.
//
// The marker holds, per run lineage (a random id made at a fresh start, kept in every checkpoint's
// commit and taken back by a restore), the last checkpoint committed. What a commit writes is a
// list of segments, each the subtasks' parts one checkpoint prepared: the checkpoint's own and
// those of earlier checkpoints that failed before completing (the checkpoint that completes next
// commits them). A segment prepared at checkpoint p is in every commit from p on until one
// succeeds, so a marker at m means every segment prepared at or before m is in the stream: a
// commit writes only the segments prepared after the marker, then moves the marker to its own id.
import { randomUUID } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { WatchError } from 'redis';
import { JobError } from '../../graph/jobError.js';
import type { CheckpointFiles, FileRef } from '../../runtime/checkpointFiles.js';
import type { ConnectorState } from '../../runtime/connectorState.js';
import type { SinkCommitter } from '../../runtime/sink.js';
import type { RedisConnection } from './redisConnection.js';
import { assertStreamOrNone, markerKey } from './redisSinkStream.js';
import { type RedisPart, SINK_KIND } from './redisSinkWriter.js';

/** The marker of a lineage whose bounded job ended: nothing after it is written again. */
const ENDED = 'end';
/** The segment of the writers' last parts at the end of a bounded job (after every checkpoint). */
const AT_END = Number.MAX_SAFE_INTEGER;

interface Segment {
  /** The checkpoint that prepared these parts (AT_END: the end of the job). */
  readonly prepared: number;
  /** By subtask. */
  readonly parts: readonly RedisPart[];
}

export interface RedisCommit {
  readonly stream: string;
  readonly lineage: string;
  /** The checkpoint whose completion commits this (its id goes into the marker). */
  readonly checkpoint: number;
  readonly segments: readonly Segment[];
}

function markerValue(text: string | null | undefined): number {
  if (text === null || text === undefined) return 0;
  return text === ENDED ? Number.POSITIVE_INFINITY : Number(text);
}

export class RedisCommitter implements SinkCommitter {
  /** A fresh start's lineage; a restore replaces it with the checkpoint's. */
  private lineage: string = randomUUID();
  /** Segments prepared and not committed yet, oldest first. */
  private pending: Segment[] = [];

  constructor(
    private readonly connection: RedisConnection,
    private readonly stream: string,
    private readonly storage: CheckpointFiles | undefined,
  ) {}

  private get field(): string {
    return `${this.connection.operatorId}:${this.lineage}`;
  }

  async prepare(checkpointId: number, committables: readonly ConnectorState[]): Promise<ConnectorState> {
    if (committables.length > 0)
      this.pending.push({ prepared: checkpointId, parts: committables.map((c) => c.payload as RedisPart) });
    // Always a commit, empty or not: the checkpoint keeps the lineage for a restore.
    const commit: RedisCommit = {
      stream: this.stream,
      lineage: this.lineage,
      checkpoint: checkpointId,
      segments: [...this.pending],
    };
    const files = this.pending.flatMap((s) => s.parts.flatMap((p) => ('file' in p ? [p.file] : [])));
    return { kind: SINK_KIND, payload: commit, ...(files.length > 0 ? { files } : {}) };
  }

  async commit(state: ConnectorState): Promise<void> {
    const commit = state.payload as RedisCommit;
    await this.apply(commit.segments, commit.checkpoint, String(commit.checkpoint));
    this.pending = this.pending.filter((s) => s.prepared > commit.checkpoint);
  }

  async commitRemaining(last: readonly ConnectorState[]): Promise<void> {
    const parts = last.map((c) => c.payload as RedisPart);
    const segments = parts.length > 0 ? [...this.pending, { prepared: AT_END, parts }] : this.pending;
    await this.apply(segments, Number.POSITIVE_INFINITY, ENDED);
    this.pending = [];
    // No checkpoint names the end's files: they are in the stream now.
    for (const part of parts) if ('file' in part) await rm(this.locate(part.file), { force: true });
  }

  /** The run ended otherwise than through commitRemaining: its connection goes. */
  async close(): Promise<void> {
    this.connection.close();
  }

  async recover(state: ConnectorState | undefined, checkpointId: number): Promise<void> {
    if (state === undefined) return;
    const commit = state.payload as RedisCommit;
    this.lineage = commit.lineage;
    this.pending = [];
    const marker = await this.connection.run(`reading what stream "${this.stream}" holds`, (client) =>
      client.hGet(markerKey(this.stream), this.field),
    );
    const committed = markerValue(marker);
    if (Number.isFinite(committed) && committed > checkpointId) {
      this.connection.release();
      throw new JobError(
        `operator "${this.connection.operatorId}": stream "${this.stream}" already holds what this job committed up to checkpoint ${committed}, after checkpoint ${checkpointId}: restoring ${checkpointId} would write those entries again (restore the latest checkpoint)`,
        this.connection.operatorId,
      );
    }
    // A lineage that ended has everything in the stream: a restored run adds nothing.
    await this.apply(commit.segments, checkpointId, String(checkpointId));
  }

  /**
   * Writes the segments prepared after the marker and moves the marker to `value`, in one
   * MULTI/EXEC; nothing when the marker is at `upTo` or beyond (done already).
   */
  private async apply(segments: readonly Segment[], upTo: number, value: string): Promise<void> {
    const entries = await Promise.all(segments.map((s) => this.entriesOf(s)));
    const key = markerKey(this.stream);
    const what = Number.isFinite(upTo) ? `checkpoint ${upTo}` : 'the end of the job';
    try {
      await this.connection.run(`committing ${what} to stream "${this.stream}"`, async (client) => {
        for (;;) {
          await client.watch(key);
          const committed = markerValue(await client.hGet(key, this.field));
          if (committed >= upTo) {
            await client.unwatch();
            return;
          }
          await assertStreamOrNone(client, this.connection, this.stream);
          const multi = client.multi();
          segments.forEach((segment, i) => {
            if (segment.prepared <= committed) return;
            for (const line of entries[i]!) multi.xAdd(this.stream, '*', { json: line });
          });
          multi.hSet(key, this.field, value);
          try {
            await multi.exec();
            return;
          } catch (error) {
            // Someone else's commit moved the marker hash between WATCH and EXEC: read it again.
            if (error instanceof WatchError) continue;
            throw error;
          }
        }
      });
    } finally {
      this.connection.release();
    }
  }

  private async entriesOf(segment: Segment): Promise<string[]> {
    const lines: string[] = [];
    for (const part of segment.parts) {
      if ('entries' in part) {
        lines.push(...part.entries);
        continue;
      }
      const text = await readFile(this.locate(part.file), 'utf8');
      const read = text.split('\n');
      read.pop();
      if (read.length !== part.count)
        throw new JobError(
          `operator "${this.connection.operatorId}": checkpoint file ${part.file.path} holds ${read.length} entries, not the ${part.count} it was written with`,
          this.connection.operatorId,
        );
      lines.push(...read);
    }
    return lines;
  }

  private locate(ref: FileRef): string {
    if (this.storage === undefined) throw new Error(`sink.redis: no checkpoint folder for ${ref.path}`);
    return this.storage.absolute(ref);
  }
}
