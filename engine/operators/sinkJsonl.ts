// sink.jsonl: exactly-once output by two-phase commit. Each subtask writes its output into
// part files, one per checkpoint interval. At a barrier the part is closed (pre-commit); when
// the checkpoint completes, its parts are appended to the target in subtask order (commit, see
// sinkTarget.ts). At the end of a bounded job every remaining part is published. The writer
// (a subtask's) and the committer (the operator's) share the operator's SinkTarget. A checkpoint
// folder that stops taking files mid-run does not lose output: the next part goes beside the
// target instead, and the first checkpoint that can copies it in; until then the checkpoints
// fail and the job goes on.
import { createHash, type Hash } from 'node:crypto';
import { access, type FileHandle, mkdir, open, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { ParamsOf } from '../graph/schema.js';
import type { FileRef } from '../runtime/checkpointFiles.js';
import type { ConnectorState } from '../runtime/connectorState.js';
import type { Envelope } from '../runtime/envelope.js';
import { JsonTextEnvelope } from '../runtime/jsonTextEnvelope.js';
import type { SubtaskEnvironment } from '../runtime/operatorLogic.js';
import type { Committable, SinkCommitter, SinkWriter } from '../runtime/sink.js';
import { checkWritable, isFileFault } from '../state/fileFault.js';
import type { MaybePromise } from '../state/maybePromise.js';
import type { KindFactory } from './kindFactory.js';
import { type ClosedPart, type JsonlCommit, SinkTarget, type TargetProgress } from './sinkTarget.js';

const KIND = 'sink.jsonl';

export const sinkJsonlFactory: KindFactory = {
  role: 'sink',
  writesJsonText: true,
  createSink: ({ planned, jobDir, checkpoints }) => {
    const operator = planned.operator;
    const target = new SinkTarget(
      operator.id,
      jobDir,
      operator.params as ParamsOf<'sink.jsonl'>,
      checkpoints?.files,
    );
    return {
      createWriter: (env) => new JsonlSinkWriter(env, target, checkpoints?.firstId ?? 0),
      committer: new JsonlCommitter(target),
    };
  },
};

/** Publishes the parts into the target; a checkpoint keeps what it publishes as a JsonlCommit. */
export class JsonlCommitter implements SinkCommitter {
  constructor(private readonly target: SinkTarget) {}

  async prepare(checkpointId: number): Promise<ConnectorState> {
    // Parts an earlier checkpoint could not take into the checkpoint folder come in now.
    await this.target.adoptParts(checkpointId);
    const commit = this.target.commitFor(checkpointId);
    return { kind: KIND, payload: commit, files: commit.parts };
  }

  commit(commit: ConnectorState): Promise<void> {
    return this.target.publish(commit.payload as JsonlCommit);
  }

  commitRemaining(): Promise<void> {
    return this.target.publishRemaining();
  }

  async recover(commit: ConnectorState | undefined, checkpointId: number): Promise<void> {
    if (commit === undefined) return;
    await this.target.recover(commit.payload as JsonlCommit, checkpointId);
  }
}

const WRITE_AT = 1 << 20;

/** A sink subtask between two steps of a debug run: its open part as far as it was written. */
interface SinkProgress {
  readonly epoch: number;
  readonly finished: boolean;
  readonly pending: string;
  readonly part:
    | { readonly location: OpenPart['location']; readonly bytes: number; readonly hash: Hash }
    | undefined;
  readonly target: TargetProgress;
}
/** One part file being written, with its checksum kept as it grows. */
interface OpenPart {
  /** Where the part is: in the checkpoint folder, or beside the target once that refused it. */
  location: { absolute: string; relative: string };
  readonly handle: Promise<FileHandle>;
  readonly hash: Hash;
  bytes: number;
}

export class JsonlSinkWriter implements SinkWriter {
  private part: OpenPart | undefined;
  private epoch: number;
  private pending = '';
  private writing: Promise<void> = Promise.resolve();
  private finished = false;

  constructor(
    private readonly env: SubtaskEnvironment,
    private readonly target: SinkTarget,
    firstEpoch: number,
  ) {
    this.epoch = firstEpoch;
  }

  async open(): Promise<void> {
    // With checkpoints nothing goes to the output folder before the first publication: a run
    // that could never publish is refused now, not at its end.
    await checkWritable('output', dirname(this.target.path), { operator: this.env.operator.id });
    await this.target.sweepOutside();
    await this.openPart(false).handle;
  }

  /**
   * Opens the part of the current epoch. After a barrier (`moveAside`), a checkpoint folder
   * that refuses it does not stop the output: the part goes beside the target (see SinkTarget.adopt).
   */
  private openPart(moveAside: boolean): OpenPart {
    const { subtask } = this.env;
    const location = this.target.partLocation(subtask, this.epoch);
    const aside =
      moveAside && this.target.storage !== undefined
        ? this.target.outsideLocation(subtask, this.epoch)
        : undefined;
    const part: OpenPart = {
      location,
      handle: this.createPart(location.absolute, aside?.absolute, () => {
        part.location = aside!;
      }),
      hash: createHash('sha256'),
      bytes: 0,
    };
    part.handle.catch(() => {});
    this.part = part;
    return part;
  }

  private async createPart(
    path: string,
    aside: string | undefined,
    movedAside: () => void,
  ): Promise<FileHandle> {
    try {
      return await createFile(path);
    } catch (error) {
      if (aside === undefined || !isFileFault(error)) throw this.target.fault(error, path);
    }
    movedAside();
    try {
      return await createFile(aside);
    } catch (error) {
      throw this.target.fault(error, aside);
    }
  }

  write(envelope: Envelope): void | Promise<void> {
    // From another thread it may come as the very text this would make (see JsonTextEnvelope).
    const line = envelope instanceof JsonTextEnvelope ? envelope.text : JSON.stringify(envelope.value);
    if (line === undefined) throw new TypeError(`the record is not a JSON value (${typeof envelope.value})`);
    this.pending += `${line}\n`;
    if (this.pending.length >= WRITE_AT) return this.flush();
  }

  /** One write in flight; the next waits for it, which is the sink's backpressure. */
  private flush(): Promise<void> {
    const previous = this.writing;
    const part = this.part!;
    const data = Buffer.from(this.pending, 'utf8');
    this.pending = '';
    part.hash.update(data);
    part.bytes += data.length;
    const next = previous.then(async () => {
      const handle = await part.handle;
      try {
        // A full disk writes what fits and says so; the rest must not be dropped unseen.
        for (let at = 0; at < data.length; )
          at += (await handle.write(data, at, data.length - at)).bytesWritten;
      } catch (error) {
        throw this.target.fault(error, part.location.absolute);
      }
    });
    this.writing = next;
    // The failure is reported where `writing` is awaited; this only marks it as handled.
    next.catch(() => {});
    return previous;
  }

  /** Closes the current part (what was written since the last barrier) and hands it on. */
  private closePart(epoch: number | undefined): ClosedPart {
    this.flush();
    const part = this.part!;
    const writing = this.writing;
    this.part = undefined;
    const closing = (async () => {
      const handle = await part.handle;
      try {
        await writing;
        await handle.sync();
      } catch (error) {
        // The part is closed all the same (its records are lost; the checkpoint or the run fails).
        await handle.close().catch(() => {});
        throw this.target.fault(error, part.location.absolute);
      }
      try {
        await handle.close();
      } catch (error) {
        throw this.target.fault(error, part.location.absolute);
      }
      return { path: part.location.relative, bytes: part.bytes, sha256: part.hash.digest('hex') };
    })();
    const closed: ClosedPart = { subtask: this.env.subtask, opened: this.epoch, epoch, closing };
    this.target.addPart(closed);
    return closed;
  }

  prepareCommit(checkpointId: number | undefined): MaybePromise<Committable | undefined> {
    // The end of the job: the committer publishes every part the target holds.
    if (checkpointId === undefined) return undefined;
    if (this.finished) {
      this.target.assignLeftovers(this.env.subtask, checkpointId);
      return undefined;
    }
    const closed = this.closePart(checkpointId);
    this.epoch = checkpointId + 1;
    this.openPart(true);
    // A part that went beside the target comes into the checkpoint folder, or this checkpoint fails.
    return this.target.adopt(closed).then((ref: FileRef) => ({
      state: { kind: KIND, payload: ref, files: [ref] },
      bytes: ref.bytes,
    }));
  }

  async endInput(): Promise<void> {
    this.finished = true;
    await this.closePart(undefined).closing;
  }

  /** Time travel in debug runs: how far the open part is written, and its checksum by then. */
  progress(): SinkProgress {
    const part = this.part;
    return {
      epoch: this.epoch,
      finished: this.finished,
      pending: this.pending,
      part:
        part === undefined
          ? undefined
          : { location: part.location, bytes: part.bytes, hash: part.hash.copy() },
      target: this.target.progress(),
    };
  }

  /**
   * Back to what progress() gave: the part then open is opened again and cut back to what it
   * held, a part opened since is removed. (Each subtask puts the shared target back the same way.)
   */
  async restoreProgress(progress: unknown): Promise<void> {
    const p = progress as SinkProgress;
    await this.writing.catch(() => {});
    await this.target.restoreProgress(p.target);
    const current = this.part;
    this.part = undefined;
    if (current !== undefined) {
      await (await current.handle.catch(() => undefined))?.close();
      if (current.location.absolute !== p.part?.location.absolute)
        await rm(current.location.absolute, { force: true });
    }
    if (p.part !== undefined) {
      const { location, bytes } = p.part;
      if (bytes > 0) await access(location.absolute);
      // Appending: whatever the handle wrote before, the next write goes where the part was cut.
      const handle = await open(location.absolute, 'a');
      await handle.truncate(bytes);
      this.part = { location, handle: Promise.resolve(handle), hash: p.part.hash.copy(), bytes };
    }
    this.pending = p.pending;
    this.epoch = p.epoch;
    this.finished = p.finished;
    this.writing = Promise.resolve();
  }

  async abort(): Promise<void> {
    await this.writing.catch(() => {});
    const part = this.part;
    this.part = undefined;
    if (part !== undefined) {
      await (await part.handle.catch(() => undefined))?.close().catch(() => {});
      // Parts a checkpoint names stay for a restore; the open one and, without checkpoints, all go.
      await rm(part.location.absolute, { force: true });
    }
    await this.target.discardOutside(this.env.subtask);
    await rm(join(dirname(this.target.path), `.${basename(this.target.path)}.inprogress`), { force: true });
  }
}

async function createFile(path: string): Promise<FileHandle> {
  await mkdir(dirname(path), { recursive: true });
  return open(path, 'w');
}
