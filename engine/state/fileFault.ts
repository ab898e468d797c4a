// A folder the engine could not write, said in one line: which folder it is to the user (state,
// checkpoints, output), where in it the write failed, and why in words. Node's errors carry the
// syscall and an errno code; LevelDB's carry the C library's text. Both come out the same way,
// so the state, checkpoint and sink code word a fault alike whichever of them meets it.
import { statSync } from 'node:fs';
import { access, constants, stat } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { JobError } from '../graph/jobError.js';

export type FolderRole = 'state' | 'checkpoint' | 'output';

const WORDS: Readonly<Record<string, string>> = {
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on device',
  EDQUOT: 'disk quota exceeded',
  EISDIR: 'a folder is in the way',
  ENOENT: 'no such file or folder',
  ENAMETOOLONG: 'the name is too long',
  EMFILE: 'too many open files',
  ENFILE: 'too many open files',
  EIO: 'input/output error',
  // LevelDB's lock on a database folder: held in this process or in another.
  LOCKED: 'in use by another run or a reader of its state',
};

/** LevelDB's lock error names the lock file after `lock `: `IO error: lock PATH: WHY`. */
const LEVEL_LOCK = /^IO error: lock (.*): [^:]*$/;

/** LevelDB reports `IO error: PATH: Permission denied`: the C library's words after the path. */
const LEVEL_IO = /^IO error: (.*): ([A-Z][a-z][^:]*)$/;
const LEVEL_WORDS: Readonly<Record<string, string>> = {
  'Permission denied': 'EACCES',
  'Operation not permitted': 'EPERM',
  'Read-only file system': 'EROFS',
  'No space left on device': 'ENOSPC',
  'Disk quota exceeded': 'EDQUOT',
  'Not a directory': 'ENOTDIR',
  'Is a directory': 'EISDIR',
  'No such file or directory': 'ENOENT',
};

interface Fault {
  readonly code: string;
  readonly path: string | undefined;
  /** The error's own words, for a code with none here. */
  readonly text: string;
}

/** The errno fault behind an error (or behind its cause), if it is one. */
function faultOf(error: unknown): Fault | undefined {
  for (let e = error, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) {
    const { code, path } = e as NodeJS.ErrnoException;
    if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return { code, path, text: e.message };
    if (code === 'LEVEL_LOCKED') {
      return { code: 'LOCKED', path: LEVEL_LOCK.exec(e.message)?.[1], text: e.message };
    }
    const level = LEVEL_IO.exec(e.message);
    if (level !== undefined && level !== null) {
      const words = level[2]!;
      return { code: LEVEL_WORDS[words] ?? 'EIO', path: level[1], text: words.toLowerCase() };
    }
  }
  return undefined;
}

/** Whether the error is the file system refusing (as opposed to a bug). */
export function isFileFault(error: unknown): boolean {
  return faultOf(error) !== undefined;
}

/**
 * A path that should be a folder but ends at a file (ENOTDIR, EEXIST from mkdir): the file in
 * the way, found by walking up from the path the error names.
 */
function fileInTheWay(path: string): string | undefined {
  for (let p = path; ; p = dirname(p)) {
    try {
      return statSync(p).isDirectory() ? undefined : p;
    } catch {
      if (dirname(p) === p) return undefined;
    }
  }
}

function reason(fault: Fault, folder: string): string {
  const at = fault.path === undefined ? undefined : resolve(fault.path);
  if (fault.code === 'ENOTDIR' || fault.code === 'EEXIST') {
    const file = at === undefined ? undefined : fileInTheWay(at);
    if (file !== undefined) return `${file} is a file, not a folder`;
    return fault.code === 'ENOTDIR' ? 'not a folder' : 'a file is in the way';
  }
  const words = WORDS[fault.code] ?? fault.text;
  if (at === undefined || at === folder) return words;
  const inside = relative(folder, at);
  return `${words}: ${inside.startsWith('..') || isAbsolute(inside) ? at : inside}`;
}

/** Who met the fault, and the file it was writing when the error does not say (a write on an open handle). */
export interface FaultContext {
  readonly operator?: string;
  readonly file?: string;
}

/**
 * The one line for a write to `folder` that failed: `cannot write the state folder /x/state
 * (permission denied: subtasks)`, prefixed with the operator when it is an operator's output.
 * An error that is not a file-system fault is handed back as it is: it is a bug, not the disk.
 */
export function cannotWrite(
  role: FolderRole,
  folder: string,
  error: unknown,
  context: FaultContext = {},
): Error {
  return folderFault('write', role, folder, error, context);
}

/**
 * The same line for a file the engine wrote into `folder` and cannot read back (a part to
 * publish, the folder taken away or replaced mid-run): `cannot read the checkpoint folder ...`.
 */
export function cannotRead(
  role: FolderRole,
  folder: string,
  error: unknown,
  context: FaultContext = {},
): Error {
  return folderFault('read', role, folder, error, context);
}

function folderFault(
  verb: 'read' | 'write',
  role: FolderRole,
  folder: string,
  error: unknown,
  context: FaultContext,
): Error {
  if (error instanceof JobError) return error;
  const found = faultOf(error);
  if (found === undefined) return error instanceof Error ? error : new Error(String(error));
  const fault = found.path === undefined ? { ...found, path: context.file } : found;
  const absolute = resolve(folder);
  const who = context.operator === undefined ? '' : `operator "${context.operator}": `;
  return new JobError(
    `${who}cannot ${verb} the ${role} folder ${absolute} (${reason(fault, absolute)})`,
    context.operator,
  );
}

/**
 * Throws what cannotWrite says if `folder` could not take a new file: it (or the nearest folder
 * above it that exists) is a file, or is not writable. Creates nothing, so a run refused for
 * another reason leaves no empty folder behind.
 */
export async function checkWritable(
  role: FolderRole,
  folder: string,
  context: FaultContext = {},
): Promise<void> {
  let existing = resolve(folder);
  for (;;) {
    try {
      const info = await stat(existing);
      if (!info.isDirectory()) {
        throw Object.assign(new Error(`ENOTDIR: not a directory, '${existing}'`), {
          code: 'ENOTDIR',
          path: existing,
        });
      }
      await access(existing, constants.W_OK);
      return;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' || dirname(existing) === existing)
        throw cannotWrite(role, folder, error, context);
      existing = dirname(existing);
    }
  }
}
