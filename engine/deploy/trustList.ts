// The jobs and folders the user trusts (docs/security.md), kept in `trusted.json` in the app's
// data folder (dataDir.ts: `$XDG_CONFIG_HOME/pipewright/` on Linux), which the CLI, the browser
// form and the desktop app share:
//
//   { "folders": ["/home/me/pipelines"],
//     "jobs": { "/home/me/Downloads/orders.job.json": "sha256:9f2c…" } }
//
// `folders` are the user's to write: every job file under one is trusted. `jobs` is what the
// designer records when the user trusts a job or saves one: a job file is trusted while its text
// is the one trusted (its SHA-256), so an edit by anyone else asks again.
import { createHash } from 'node:crypto';
import { readFile, realpath } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';

export interface TrustList {
  readonly folders: readonly string[];
  /** Absolute job file path -> "sha256:HEX" of the text trusted. */
  readonly jobs: Readonly<Record<string, string>>;
}

export const EMPTY_TRUST_LIST: TrustList = { folders: [], jobs: {} };

export function trustListFile(dataDir: string): string {
  return join(dataDir, 'trusted.json');
}

/** What a job file's text is trusted as: "sha256:" and the hex digest of its UTF-8. */
export function contentHash(text: string): string {
  return `sha256:${createHash('sha256').update(text, 'utf8').digest('hex')}`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The list as saved; an absent file is an empty list. A file that cannot be read or is not such
 * a list is an empty one too, with `problem` saying why (trust is never granted by a damaged file).
 */
export async function readTrustList(dataDir: string): Promise<{ list: TrustList; problem?: string }> {
  const file = trustListFile(dataDir);
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { list: EMPTY_TRUST_LIST };
    return { list: EMPTY_TRUST_LIST, problem: `cannot read ${file}: ${(error as Error).message}` };
  }
  if (!isObject(parsed)) return { list: EMPTY_TRUST_LIST, problem: `${file} is not a JSON object` };
  const folders = Array.isArray(parsed.folders)
    ? parsed.folders.filter((f): f is string => typeof f === 'string' && isAbsolute(f))
    : [];
  const jobs: Record<string, string> = {};
  if (isObject(parsed.jobs)) {
    for (const [path, hash] of Object.entries(parsed.jobs))
      if (isAbsolute(path) && typeof hash === 'string') jobs[path] = hash;
  }
  return { list: { folders, jobs } };
}

async function real(path: string): Promise<string> {
  return realpath(path).catch(() => resolve(path));
}

function inside(folder: string, path: string): boolean {
  const rel = relative(folder, path);
  return rel === '' || (!isAbsolute(rel) && rel.split(sep)[0] !== '..');
}

/**
 * Why the job file at `jobFile`, whose text is `text`, is trusted: its folder (or one above it)
 * is listed, or this text of it is; undefined when it is not.
 */
export async function trustedBy(
  list: TrustList,
  jobFile: string,
  text: string,
): Promise<'folder' | 'job' | undefined> {
  const path = resolve(jobFile);
  const hash = contentHash(text);
  if (list.jobs[path] === hash) return 'job';
  const realFile = await real(path);
  if (list.jobs[realFile] === hash) return 'job';
  for (const folder of list.folders) {
    if (inside(resolve(folder), path) || inside(await real(folder), realFile)) return 'folder';
  }
  return undefined;
}
