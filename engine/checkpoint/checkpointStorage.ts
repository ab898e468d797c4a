// Where checkpoints live:
//   DIR/chk-<id>.json                      metadata; a checkpoint exists once this file does
//   DIR/data/<operator>-<subtask>/<name>   state bases and changes, feedback logs, sink parts
// Data files are written in large chunks with a running CRC-32 and fsynced before the metadata
// that names them is written (write, fsync, rename, fsync the folder). A data file is deleted
// only when no retained checkpoint names it.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { type FileHandle, mkdir, open, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import type { CheckpointFiles } from '../runtime/checkpointFiles.js';
import { cannotWrite } from '../state/fileFault.js';
import type { MaybePromise } from '../state/maybePromise.js';
import { type CheckpointMetadata, connectorFiles, type FileRef } from './checkpointMetadata.js';
import { crc32, crc32Hex } from './crc32.js';
import { decodeMetadata, encodeMetadata } from './metadataFile.js';

const METADATA = /^chk-(\d+)\.json$/;
const WRITE_AT = 1 << 20;
const READ_CHUNK = 1 << 20;

/**
 * A data file being written: bytes (or JSON lines) in, a FileRef out. The file is opened with
 * its first write, so a file that never gets a byte before its barrier does not show up early.
 */
export class DataFileWriter {
  private crc = 0;
  private written = 0;
  private handle: MaybePromise<FileHandle>;
  private writing: Promise<void> = Promise.resolve();
  private lines: string[] = [];
  private lineChars = 0;

  constructor(
    readonly path: string,
    private readonly absolute: string,
    /** The checkpoint folder, which a failure names. */
    private readonly root: string,
  ) {}

  /** Bytes handed to the writer so far (written or queued). */
  get bytes(): number {
    return this.written;
  }

  /**
   * Appends `data`, which must not change afterwards. Returns the write queued before it: waiting
   * for that one keeps at most one chunk queued behind the one being written.
   */
  writeBytes(data: Uint8Array): Promise<void> {
    this.crc = crc32(data, this.crc);
    this.written += data.length;
    const handle = this.opened();
    const previous = this.writing;
    const next = previous.then(async () => {
      const file = await handle;
      try {
        for (let at = 0; at < data.length; )
          at += (await file.write(data, at, data.length - at)).bytesWritten;
      } catch (error) {
        throw cannotWrite('checkpoint', this.root, error, { file: this.absolute });
      }
    });
    // A failure is reported where `writing` is awaited (close, or the next caller); this only marks it handled.
    next.catch(() => {});
    this.writing = next;
    return previous;
  }

  /** Appends one JSON line; lines go out in large chunks. */
  write(value: unknown): MaybePromise {
    const line = `${JSON.stringify(value)}\n`;
    this.lines.push(line);
    this.lineChars += line.length;
    if (this.lineChars < WRITE_AT) return undefined;
    return this.drainLines();
  }

  private drainLines(): Promise<void> {
    const text = this.lines.join('');
    this.lines = [];
    this.lineChars = 0;
    return this.writeBytes(Buffer.from(text, 'utf8'));
  }

  private opened(): Promise<FileHandle> {
    this.handle ??= (async () => {
      try {
        await mkdir(dirname(this.absolute), { recursive: true });
        return await open(this.absolute, 'w');
      } catch (error) {
        throw cannotWrite('checkpoint', this.root, error);
      }
    })();
    // A failure is reported where the handle is awaited; this only marks it handled.
    this.handle.catch(() => {});
    return this.handle;
  }

  async close(): Promise<FileRef> {
    if (this.lineChars > 0) this.drainLines();
    const crc = crc32Hex(this.crc);
    const bytes = this.written;
    const handle = await this.opened();
    try {
      await this.writing;
      await handle.sync();
    } catch (error) {
      // Closed all the same: a folder that refuses writes for a while (a full disk) must not
      // leave one open file behind per checkpoint it failed.
      await handle.close().catch(() => {});
      throw cannotWrite('checkpoint', this.root, error, { file: this.absolute });
    }
    try {
      await handle.close();
    } catch (error) {
      throw cannotWrite('checkpoint', this.root, error, { file: this.absolute });
    }
    return { path: this.path, bytes, crc32: crc };
  }

  async discard(): Promise<void> {
    await this.writing.catch(() => {});
    const handle = await this.handle?.catch(() => undefined);
    await handle?.close().catch(() => {});
    // A file that never opened is not this writer's to remove: its path may hold something else
    // (a folder in the way is why it did not open), and removing that would fail the next base.
    if (handle !== undefined) await rm(this.absolute, { force: true });
  }
}

export class CheckpointStorage implements CheckpointFiles {
  /**
   * The files each checkpoint's metadata names, by id, for those this storage wrote or read: retain
   * runs after every checkpoint and would otherwise read and parse every kept metadata file again.
   * Metadata is never changed in place (a debug run going back forgets an id before taking it again).
   */
  private readonly namedFiles = new Map<number, readonly string[]>();

