// Where checkpoints live:
//   DIR/chk-<id>.json                      metadata; a checkpoint exists once this file does
//   DIR/data/<operator>-<subtask>/<name>   state bases and changes, feedback logs, sink parts
// Data files are JSON lines, written with a running sha256 and fsynced before the metadata
// that names them is written (write, fsync, rename, fsync the folder). A data file is deleted
// only when no retained checkpoint names it.
import { createHash, type Hash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { type FileHandle, mkdir, open, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { CHECKPOINT_FORMAT, type CheckpointMetadata, type FileRef } from './checkpointMetadata.js';

const METADATA = /^chk-(\d+)\.json$/;
const WRITE_AT = 1 << 20;

/** A data file being written: lines in, a FileRef out. */
export class DataFileWriter {
  private readonly hash: Hash = createHash('sha256');
  private bytes = 0;
  private pending: string[] = [];
  private pendingChars = 0;
  private writing: Promise<unknown> = Promise.resolve();

  private constructor(
    readonly path: string,
    private readonly handle: FileHandle,
    private readonly absolute: string,
  ) {}

  static async create(root: string, path: string): Promise<DataFileWriter> {
    const absolute = join(root, path);
    await mkdir(dirname(absolute), { recursive: true });
    return new DataFileWriter(path, await open(absolute, 'w'), absolute);
  }

  /** Appends one JSON line; writes go out in large chunks, one at a time. */
  write(value: unknown): Promise<unknown> | undefined {
    return this.writeLine(JSON.stringify(value));
  }

  /** Appends a line that is JSON already. */
  writeLine(json: string): Promise<unknown> | undefined {
    const line = `${json}\n`;
    this.pending.push(line);
    this.pendingChars += line.length;
    if (this.pendingChars < WRITE_AT) return undefined;
    return this.drain();
  }

  private drain(): Promise<unknown> {
    const text = this.pending.join('');
    this.pending = [];
    this.pendingChars = 0;
    const buffer = Buffer.from(text, 'utf8');
    this.hash.update(buffer);
    this.bytes += buffer.length;
    const previous = this.writing;
    this.writing = previous.then(() => this.handle.write(buffer));
    return previous;
  }

  async close(): Promise<FileRef> {
    this.drain();
    await this.writing;
    await this.handle.sync();
    await this.handle.close();
    return { path: this.path, bytes: this.bytes, sha256: this.hash.digest('hex') };
  }

  async discard(): Promise<void> {
    await this.writing.catch(() => {});
    await this.handle.close().catch(() => {});
    await rm(this.absolute, { force: true });
  }
}

export class CheckpointStorage {
  constructor(readonly root: string) {}

  dataPath(operator: string, subtask: number, name: string): string {
    return join('data', `${operator}-${subtask}`, name);
  }

  absolute(ref: FileRef | string): string {
    return join(this.root, typeof ref === 'string' ? ref : ref.path);
  }

  createDataFile(path: string): Promise<DataFileWriter> {
    return DataFileWriter.create(this.root, path);
  }

  /** Parsed lines of a data file, streamed. */
  async *readLines(ref: FileRef): AsyncGenerator<unknown> {
    const lines = createInterface({
      input: createReadStream(this.absolute(ref)),
      crlfDelay: Number.POSITIVE_INFINITY,
    });
    for await (const line of lines) if (line.length > 0) yield JSON.parse(line);
  }

  async writeMetadata(metadata: CheckpointMetadata): Promise<void> {
    await mkdir(this.root, { recursive: true });
    const final = join(this.root, `chk-${metadata.id}.json`);
    const temporary = `${final}.tmp`;
    const handle = await open(temporary, 'w');
    try {
      await handle.writeFile(`${JSON.stringify(metadata, null, 1)}\n`);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, final);
    const folder = await open(this.root, 'r');
    try {
      await folder.sync();
    } finally {
      await folder.close();
    }
  }

  /** Ids of checkpoints whose metadata exists, newest first. */
  async completedIds(): Promise<number[]> {
    let names: string[];
    try {
      names = await readdir(this.root);
    } catch {
      return [];
    }
    return names
      .map((name) => METADATA.exec(name)?.[1])
      .filter((id): id is string => id !== undefined)
      .map(Number)
      .sort((a, b) => b - a);
  }

  /** Reads a checkpoint and checks every file it names; throws with the reason it is unusable. */
  async load(id: number): Promise<CheckpointMetadata> {
    let metadata: CheckpointMetadata;
    try {
      metadata = JSON.parse(await readFile(join(this.root, `chk-${id}.json`), 'utf8')) as CheckpointMetadata;
    } catch (error) {
      throw new Error(`checkpoint ${id}: its metadata cannot be read (${(error as Error).message})`);
    }
    if (metadata.format !== CHECKPOINT_FORMAT || metadata.id !== id) {
      throw new Error(
        `checkpoint ${id}: its metadata is not a ${CHECKPOINT_FORMAT} file for checkpoint ${id}`,
      );
    }
    for (const ref of referencedFiles(metadata)) await this.verify(id, ref);
    return metadata;
  }

  private async verify(id: number, ref: FileRef): Promise<void> {
    const path = this.absolute(ref);
    let size: number;
    try {
      size = (await stat(path)).size;
    } catch {
      throw new Error(`checkpoint ${id}: file ${ref.path} is missing`);
    }
    if (size !== ref.bytes)
      throw new Error(`checkpoint ${id}: file ${ref.path} has ${size} bytes, not ${ref.bytes}`);
    const hash = createHash('sha256');
    for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
    if (hash.digest('hex') !== ref.sha256)
      throw new Error(`checkpoint ${id}: file ${ref.path} is corrupted (checksum)`);
  }

  /**
   * Keeps the newest `retained` checkpoints; deletes older metadata and every data file that no
   * retained checkpoint names and that belongs to a checkpoint not newer than `upTo` (newer
   * files may belong to a checkpoint still being taken).
   */
  async retain(retained: number, upTo: number): Promise<void> {
    const ids = await this.completedIds();
    const keep = ids.slice(0, retained);
    const referenced = new Set<string>();
    for (const id of keep) {
      try {
        const metadata = JSON.parse(
          await readFile(join(this.root, `chk-${id}.json`), 'utf8'),
        ) as CheckpointMetadata;
        for (const ref of referencedFiles(metadata)) referenced.add(ref.path);
      } catch {
        // An unreadable checkpoint protects nothing; restore skips it too.
      }
    }
    for (const id of ids.slice(retained)) await rm(join(this.root, `chk-${id}.json`), { force: true });
    let folders: string[];
    try {
      folders = await readdir(join(this.root, 'data'));
    } catch {
      return;
    }
    for (const folder of folders) {
      for (const name of await readdir(join(this.root, 'data', folder))) {
        const path = join('data', folder, name);
        const owner = Number(/-(\d+)\./.exec(name)?.[1] ?? Number.POSITIVE_INFINITY);
        if (!referenced.has(path) && owner <= upTo) await rm(join(this.root, path), { force: true });
      }
    }
  }
}

export function referencedFiles(metadata: CheckpointMetadata): FileRef[] {
  const refs: FileRef[] = [];
  for (const s of metadata.subtasks) {
    if (s.state?.base) refs.push(s.state.base);
    if (s.state) refs.push(...s.state.changes);
    if (s.feedback) refs.push(s.feedback);
    if (s.sinkPart) refs.push(s.sinkPart);
  }
  for (const sink of metadata.sinks) refs.push(...sink.parts);
  return refs;
}
