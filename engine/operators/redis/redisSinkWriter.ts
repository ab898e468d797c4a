// sink.redis's writer: a subtask keeps the records it was given since the last barrier, as JSON
// lines, and hands them over at the barrier as its committable. Up to SPILL_BYTES they stay in
// memory and go into the checkpoint's metadata as they are (a small checkpoint costs no file);
// beyond that, with checkpoints on, they go into a file of the checkpoint folder (named in the
// committable's ConnectorState.files, so retention keeps it as long as the checkpoint), which
// bounds the memory a subtask needs however long the interval. Nothing reaches Redis here: the
// committer writes a checkpoint's entries once the checkpoint is complete.
import { createHash, type Hash } from 'node:crypto';
import { type FileHandle, mkdir, open, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { FileRef } from '../../runtime/checkpointFiles.js';
import type { Envelope } from '../../runtime/envelope.js';
import type { SubtaskEnvironment } from '../../runtime/operatorLogic.js';
import type { Committable, SinkWriter } from '../../runtime/sink.js';
import { cannotWrite } from '../../state/fileFault.js';
import type { MaybePromise } from '../../state/maybePromise.js';
import type { RedisConnection } from './redisConnection.js';
import { checkSinkStream } from './redisSinkStream.js';

export const SINK_KIND = 'sink.redis';
/** What a subtask holds in memory before it writes to a file (with checkpoints on). */
export const SPILL_BYTES = 64 * 1024;

/** A subtask's records of one checkpoint interval: in the payload itself, or in a file. */
export type RedisPart =
  | { readonly entries: readonly string[] }
  | { readonly file: FileRef; readonly count: number };

interface SpillFile {
  readonly absolute: string;
  readonly relative: string;
  readonly handle: Promise<FileHandle>;
  readonly hash: Hash;
  bytes: number;
  count: number;
  writing: Promise<void>;
}

export class RedisSinkWriter implements SinkWriter {
  readonly waitsOnWorld = true;
  private lines: string[] = [];
  private bytes = 0;
  private file: SpillFile | undefined;
  private epoch: number;

  constructor(
    private readonly env: SubtaskEnvironment,
    private readonly connection: RedisConnection,
    private readonly stream: string,
    firstEpoch: number,
  ) {
    this.epoch = firstEpoch;
  }

  async open(): Promise<void> {
    // One subtask asks: a key of another type fails the job before it has read anything.
    if (this.env.subtask !== 0) return;
    try {
      await checkSinkStream(this.connection, this.stream);
    } finally {
      this.connection.release();
    }
  }

  write(envelope: Envelope): void | Promise<void> {
    const line = JSON.stringify(envelope.value);
    if (line === undefined) throw new TypeError(`the record is not a JSON value (${typeof envelope.value})`);
    this.lines.push(line);
    this.bytes += line.length;
    if (this.bytes >= SPILL_BYTES && this.env.checkpoints !== undefined) return this.spill();
  }

  /** Appends the lines held to the interval's file; the next write waits for it (backpressure). */
  private spill(): Promise<void> {
    if (this.file === undefined) this.file = this.openFile();
    const file = this.file;
    const data = Buffer.from(`${this.lines.join('\n')}\n`, 'utf8');
    file.count += this.lines.length;
    this.lines = [];
    this.bytes = 0;
    file.hash.update(data);
    file.bytes += data.length;
    const previous = file.writing;
    file.writing = previous.then(async () => {
      try {
        await (await file.handle).write(data);
      } catch (error) {
        throw cannotWrite('checkpoint', this.env.checkpoints!.root, error, {
          operator: this.env.operator.id,
          file: file.absolute,
        });
      }
    });
    file.writing.catch(() => {});
    return previous;
  }

  private openFile(): SpillFile {
    const storage = this.env.checkpoints!;
    const relative = storage.dataPath(this.env.operator.id, this.env.subtask, `entries-${this.epoch}.jsonl`);
    const absolute = storage.absolute(relative);
    const handle = mkdir(dirname(absolute), { recursive: true }).then(() => open(absolute, 'w'));
    handle.catch(() => {});
    return {
      absolute,
      relative,
      handle,
      hash: createHash('sha256'),
      bytes: 0,
      count: 0,
      writing: handle.then(() => {}),
    };
  }

  prepareCommit(checkpointId: number | undefined): MaybePromise<Committable | undefined> {
    if (checkpointId !== undefined) this.epoch = checkpointId + 1;
    if (this.file === undefined) {
      if (this.lines.length === 0) return undefined;
      const entries = this.lines;
      const bytes = this.bytes;
      this.lines = [];
      this.bytes = 0;
      return Promise.resolve({ state: { kind: SINK_KIND, payload: { entries } satisfies RedisPart }, bytes });
    }
    if (this.lines.length > 0) this.spill();
    const file = this.file;
    this.file = undefined;
    return (async () => {
      await file.writing;
      const handle = await file.handle;
      try {
        await handle.sync();
        await handle.close();
      } catch (error) {
        throw cannotWrite('checkpoint', this.env.checkpoints!.root, error, {
          operator: this.env.operator.id,
          file: file.absolute,
        });
      }
      const ref: FileRef = { path: file.relative, bytes: file.bytes, sha256: file.hash.digest('hex') };
      const part: RedisPart = { file: ref, count: file.count };
      return { state: { kind: SINK_KIND, payload: part, files: [ref] }, bytes: file.bytes };
    })();
  }

  /** What is held goes with the next checkpoint, or to the committer at the end of the job. */
  async endInput(): Promise<void> {}

  async abort(): Promise<void> {
    this.connection.close();
    this.lines = [];
    const file = this.file;
    this.file = undefined;
    if (file === undefined) return;
    await file.writing.catch(() => {});
    await (await file.handle.catch(() => undefined))?.close().catch(() => {});
    // No checkpoint names it: the interval it held was never taken.
    await rm(file.absolute, { force: true });
  }
}