  constructor(readonly root: string) {}

  dataPath(operator: string, subtask: number, name: string): string {
    return join('data', `${operator}-${subtask}`, name);
  }

  absolute(ref: FileRef | string): string {
    return join(this.root, typeof ref === 'string' ? ref : ref.path);
  }

  createDataFile(path: string): DataFileWriter {
    return new DataFileWriter(path, this.absolute(path), this.root);
  }

  /** Parsed lines of a data file of JSON lines, streamed. */
  async *readLines(ref: FileRef): AsyncGenerator<unknown> {
    const lines = createInterface({
      input: createReadStream(this.absolute(ref), { highWaterMark: READ_CHUNK }),
      crlfDelay: Number.POSITIVE_INFINITY,
    });
    for await (const line of lines) if (line.length > 0) yield JSON.parse(line);
  }

  async writeMetadata(metadata: CheckpointMetadata): Promise<void> {
    this.namedFiles.delete(metadata.id);
    try {
      await this.writeMetadataFile(metadata);
    } catch (error) {
      throw cannotWrite('checkpoint', this.root, error);
    }
    this.namedFiles.set(metadata.id, pathsOf(metadata));
  }

  private async writeMetadataFile(metadata: CheckpointMetadata): Promise<void> {
    await mkdir(this.root, { recursive: true });
    const final = join(this.root, `chk-${metadata.id}.json`);
    const temporary = `${final}.tmp`;
    const handle = await open(temporary, 'w');
    try {
      await handle.writeFile(encodeMetadata(metadata));
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

  /** Removes a checkpoint's metadata (a debug run went back to before it; its files stay for retain). */
  async forget(id: number): Promise<void> {
    this.namedFiles.delete(id);
    await rm(join(this.root, `chk-${id}.json`), { force: true });
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
    const metadata = await this.readMetadata(id);
    for (const ref of referencedFiles(metadata)) await this.verify(id, ref);
    return metadata;
  }

  /** A checkpoint's metadata, checked (its checksum, format, id); throws with the reason it is unusable. */
  async readMetadata(id: number): Promise<CheckpointMetadata> {
    let text: string;
    try {
      text = await readFile(join(this.root, `chk-${id}.json`), 'utf8');
    } catch (error) {
      throw new Error(`checkpoint ${id}: its metadata cannot be read (${(error as Error).message})`);
    }
    try {
      return decodeMetadata(text, id);
    } catch (error) {
      throw new Error(`checkpoint ${id}: ${(error as Error).message}`);
    }
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
    const input = createReadStream(path, { highWaterMark: READ_CHUNK });
    let matches: boolean;
    if ('crc32' in ref) {
      let crc = 0;
      for await (const chunk of input) crc = crc32(chunk as Buffer, crc);
      matches = crc32Hex(crc) === ref.crc32;
    } else {
      const hash = createHash('sha256');
      for await (const chunk of input) hash.update(chunk as Buffer);
      matches = hash.digest('hex') === ref.sha256;
    }
    if (!matches) throw new Error(`checkpoint ${id}: file ${ref.path} is corrupted (checksum)`);
  }

  private async filesNamedBy(id: number): Promise<readonly string[]> {
    let paths = this.namedFiles.get(id);
    if (paths === undefined) {
      try {
        paths = pathsOf(await this.readMetadata(id));
      } catch {
        // An unreadable or damaged checkpoint protects nothing; restore skips it too.
        return [];
      }
      this.namedFiles.set(id, paths);
    }
    return paths;
  }

  /**
   * Keeps the newest `retained` checkpoints, and `pinned` if given; deletes other metadata and
   * every data file that no kept checkpoint names and that belongs to a checkpoint not newer than
   * `upTo` (newer files may belong to a checkpoint still being taken).
   */
  async retain(retained: number, upTo: number, pinned?: number): Promise<void> {
    const ids = await this.completedIds();
    const keep = ids.filter((id, k) => k < retained || id === pinned);
    const referenced = new Set<string>();
    for (const id of keep) for (const path of await this.filesNamedBy(id)) referenced.add(path);
    for (const id of ids) {
      if (keep.includes(id)) continue;
      this.namedFiles.delete(id);
      await rm(join(this.root, `chk-${id}.json`), { force: true });
    }
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

function pathsOf(metadata: CheckpointMetadata): string[] {
  return referencedFiles(metadata).map((ref) => ref.path);
}

export function referencedFiles(metadata: CheckpointMetadata): FileRef[] {
  const refs: FileRef[] = [];
  for (const s of metadata.subtasks) {
    if (s.state?.base) refs.push(s.state.base);
    if (s.state) refs.push(...s.state.changes);
    if (s.feedback) refs.push(s.feedback);
  }
  refs.push(...connectorFiles(metadata));
  return refs;
}
