// sink.collect's writer: one per subtask. It appends the records since the last barrier to its
// staged file and, at the next barrier, closes the file (synced) and hands its name on as the
// committable. It shares nothing with the committer but names (see collectFiles.ts).
import { type FileHandle, mkdir, open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { ConnectorState } from '../../../engine/runtime/connectorState.js';
import type { Envelope } from '../../../engine/runtime/envelope.js';
import type { Committable, SinkWriter } from '../../../engine/runtime/sink.js';
import { COMMITTED, STAGING, stagedName } from './collectFiles.js';

export const COLLECT_KIND = 'sink.collect';

/** Pending text is written out past this size (between barriers it stays in memory). */
const FLUSH_AT = 64 * 1024;

/** What a writer's committable holds: a staged file, by name. */
export interface StagedFile {
  readonly name: string;
  readonly bytes: number;
}

interface OpenStage {
  readonly name: string;
  readonly handle: Promise<FileHandle>;
  bytes: number;
}

export class CollectWriter implements SinkWriter {
  private stage: OpenStage | undefined;
  private pending = '';
  /** Writes to the staged file, one after another; its failure surfaces at the barrier. */
  private writing: Promise<void> = Promise.resolve();
  /** What endInput closed, until a checkpoint (or the job's end) takes it. */
  private closedAtEnd: Promise<StagedFile | undefined> | undefined;
  private finished = false;

  constructor(
    private readonly dir: string,
    private readonly subtask: number,
    /** The id of the first checkpoint this run takes: the first staged file's epoch. */
    private epoch: number,
  ) {}

  async open(): Promise<void> {
    await mkdir(join(this.dir, STAGING), { recursive: true });
    await mkdir(join(this.dir, COMMITTED), { recursive: true });
  }

  write(envelope: Envelope): void | Promise<void> {
    const line = JSON.stringify(envelope.value);
    if (line === undefined) throw new TypeError(`the record is not a JSON value (${typeof envelope.value})`);
    this.pending += `${line}\n`;
    if (this.pending.length >= FLUSH_AT) return this.flush();
  }

  private flush(): Promise<void> {
    if (this.pending === '') return this.writing;
    const data = Buffer.from(this.pending, 'utf8');
    this.pending = '';
    if (this.stage === undefined) {
      const name = stagedName(this.epoch, this.subtask);
      const handle = open(join(this.dir, STAGING, name), 'w');
      handle.catch(() => {});
      this.stage = { name, handle, bytes: 0 };
    }
    const stage = this.stage;
    stage.bytes += data.length;
    this.writing = this.writing.then(async () => {
      await (await stage.handle).write(data);
    });
    this.writing.catch(() => {});
    return this.writing;
  }

  /** Closes what was written since the last barrier: its staged file, once durable (none if empty). */
  private closeStage(): Promise<StagedFile | undefined> {
    const writing = this.flush();
    const stage = this.stage;
    this.stage = undefined;
    if (stage === undefined) return writing.then(() => undefined);
    return writing.then(async () => {
      const handle = await stage.handle;
      await handle.sync();
      await handle.close();
      return { name: stage.name, bytes: stage.bytes };
    });
  }

  prepareCommit(checkpointId: number | undefined): Promise<Committable | undefined> | undefined {
    let closed: Promise<StagedFile | undefined> | undefined;
    if (this.finished) {
      // After endInput: the first checkpoint (or the end of the job) takes what it closed.
      closed = this.closedAtEnd;
      this.closedAtEnd = undefined;
    } else if (checkpointId !== undefined) {
      closed = this.closeStage();
      this.epoch = checkpointId + 1;
    }
    return closed?.then((staged) => (staged === undefined ? undefined : committable(staged)));
  }

  async endInput(): Promise<void> {
    this.finished = true;
    this.closedAtEnd = this.closeStage();
    await this.closedAtEnd;
  }

  async abort(): Promise<void> {
    await this.writing.catch(() => {});
    const stage = this.stage;
    this.stage = undefined;
    if (stage === undefined) return;
    await (await stage.handle.catch(() => undefined))?.close().catch(() => {});
    // Staged files a checkpoint names stay for a restore; the one still open goes.
    await rm(join(this.dir, STAGING, stage.name), { force: true });
  }
}

function committable(staged: StagedFile): Committable {
  const state: ConnectorState = { kind: COLLECT_KIND, payload: { name: staged.name } };
  return { state, bytes: staged.bytes };
}
