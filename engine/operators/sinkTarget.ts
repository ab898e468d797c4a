// The output of one sink.jsonl operator, shared by its subtasks: the parts they have closed, and
// their publication into the target. A checkpoint's metadata says how long the target was and
// which parts follow, so publishing is idempotent: a restore redoes the commit exactly and cuts
// off what was never committed. The first publication of a run replaces the target in one step,
// so a run that fails before publishing leaves it as it was. A part the checkpoint folder
// refused mid-run lives beside the target until a checkpoint can copy it in (adopt).
import { createReadStream } from 'node:fs';
import { access, copyFile, type FileHandle, mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, resolve, sep } from 'node:path';
import { JobError } from '../graph/jobError.js';
import type { ParamsOf } from '../graph/schema.js';
import type { CheckpointFiles, FileRef } from '../runtime/checkpointFiles.js';
import { cannotRead, cannotWrite } from '../state/fileFault.js';
import type { MaybePromise } from '../state/maybePromise.js';

const COPY_CHUNK = 1 << 20;
const NEWLINE = 0x0a;

export interface ClosedPart {
  readonly subtask: number;
  /** The epoch the part was opened in: it names the part's file. */
  readonly opened: number;
  /** The checkpoint that publishes it; undefined until one is taken after the part closed. */
  epoch: number | undefined;
  readonly closing: Promise<FileRef>;
  ref?: FileRef;
  /** Copying it from beside the target into the checkpoint folder (see SinkTarget.adopt). */
  adopting?: Promise<FileRef>;
}

/** What one commit does to the target: a checkpoint's (its metadata keeps it) or the job end's. */
export interface JsonlCommit {
  readonly operator: string;
  /** The sink's target file, absolute. */
  readonly path: string;
  /** Length of the published file before this commit's parts; -1: the parts replace it. */
  readonly committedLength: number;
  /** Parts in order: by the checkpoint that publishes them, then by subtask. */
  readonly parts: readonly FileRef[];
}

/** A sink's target between two steps of a debug run (time travel). */
export interface TargetProgress {
  readonly parts: readonly ClosedPart[];
  readonly publishedLength: number;
}

/** What the subtasks of one sink operator share: the target and the parts waiting for it. */
export class SinkTarget {
  readonly path: string;
  private parts: ClosedPart[] = [];
  /** Length of the target as published by this run; -1 until the first publication. */
  private publishedLength = -1;
  private swept: MaybePromise;

  constructor(
    readonly operatorId: string,
    jobDir: string,
    params: ParamsOf<'sink.jsonl'>,
    readonly storage: CheckpointFiles | undefined,
  ) {
    this.path = resolve(jobDir, params.path);
  }

