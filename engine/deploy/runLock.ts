// Exclusive locks on what a run writes (its state folder, its checkpoint folder, its output
// files), so that two runs of one job on one folder cannot both delete and rewrite it: LevelDB's
// own LOCK protects nothing once a run has deleted the state folder it sits in. A run takes a
// lock file (lockFile.ts) for each of its targets, all of them or none, and holds them until it
// releases them.
//
// A host that runs jobs in worker threads and terminates one (worker.terminate(), a stuck user
// function) must release that worker's locks itself: the worker cannot, and its pid is the host's,
// which is alive, so no other run would ever take them over. Note `worker.threadId` before
// terminating (it reads -1 after), then call `releaseRunLocks(runLockTargets(job, places),
// { threadId })` (runLockTargets.ts: the places the run was opened with): it deletes the locks
// (and any take-over claims) that this process holds for those targets and that thread took.
// A process that exits releases what it holds (an `exit` handler); a process that is killed
// leaves stale locks, which the next run takes over.
import { mkdirSync, rmdirSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import { JobError } from '../graph/jobError.js';
import {
  acquire,
  cannotWrite,
  describeHolder,
  type LockHolder,
  type LockTarget,
  lockFileOf,
  newRecord,
  readHolder,
  siblingsOf,
  sweepLeftovers,
  unlinkQuietly,
} from './lockFile.js';

/** A second run was refused: `holder` has the target. */
export class RunLockRefused extends JobError {
  constructor(
    readonly target: LockTarget,
    readonly holder: LockHolder,
  ) {
    super(`${target.what} is in use by another run ${describeHolder(holder)}; stop that run first`);
    this.name = 'RunLockRefused';
  }
}

/** Locks one run holds; release() is safe to call more than once. */
export interface HeldRunLocks {
  readonly files: readonly string[];
  release(): void;
}

/**
 * Takes a lock on every target, or on none: a refusal (RunLockRefused, naming the holder) or a
 * folder that cannot be written (JobError) releases those already taken. Creates missing folders;
 * release removes those it created again if they are empty.
 */
export function takeRunLocks(targets: readonly LockTarget[], owner: { job?: string } = {}): HeldRunLocks {
  const byFile = new Map<string, LockTarget>();
  for (const target of targets) if (!byFile.has(lockFileOf(target))) byFile.set(lockFileOf(target), target);
  const held = new HeldLocks();
  try {
    for (const [file, target] of byFile) {
      const record = newRecord(owner.job);
      const created = createParents(file, target);
      held.add(file, record.id, created);
      const holder = acquire(file, record, target, 0);
      if (holder !== undefined) {
        held.forget(file);
        throw new RunLockRefused(target, holder);
      }
      sweepLeftovers(file);
    }
  } catch (error) {
    held.release();
    throw error;
  }
  return held;
}

/**
 * For a host whose worker thread cannot release its own locks (terminated): deletes the locks of
 * `targets` this process holds, taken by thread `threadId` if given, and that thread's unfinished
 * take-over claims. Returns the files deleted.
 */
export function releaseRunLocks(targets: readonly LockTarget[], which: { threadId?: number } = {}): string[] {
  const removed: string[] = [];
  const ours = (holder: LockHolder | undefined) =>
    holder !== undefined &&
    holder.pid === process.pid &&
    holder.host === hostname() &&
    (which.threadId === undefined || holder.threadId === which.threadId);
  for (const file of new Set(targets.map(lockFileOf))) {
    for (const path of [file, ...siblingsOf(file)]) {
      if (ours(readHolder(path)) && unlinkQuietly(path)) removed.push(path);
    }
  }
  return removed;
}

const live = new Set<HeldLocks>();
let exitHandler = false;

class HeldLocks implements HeldRunLocks {
  private readonly held = new Map<string, { id: string; created: string | undefined }>();

  constructor() {
    live.add(this);
    if (!exitHandler) {
      exitHandler = true;
      // A CLI stopped at once (a second Ctrl-C) exits without ending its run.
      process.on('exit', () => {
        for (const locks of live) locks.release();
      });
    }
  }

  get files(): string[] {
    return [...this.held.keys()];
  }

  add(file: string, id: string, created: string | undefined): void {
    this.held.set(file, { id, created });
  }

  /** Not taken after all: nothing to delete but the folders made for it. */
  forget(file: string): void {
    const entry = this.held.get(file);
    this.held.delete(file);
    removeCreated(file, entry?.created);
  }

  release(): void {
    live.delete(this);
    // Newest first, so a folder made for one lock is empty when its turn comes.
    for (const [file, { id, created }] of [...this.held].reverse()) {
      // Someone may have released it for us (releaseRunLocks); never delete another run's lock.
      if (readHolder(file)?.id === id) unlinkQuietly(file);
      removeCreated(file, created);
    }
    this.held.clear();
  }
}

/** Makes the lock file's folder; gives the first folder it had to make, to remove on release. */
function createParents(file: string, target: LockTarget): string | undefined {
  try {
    return mkdirSync(dirname(file), { recursive: true });
  } catch (error) {
    throw cannotWrite(target, `create ${dirname(file)}`, error);
  }
}

/** Removes the folders made for a lock, deepest first, as far as they are empty. */
function removeCreated(file: string, created: string | undefined): void {
  if (created === undefined) return;
  for (let folder = dirname(file); ; folder = dirname(folder)) {
    try {
      rmdirSync(folder);
    } catch {
      return;
    }
    if (folder === created || dirname(folder) === folder) return;
  }
}
