// The designer's file access through the host: read a text file, save one atomically, list a
// folder. Each error message names the path and says why in words, because the designer shows
// it to the user as it is.
import { randomBytes } from 'node:crypto';
import type { Dirent } from 'node:fs';
import { type FileHandle, open, readdir, readFile, realpath, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { type DirEntry, MAX_JOB_FILE_BYTES, type OpenedFile } from '../protocol/protocol.js';

const REASONS: Readonly<Record<string, string>> = {
  ENOENT: 'no such file or folder',
  EISDIR: 'it is a folder',
  ENOTDIR: 'it is not a folder',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'the file system is read-only',
  ENOSPC: 'the disk is full',
  EBUSY: 'the file is in use',
  ENAMETOOLONG: 'the name is too long',
};

/** Why a file operation failed, in words. */
export function reason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code !== undefined && REASONS[code] !== undefined) return REASONS[code];
  return error instanceof Error ? error.message : String(error);
}

/** Relative paths would resolve against wherever the host happened to start, so only absolute ones are taken. */
export function absolute(path: string, action: string): string {
  if (!isAbsolute(path)) throw new Error(`Cannot ${action} ${path}: the path must be absolute`);
  return resolve(path);
}

const MIB = 1024 * 1024;

/** A size in MiB to a tenth, as people read it: 70, 32.5. */
function mebibytes(bytes: number): string {
  return String(Math.round((bytes / MIB) * 10) / 10);
}

/**
 * A file larger than MAX_JOB_FILE_BYTES is refused before it is read: its text could not go back
 * to the host to be saved or run, and a message over the protocol's limit ends the connection.
 */
export async function readTextFile(path: string): Promise<OpenedFile> {
  const file = absolute(path, 'open');
  let size: number;
  try {
    size = (await stat(file)).size;
  } catch (error) {
    throw new Error(`Cannot open ${file}: ${reason(error)}`);
  }
  if (size > MAX_JOB_FILE_BYTES) {
    throw new Error(
      `Cannot open ${file}: it is ${mebibytes(size)} MiB, and the designer opens job files of up to ${mebibytes(MAX_JOB_FILE_BYTES)} MiB`,
    );
  }
  try {
    return { path: file, text: await readFile(file, 'utf8') };
  } catch (error) {
    throw new Error(`Cannot open ${file}: ${reason(error)}`);
  }
}

/** The file a save replaces: through a symbolic link to its target, keeping the target's permissions. */
async function saveTarget(file: string): Promise<{ destination: string; mode?: number }> {
  let destination: string;
  try {
    destination = await realpath(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { destination: file };
    throw error;
  }
  const info = await stat(destination);
  if (info.isDirectory()) throw Object.assign(new Error('it is a folder'), { code: 'EISDIR' });
  return { destination, mode: info.mode & 0o7777 };
}

/** A folder's entry is durable only once the folder itself is synced; Windows cannot open a folder, so it is skipped there. */
async function syncFolder(folder: string): Promise<void> {
  if (process.platform === 'win32') return;
  const handle = await open(folder, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Writes a temporary file beside the target, syncs it and renames it over the target, so a
 * crash or a full disk leaves either the old file or the new one, never half of one.
 */
export async function writeTextFileAtomic(path: string, text: string): Promise<{ path: string }> {
  const file = absolute(path, 'save');
  let temporary: string | undefined;
  let handle: FileHandle | undefined;
  try {
    const { destination, mode } = await saveTarget(file);
    const folder = dirname(destination);
    temporary = join(folder, `.${basename(destination)}.${randomBytes(6).toString('hex')}.tmp`);
    try {
      handle = await open(temporary, 'wx');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        throw new Error(`the folder ${folder} does not exist`);
      }
      throw error;
    }
    if (mode !== undefined) await handle.chmod(mode);
    await handle.writeFile(text, 'utf8');
    await handle.sync();
    await handle.close();
    handle = undefined;
    await rename(temporary, destination);
    temporary = undefined;
    await syncFolder(folder);
    return { path: file };
  } catch (error) {
    await handle?.close().catch(() => undefined);
    if (temporary !== undefined) await rm(temporary, { force: true }).catch(() => undefined);
    throw new Error(`Cannot save ${file}: ${reason(error)}`);
  }
}

async function entryKind(entry: Dirent, path: string): Promise<DirEntry['kind'] | undefined> {
  if (entry.isDirectory()) return 'dir';
  if (!entry.isSymbolicLink()) return 'file';
  try {
    return (await stat(path)).isDirectory() ? 'dir' : 'file';
  } catch {
    // A dangling link cannot be opened either way, so the dialog does not offer it.
    return undefined;
  }
}

const byName = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });

/** Folders first, then files, each by name as people sort them; hidden (dot) entries left out. */
export async function listFolder(
  dir: string,
): Promise<{ dir: string; parent?: string; entries: DirEntry[] }> {
  const folder = absolute(dir, 'list');
  let found: Dirent[];
  try {
    found = await readdir(folder, { withFileTypes: true });
  } catch (error) {
    throw new Error(`Cannot list ${folder}: ${reason(error)}`);
  }
  const entries: DirEntry[] = [];
  for (const entry of found) {
    if (entry.name.startsWith('.')) continue;
    const path = join(folder, entry.name);
    const kind = await entryKind(entry, path);
    if (kind !== undefined) entries.push({ name: entry.name, path, kind });
  }
  entries.sort((a, b) => (a.kind === b.kind ? byName.compare(a.name, b.name) : a.kind === 'dir' ? -1 : 1));
  const parent = dirname(folder);
  return parent === folder ? { dir: folder, entries } : { dir: folder, parent, entries };
}