  /**
   * Restore: redoes checkpoint `checkpointId`'s commit (idempotent: the target is cut back to
   * what it had then, and its parts appended), so that later commits append after it.
   */
  async recover(commit: JsonlCommit, checkpointId: number): Promise<void> {
    // The job's own path now: the job's folder may have moved, or its sink's path changed.
    if (commit.committedLength > 0) {
      const size = await stat(this.path).then(
        (s) => s.size,
        () => 0,
      );
      if (size < commit.committedLength) {
        throw new JobError(
          `operator "${commit.operator}": its output ${this.path} has ${size} bytes, fewer than the ${commit.committedLength} that checkpoint ${checkpointId} had published; it was changed or replaced since, so the restore would not be exact`,
          commit.operator,
        );
      }
    }
    const storage = this.storage;
    this.publishedLength = await publishParts(
      { ...commit, path: this.path },
      (ref) => (storage === undefined || isAbsolute(ref.path) ? ref.path : storage.absolute(ref)),
      (error, part) => this.fault(error, part, 'read'),
    );
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

  /** Where a part goes when the checkpoint folder refuses it: beside the target, named by its absolute path. */
  outsideLocation(subtask: number, epoch: number): { absolute: string; relative: string } {
    const absolute = join(dirname(this.path), `.${basename(this.path)}.part-${subtask}-${epoch}.inprogress`);
    return { absolute, relative: absolute };
  }

  /**
   * Parts a run killed before it could copy them into the checkpoint folder left beside the
   * target: no checkpoint names them, so nothing can need them. Once per run, whichever subtask
   * opens first (the run's lock keeps every other run out).
   */
  sweepOutside(): Promise<void> {
    this.swept ??= (async () => {
      const folder = dirname(this.path);
      const prefix = `.${basename(this.path)}.part-`;
      const names = await readdir(folder).catch(() => [] as string[]);
      for (const name of names) {
        if (name.startsWith(prefix) && /^\d+-\d+\.inprogress$/.test(name.slice(prefix.length)))
          await rm(join(folder, name), { force: true });
      }
    })();
    return this.swept;
  }

  /** The one line for a write (or a read of a part) that failed: in the checkpoint folder or the target's. */
  fault(error: unknown, absolute: string, verb: 'read' | 'write' = 'write'): Error {
    const storage = this.storage;
    const context = { operator: this.operatorId, file: absolute };
    const said = verb === 'read' ? cannotRead : cannotWrite;
    if (storage !== undefined && resolve(absolute).startsWith(resolve(storage.root) + sep))
      return said('checkpoint', storage.root, error, context);
    return said('output', dirname(this.path), error, context);
  }

  addPart(part: ClosedPart): void {
    // A part that could not be written fails where `closing` is awaited (its checkpoint, or the end).
    part.closing.then(
      (ref) => {
        part.ref = ref;
      },
      () => {},
    );
    this.parts.push(part);
  }

  /**
   * A part written beside the target, copied into the checkpoint folder so that a checkpoint
   * can name it; the part's ref as a checkpoint names it. Throws while the folder refuses it
   * (that checkpoint fails), and a later checkpoint tries again.
   */
  adopt(part: ClosedPart): Promise<FileRef> {
    part.adopting ??= (async () => {
      const ref = part.ref ?? (await part.closing);
      const storage = this.storage;
      if (storage === undefined || !isAbsolute(ref.path)) return ref;
      const relative = storage.dataPath(this.operatorId, part.subtask, `part-${part.opened}.adopted.jsonl`);
      const absolute = storage.absolute(relative);
      try {
        await mkdir(dirname(absolute), { recursive: true });
        await copyFile(ref.path, absolute);
        const handle = await open(absolute, 'r+');
        try {
          await handle.sync();
        } finally {
          await handle.close();
        }
      } catch (error) {
        throw cannotWrite('checkpoint', storage.root, error, { file: absolute });
      }
      await rm(ref.path, { force: true });
      part.ref = { ...ref, path: relative };
      return part.ref;
    })();
    part.adopting.catch(() => {
      part.adopting = undefined;
    });
    return part.adopting;
  }

  /** Before checkpoint `id` lists its parts: every one it publishes is in the checkpoint folder. */
  async adoptParts(id: number): Promise<void> {
    for (const part of this.parts) if (part.epoch !== undefined && part.epoch <= id) await this.adopt(part);
  }

  /**
   * A failed run: the parts of a subtask written beside the target go (no checkpoint names
   * them). Without checkpoints that is every part, the closed ones too: a subtask whose input
   * ended before another failed has closed its last one.
   */
  async discardOutside(subtask: number): Promise<void> {
    for (const part of this.parts) {
      if (part.subtask !== subtask || (await part.closing.catch(() => undefined)) === undefined) continue;
      // The others are in the checkpoint folder, where retention lets them go.
      const ref = part.ref;
      if (ref !== undefined && (this.storage === undefined || isAbsolute(ref.path)))
        await rm(ref.path, { force: true });
    }
  }

  /** A finished subtask has no barrier to close its last part at: the next checkpoint takes it. */
  assignLeftovers(subtask: number, epoch: number): void {
    for (const part of this.parts)
      if (part.subtask === subtask && part.epoch === undefined) part.epoch = epoch;
  }

  /** What checkpoint `id` publishes: every part assigned to it or an earlier one, in order. */
  commitFor(id: number): JsonlCommit {
    const parts = this.parts.filter((p) => p.epoch !== undefined && p.epoch <= id);
    return {
      operator: this.operatorId,
      path: this.path,
      committedLength: this.publishedLength,
      parts: ordered(parts),
    };
  }

  /** Publishes a checkpoint's parts (as `commitFor` listed them) and forgets them. */
  async publish(commit: JsonlCommit): Promise<void> {
    this.publishedLength = await publishParts(
      commit,
      (ref) => this.resolvePart(ref),
      (error, part) => this.fault(error, part, 'read'),
    );
    const published = new Set(commit.parts.map((r) => r.path));
    this.parts = this.parts.filter((p) => p.ref === undefined || !published.has(p.ref.path));
  }

  private resolvePart(ref: FileRef): string {
    return this.storage === undefined || isAbsolute(ref.path) ? ref.path : this.storage.absolute(ref);
  }

  progress(): TargetProgress {
    return { parts: [...this.parts], publishedLength: this.publishedLength };
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
  }

  /** End of a bounded job, every subtask done: publishes everything left. */
  async publishRemaining(): Promise<void> {
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
 * new length. `unreadable` words a part that cannot be read (the folder it is in, not the output's).
 */
export async function publishParts(
  commit: JsonlCommit,
  locate: (ref: FileRef) => string,
  unreadable: (error: unknown, part: string) => Error,
): Promise<number> {
  const folder = dirname(commit.path);
  try {
    return await publishInto(commit, locate);
  } catch (error) {
    const path = (error as NodeJS.ErrnoException).path;
    const parts = new Set(commit.parts.map((ref) => resolve(locate(ref))));
    if (path !== undefined && parts.has(resolve(path))) throw unreadable(error, resolve(path));
    throw cannotWrite('output', folder, error, { operator: commit.operator });
  }
}

async function publishInto(commit: JsonlCommit, locate: (ref: FileRef) => string): Promise<number> {
  await mkdir(dirname(commit.path), { recursive: true });
  const replace = commit.committedLength < 0;
  const destination = replace
    ? join(dirname(commit.path), `.${basename(commit.path)}.inprogress`)
    : commit.path;
  // Appending: once the target is cut back, every write goes to its end.
  const handle = await open(destination, replace ? 'w' : 'a+');
  let length: number;
  try {
    if (!replace) await handle.truncate(commit.committedLength);
    try {
      await appendParts(handle, commit.parts.map(locate));
      await handle.sync();
    } catch (error) {
      // A write that failed half-way (a full disk) must not leave half a record where a reader
      // sees it: the target goes back to what it held, the next commit (or a restore) redoes this.
      if (!replace) await handle.truncate(commit.committedLength).catch(() => {});
      throw error;
    }
    length = (await handle.stat()).size;
  } catch (error) {
    await handle.close().catch(() => {});
    if (replace) await rm(destination, { force: true });
    throw error;
  }
  await handle.close();
  if (replace) await rename(destination, commit.path);
  return length;
}

/**
 * The parts' bytes at the end of the file, each write ending at the end of a record (a part holds
 * whole lines), so that a reader of the growing file sees whole records between two writes.
 */
async function appendParts(handle: FileHandle, files: readonly string[]): Promise<void> {
  for (const file of files) {
    let carried: Buffer | undefined;
    for await (const chunk of createReadStream(file, { highWaterMark: COPY_CHUNK })) {
      const data: Buffer =
        carried === undefined ? (chunk as Buffer) : Buffer.concat([carried, chunk as Buffer]);
      const end = data.lastIndexOf(NEWLINE) + 1;
      await writeAll(handle, data.subarray(0, end));
      carried = end < data.length ? data.subarray(end) : undefined;
    }
    // The writer ends a part with a whole line; bytes after the last newline go as they are.
    if (carried !== undefined) await writeAll(handle, carried);
  }
}

async function writeAll(handle: FileHandle, data: Uint8Array): Promise<void> {
  for (let at = 0; at < data.length; ) at += (await handle.write(data, at, data.length - at)).bytesWritten;
}
