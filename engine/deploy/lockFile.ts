// One lock file: where a target's is, what it says, and how it is taken. A lock is a file:
// `.pipewright.lock` inside a folder, `.NAME.lock` beside a file. It holds the holder's pid, thread
// id, host, start time and a random id of its own. It appears with its whole content in one step
// (written under a name of its own, then hard-linked; the link fails if a lock is there), so a
// reader never sees half of one. A lock whose process is gone is stale: the one taker that creates
// `LOCK.takeover-ID` (ID: the stale lock's) may delete it, after reading it again; every other
// taker waits and tries again. The same rule takes over a take-over claim left by a taker that
// died, so no interleaving lets two takers both win. A run's locks, all or none: runLock.ts.
import { randomBytes } from 'node:crypto';
import { linkSync, readdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { threadId } from 'node:worker_threads';
import { JobError } from '../graph/jobError.js';

const FORMAT = 'pipewright.runlock/1';
/** How long a taker waits for another to finish a take-over, or for a lock to become readable. */
const WAIT_MS = 1000;
/**
 * A lock file this young that cannot be read may still be being written (where there are no hard
 * links); an older one is stale.
 */
const WRITING_GRACE_MS = 5000;
/** Take-overs of take-overs: each level needs a taker that died mid-way, so a few are plenty. */
const MAX_TAKEOVER_DEPTH = 4;

/** Something a run writes and must have to itself. */
export interface LockTarget {
  readonly path: string;
  readonly kind: 'folder' | 'file';
  /** For messages, path included: `the state folder /x/state`. */
  readonly what: string;
}

/** What a lock file says about the run that holds it. */
export interface LockHolder {
  readonly format: typeof FORMAT;
  readonly pid: number;
  readonly threadId: number;
  readonly host: string;
  /** This lock's own random id: which of a process's locks a file is. */
  readonly id: string;
  /** ISO time the lock was taken. */
  readonly startedAt: string;
  readonly job?: string;
}

export function lockFileOf(target: LockTarget): string {
  const path = resolve(target.path);
  return target.kind === 'folder'
    ? join(path, '.pipewright.lock')
    : join(dirname(path), `.${basename(path)}.lock`);
}

/** The holder a lock file names; undefined if there is none or it cannot be read. */
export function readLockHolder(target: LockTarget): LockHolder | undefined {
  return readHolder(lockFileOf(target));
}

/** `(pid 1234, started 2026-12-01 10:22:41)`, with the job, and the host if it is another. */
export function describeHolder(holder: LockHolder): string {
  const of = holder.job === undefined ? '' : `of job "${holder.job}" `;
  const on = holder.host === hostname() ? '' : ` on host ${holder.host}`;
  return `${of}(pid ${holder.pid}${on}, started ${localTime(holder.startedAt)})`;
}

/** A new lock's content: this process and thread, now, and an id of its own. */
export function newRecord(job: string | undefined): LockHolder {
  return {
    format: FORMAT,
    pid: process.pid,
    threadId,
    host: hostname(),
    id: randomBytes(8).toString('hex'),
    startedAt: new Date().toISOString(),
    ...(job === undefined ? {} : { job }),
  };
}

/**
 * Takes `file`, or gives the live holder that has it. `target` names what is locked in messages.
 * `depth` counts take-over claims inside take-over claims.
 */
export function acquire(
  file: string,
  record: LockHolder,
  target: LockTarget,
  depth: number,
): LockHolder | undefined {
  if (depth > MAX_TAKEOVER_DEPTH) {
    throw new JobError(
      `cannot take ${target.what}: too many abandoned take-overs of its lock; delete ${dirname(file)}/${basename(file).split('.takeover-')[0]}.takeover-* files`,
    );
  }
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    if (createWhole(file, record, target)) return undefined;
    const seen = inspect(file, target);
    if (seen === undefined) continue; // released in between: try again
    if (seen.holder !== undefined && isAlive(seen.holder)) return seen.holder;
    if (seen.holder === undefined && seen.ageMs < WRITING_GRACE_MS) {
      if (Date.now() > deadline) throw unreadable(target, file);
      sleep(10);
      continue;
    }
    // Stale. Only the taker holding the claim on this very lock may delete it.
    const claim = `${file}.takeover-${seen.key}`;
    const claimant = acquire(claim, record, target, depth + 1);
    if (claimant === undefined) {
      try {
        // Nobody else can delete it while we hold the claim: its holder is gone.
        if (inspect(file, target)?.key === seen.key) unlinkQuietly(file);
      } finally {
        if (readHolder(claim)?.id === record.id) unlinkQuietly(claim);
      }
      continue;
    }
    // A live taker is taking it over right now; it will hold it in a moment.
    if (Date.now() > deadline) return claimant;
    sleep(10);
  }
}

