// A template saved elsewhere takes its data with it: its input files are copied from the
// template's folder to the folder the job is saved in, under the same relative names, so that the
// job's first Run reads them. A file already there is the user's and is kept; a copy is made under
// a temporary name and linked into place, so a failed copy (a full disk) leaves no half a file.
import { randomBytes } from 'node:crypto';
import { copyFile, link, mkdir, rm } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { absolute, reason } from './hostFiles.js';

function inside(folder: string, path: string): boolean {
  const rel = relative(folder, path);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
}

export interface CopiedInputs {
  /** Copied beside the job. */
  readonly copied: string[];
  /** Already there, and kept as they were. */
  readonly kept: string[];
}

/**
 * Copies `files` (names relative to the folder of the job file `from`, inside it) to the folder
 * of the job file `to`. A file that is not at `from` is left out: the job's input check says so.
 */
export async function copyInputFiles(
  from: string,
  to: string,
  files: readonly string[],
): Promise<CopiedInputs> {
  const source = dirname(absolute(from, 'copy the input files of'));
  const target = dirname(absolute(to, 'copy input files beside'));
  const copied: string[] = [];
  const kept: string[] = [];
  for (const file of files) {
    const src = resolve(source, file);
    const dst = resolve(target, file);
    if (isAbsolute(file) || !inside(source, src) || !inside(target, dst))
      throw new Error(`Cannot copy ${file}: only files inside the job's folder are copied`);
    if (src === dst) {
      kept.push(file);
      continue;
    }
    const temporary = join(dirname(dst), `.${basename(dst)}.${randomBytes(6).toString('hex')}.tmp`);
    const failed = (error: unknown) => new Error(`Cannot copy ${src} to ${dst}: ${reason(error)}`);
    try {
      await mkdir(dirname(dst), { recursive: true });
      await copyFile(src, temporary);
    } catch (error) {
      await rm(temporary, { force: true }).catch(() => undefined);
      // Not in the template's folder (the job names a file it does not have): nothing to copy.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT' && (error as NodeJS.ErrnoException).path === src)
        continue;
      throw failed(error);
    }
    try {
      // Unlike a rename, a link never replaces a file of that name.
      await link(temporary, dst);
      copied.push(file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw failed(error);
      kept.push(file);
    } finally {
      await rm(temporary, { force: true }).catch(() => undefined);
    }
  }
  return { copied, kept };
}
