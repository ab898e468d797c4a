// sink.jsonl: exactly-once output by two-phase commit. Each subtask writes its output into
// part files, one per checkpoint interval. At a barrier the part is closed (pre-commit); when
// the checkpoint completes, its parts are appended to the target in subtask order (commit).
// The checkpoint's metadata, written before that, says how long the target was and which parts
// follow, so a restore can redo the commit exactly and cut off what was never committed. At the
// end of a bounded job every remaining part is published. The first publication of a run
// replaces the target in one step, so a run that fails before publishing leaves it as it was.
import { createHash, type Hash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { access, type FileHandle, mkdir, open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { FileRef, SinkCommit } from '../checkpoint/checkpointMetadata.js';
import type { CheckpointStorage } from '../checkpoint/checkpointStorage.js';
import type { ParamsOf } from '../graph/schema.js';
import type { Envelope } from '../runtime/envelope.js';
import { JobError } from '../runtime/jobError.js';
import { BaseLogic, type OperatorSnapshot, type SubtaskEnvironment } from '../runtime/operatorLogic.js';

const WRITE_AT = 1 << 20;

interface ClosedPart {
  readonly subtask: number;
  /** The checkpoint that publishes it; undefined until one is taken after the part closed. */
  epoch: number | undefined;
  readonly closing: Promise<FileRef>;
  ref?: FileRef;
}

/** A sink's target between two steps of a debug run (time travel). */
interface TargetProgress {
  readonly parts: readonly ClosedPart[];
  readonly publishedLength: number;
  readonly subtasksDone: number;
}

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

/** What the subtasks of one sink operator share: the target and the parts waiting for it. */
export class SinkTarget {
  readonly path: string;
  private parts: ClosedPart[] = [];
  /** Length of the target as published by this run; -1 until the first publication. */
  private publishedLength = -1;
  private subtasksDone = 0;

  constructor(
    readonly operatorId: string,
    jobDir: string,
    params: ParamsOf<'sink.jsonl'>,
    readonly parallelism: number,
    readonly storage: CheckpointStorage | undefined,
  ) {
    this.path = resolve(jobDir, params.path);
  }

  /** A restore has re-published the target: later commits append after it. */
  continueAfter(length: number): void {
    this.publishedLength = length;
  }

  /** Where a part goes: with checkpoints in their data folder, else hidden beside the target. */
  partLocation(subtask: number, epoch: number): { absolute: string; relative: string } {
    if (this.storage !== undefined) {
      const relative = this.storage.dataPath(this.operatorId, subtask, `part-${epoch}.jsonl`);
      return { absolute: this.storage.absolute(relative), relative };
    }
    const absolute = join(dirname(this.path), `.${basename(this.path)}.part-${subtask}.inprogress`);
    return { absolute, relative: absolute };
  }

  addPart(part: ClosedPart): void {
    part.closing.then((ref) => {
      part.ref = ref;
    });
    this.parts.push(part);
  }

  /** A finished subtask has no barrier to close its last part at: the next checkpoint takes it. */
  assignLeftovers(subtask: number, epoch: number): void {
    for (const part of this.parts)
      if (part.subtask === subtask && part.epoch === undefined) part.epoch = epoch;
  }

  /** What checkpoint `id` publishes: every part assigned to it or an earlier one, in order. */
  commitFor(id: number): SinkCommit {
    const parts = this.parts.filter((p) => p.epoch !== undefined && p.epoch <= id);
    return {
      operator: this.operatorId,
      path: this.path,
      committedLength: this.publishedLength,
      parts: ordered(parts),
    };
  }

  /** Publishes a checkpoint's parts (as `commitFor` listed them) and forgets them. */
  async publish(commit: SinkCommit): Promise<void> {
    this.publishedLength = await publishParts(commit, (ref) => this.resolvePart(ref));
    const published = new Set(commit.parts.map((r) => r.path));
    this.parts = this.parts.filter((p) => p.ref === undefined || !published.has(p.ref.path));
  }

  private resolvePart(ref: FileRef): string {
    return this.storage === undefined ? ref.path : this.storage.absolute(ref);
  }

  progress(): TargetProgress {
    return { parts: [...this.parts], publishedLength: this.publishedLength, subtasksDone: this.subtasksDone };
  }

  /**
   * Back to what progress() gave. Parts closed since are forgotten once their files are closed
   * (a replay writes them again). A part whose file is gone (the end of the job published and
   * removed it) cannot come back: that throws, and the debugger replays from the start.
   */
  async restoreProgress(progress: TargetProgress): Promise<void> {
    const kept = new Set(progress.parts);
    await Promise.allSettled(this.parts.filter((p) => !kept.has(p)).map((p) => p.closing));
    for (const part of progress.parts) {
      const ref = part.ref ?? (await part.closing);
      await access(this.resolvePart(ref));
    }
    this.parts = [...progress.parts];
    // The next publication cuts the target back to this length before it appends.
    this.publishedLength = progress.publishedLength;
    this.subtasksDone = progress.subtasksDone;
  }

  /** End of a bounded job: each subtask says so; the last publishes everything left. */
  async subtaskDone(): Promise<void> {
    this.subtasksDone++;
    if (this.subtasksDone < this.parallelism) return;
    await Promise.all(this.parts.map((p) => p.closing));
    for (const part of this.parts) part.epoch ??= Number.POSITIVE_INFINITY;
    const commit = this.commitFor(Number.POSITIVE_INFINITY);
    await this.publish(commit);
    // No checkpoint names these: they are published and done with.
    for (const ref of commit.parts) await rm(this.resolvePart(ref), { force: true });
  }
}

function ordered(parts: ClosedPart[]): FileRef[] {
  return [...parts]
    .sort((a, b) => (a.epoch! === b.epoch! ? a.subtask - b.subtask : a.epoch! < b.epoch! ? -1 : 1))
    .map((p) => {
      if (p.ref === undefined) throw new Error(`a part of sink "${p.subtask}" is not closed yet`);
      return p.ref;
    });
}

/**
 * Makes the target hold exactly: its first `committedLength` bytes, then the parts. Doing it
 * twice gives the same file, which is what makes re-committing on restore safe. Returns the
 * new length.
 */
export async function publishParts(commit: SinkCommit, locate: (ref: FileRef) => string): Promise<number> {
  await mkdir(dirname(commit.path), { recursive: true });
  const replace = commit.committedLength < 0;
  const destination = replace
    ? join(dirname(commit.path), `.${basename(commit.path)}.inprogress`)
    : commit.path;
  if (!replace) {
    const handle = await open(commit.path, 'a+');
    try {
      await handle.truncate(commit.committedLength);
    } finally {
      await handle.close();
    }
  }
  const out = createWriteStream(destination, { flags: replace ? 'w' : 'a' });
  for (const ref of commit.parts) await pipeline(createReadStream(locate(ref)), out, { end: false });
  await new Promise<void>((done, fail) => out.end((error?: Error | null) => (error ? fail(error) : done())));
  const handle = await open(destination, 'r+');
  let length: number;
  try {
    await handle.sync();
    length = (await handle.stat()).size;
  } finally {
    await handle.close();
  }
  if (replace) await rename(destination, commit.path);
  return length;
}

/** One part file being written, with its checksum kept as it grows. */
interface OpenPart {
  readonly location: { absolute: string; relative: string };
  readonly handle: Promise<FileHandle>;
  readonly hash: Hash;
  bytes: number;
}

export class JsonlSinkLogic extends BaseLogic {
  private part: OpenPart | undefined;
  private epoch: number;
  private pending = '';
  private writing: Promise<void> = Promise.resolve();
  private finished = false;

  constructor(
    env: SubtaskEnvironment,
    private readonly target: SinkTarget,
    firstEpoch: number,
  ) {
    super(env);
    this.epoch = firstEpoch;
  }

  override async open(): Promise<void> {
    await this.openPart().handle;
  }

  private openPart(): OpenPart {
    const location = this.target.partLocation(this.env.subtask, this.epoch);
    const handle = (async () => {
      try {
        await mkdir(dirname(location.absolute), { recursive: true });
        return await open(location.absolute, 'w');
      } catch (error) {
        throw new JobError(
          `operator "${this.env.operator.id}" cannot write its output ${this.target.path}: ${(error as Error).message}`,
          this.env.operator.id,
        );
      }
    })();
    handle.catch(() => {});
    this.part = { location, handle, hash: createHash('sha256'), bytes: 0 };
    return this.part;
  }

  override process(envelope: Envelope): void | Promise<void> {
    const line = JSON.stringify(envelope.value);
    if (line === undefined) throw new TypeError(`the record is not a JSON value (${typeof envelope.value})`);
    this.pending += `${line}\n`;
    if (this.pending.length >= WRITE_AT) return this.write();
  }

  /** One write in flight; the next waits for it, which is the sink's backpressure. */
  private write(): Promise<void> {
    const previous = this.writing;
    const part = this.part!;
    const data = Buffer.from(this.pending, 'utf8');
    this.pending = '';
    part.hash.update(data);
    part.bytes += data.length;
    const next = previous.then(async () => {
      await (await part.handle).write(data);
    });
    this.writing = next;
    // The failure is reported where `writing` is awaited; this only marks it as handled.
    next.catch(() => {});
    return previous;
  }

  /** Closes the current part (what was written since the last barrier) and hands it on. */
  private closePart(epoch: number | undefined): Promise<FileRef> {
    this.write();
    const part = this.part!;
    const writing = this.writing;
    this.part = undefined;
    const closing = (async () => {
      await writing;
      const handle = await part.handle;
      await handle.sync();
      await handle.close();
      return { path: part.location.relative, bytes: part.bytes, sha256: part.hash.digest('hex') };
    })();
    this.target.addPart({ subtask: this.env.subtask, epoch, closing });
    return closing;
  }

  override snapshot(checkpointId: number): OperatorSnapshot {
    if (this.finished) {
      this.target.assignLeftovers(this.env.subtask, checkpointId);
      return {};
    }
    const sinkPart = this.closePart(checkpointId);
    this.epoch = checkpointId + 1;
    this.openPart();
    return { sinkPart };
  }

  override async endInput(): Promise<void> {
    this.finished = true;
    await this.closePart(undefined);
  }

  override async commit(): Promise<void> {
    await this.target.subtaskDone();
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

  override async abort(): Promise<void> {
    await this.writing.catch(() => {});
    const part = this.part;
    this.part = undefined;
    if (part !== undefined) {
      await (await part.handle.catch(() => undefined))?.close().catch(() => {});
      // Parts a checkpoint names stay for a restore; the open one and, without checkpoints, all go.
      await rm(part.location.absolute, { force: true });
    }
    await rm(join(dirname(this.target.path), `.${basename(this.target.path)}.inprogress`), { force: true });
  }
}