/**
 * Creates `file` with the record in it, whole, unless it exists: written under a name of its own
 * first, then hard-linked. Where hard links do not work, an exclusive create (then a reader may
 * briefly see it empty: see WRITING_GRACE_MS).
 */
function createWhole(file: string, record: LockHolder, target: LockTarget): boolean {
  const text = `${JSON.stringify(record)}\n`;
  const draft = `${file}.${record.id}.tmp`;
  try {
    writeFileSync(draft, text, { flag: 'wx' });
  } catch (error) {
    throw cannotWrite(target, `write in ${dirname(file)}`, error);
  }
  try {
    linkSync(draft, file);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'ENOSYS' && code !== 'EOPNOTSUPP')
      throw cannotWrite(target, `write ${file}`, error);
  } finally {
    unlinkQuietly(draft);
  }
  try {
    writeFileSync(file, text, { flag: 'wx' });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw cannotWrite(target, `write ${file}`, error);
  }
}

interface Seen {
  readonly holder: LockHolder | undefined;
  /** Which lock this is: its holder's id, or its inode if it cannot be read. */
  readonly key: string;
  readonly ageMs: number;
}

function inspect(file: string, target: LockTarget): Seen | undefined {
  let text: string;
  let info: { ino: number; mtimeMs: number };
  try {
    info = statSync(file);
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw cannotWrite(target, `read ${file}`, error);
  }
  const holder = parseHolder(text);
  return {
    holder,
    key: holder?.id ?? `ino${info.ino}`,
    ageMs: Date.now() - info.mtimeMs,
  };
}

export function readHolder(file: string): LockHolder | undefined {
  try {
    return parseHolder(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

function parseHolder(text: string): LockHolder | undefined {
  try {
    // The format is not checked: a lock of a later version still names a holder.
    const value = JSON.parse(text) as Partial<LockHolder> | null;
    if (
      typeof value?.pid === 'number' &&
      Number.isInteger(value.pid) &&
      value.pid > 0 &&
      Number.isInteger(value.threadId) &&
      typeof value.host === 'string' &&
      typeof value.id === 'string' &&
      /^[0-9a-f]+$/.test(value.id) &&
      typeof value.startedAt === 'string'
    )
      return value as LockHolder;
  } catch {}
  return undefined;
}

/**
 * Whether the holder may still be running. A process on another host cannot be asked, and one of
 * this process may be a worker thread still running (or terminated: see releaseRunLocks).
 */
function isAlive(holder: LockHolder): boolean {
  if (holder.host !== hostname() || holder.pid === process.pid) return true;
  try {
    process.kill(holder.pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, under another user.
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/** Drafts and take-over claims beside `file` (`file.*`). */
export function siblingsOf(file: string): string[] {
  const prefix = `${basename(file)}.`;
  try {
    return readdirSync(dirname(file))
      .filter((name) => name.startsWith(prefix))
      .map((name) => join(dirname(file), name));
  } catch {
    return [];
  }
}

/**
 * Drafts and claims left by takers that died. Safe once `file` is ours: a claim only guards
 * deleting a stale lock, and there is none.
 */
export function sweepLeftovers(file: string): void {
  for (const path of siblingsOf(file)) {
    const holder = readHolder(path);
    if (holder !== undefined && !isAlive(holder)) unlinkQuietly(path);
  }
}

export function unlinkQuietly(file: string): boolean {
  try {
    unlinkSync(file);
    return true;
  } catch {
    return false;
  }
}

/** `action`: what failed, as `write in /x/state`. */
export function cannotWrite(target: LockTarget, action: string, error: unknown): JobError {
  const code = (error as NodeJS.ErrnoException).code;
  const why =
    code === 'EACCES' || code === 'EPERM'
      ? 'permission denied'
      : code === 'EROFS'
        ? 'the file system is read-only'
        : code === 'ENOTDIR' || code === 'EEXIST'
          ? 'a part of its path is a file'
          : code === 'ENOSPC'
            ? 'no space left on the device'
            : (code ?? (error as Error).message);
  return new JobError(`cannot lock ${target.what}: cannot ${action} (${why})`);
}

function unreadable(target: LockTarget, file: string): JobError {
  return new JobError(
    `${target.what} is locked by ${file}, which cannot be read; if no run uses the folder, delete that file`,
  );
}

/** `2026-12-01 10:22:41`, local time. */
function localTime(iso: string): string {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return iso;
  const two = (n: number) => String(n).padStart(2, '0');
  return `${at.getFullYear()}-${two(at.getMonth() + 1)}-${two(at.getDate())} ${two(at.getHours())}:${two(at.getMinutes())}:${two(at.getSeconds())}`;
}

const pause = new Int32Array(new SharedArrayBuffer(4));

/** Blocks the thread: taking a lock is synchronous, and waits are a few ms while another takes it. */
function sleep(ms: number): void {
  Atomics.wait(pause, 0, 0, ms);
}
