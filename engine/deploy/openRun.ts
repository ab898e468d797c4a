// Where every run's executor is chosen and the run opened on it: the CLI's `pipewright run`, the
// designer's Run (the host's run thread) and the debugger all open theirs here. A debug run is on
// the deterministic executor on this thread: its steps, step back and traces need one order of
// events. Any other run spreads its subtasks over the threads asked for (`--threads`, else
// `settings.threads`, else the cores) on the parallel executor (parallelJobRun.ts), unless they
// make one group there (threadsFor: a job at parallelism 1, or one thread asked for). Then it is on
// the deterministic executor too: on this thread (JobRun), or on a worker thread of its own
// (threadedJobRun.ts) where this thread must stay free to take signals and draw progress (the CLI),
// which may have started that thread already (warmJobWorker.ts).
import { availableParallelism } from 'node:os';
import { planJob } from '../graph/plan.js';
import type { Job } from '../graph/schema.js';
import { threadsFor } from '../graph/threadPlacement.js';
import type { JobRun } from './jobRun.js';
import type { ParallelJobRun } from './parallelJobRun.js';
import type { DebugHooks, RunOptions } from './runOptions.js';
import { ThreadedJobRun, type ThreadedRunOptions } from './threadedJobRun.js';
import { dropWarmJobWorker } from './warmJobWorker.js';

/** A debug run: on this thread, driven step by step. */
export type DebugRunOptions = RunOptions & { readonly debug: DebugHooks };

/**
 * A run on this thread when its subtasks make one group (the host's run thread). No observer: a
 * run spread over threads could not call it.
 */
export type ThisThreadRunOptions = Omit<RunOptions, 'debug' | 'observer'> & {
  /** Threads asked for; absent: `settings.threads`, else the cores. */
  readonly threads?: number;
  readonly oneThread: 'thisThread';
};

/** A run on a thread of its own when its subtasks make one group (the CLI's). */
export type BackgroundRunOptions = Omit<ThreadedRunOptions, 'job'> & {
  /** Threads asked for (`--threads`); absent: `settings.threads`, else the cores. */
  readonly threads?: number;
  readonly oneThread: 'ownThread';
};

/** What the CLI drives: the same surface on either executor. */
export type BackgroundRun = ThreadedJobRun | ParallelJobRun;

/**
 * Opens `job` on the executor it runs on. A run on this thread resolves once it is open (it
 * rejects with the engine's message if it cannot open); a run on other threads resolves as soon
 * as they are started, and its `opened` says when the job is open, so that a stop can be asked
 * for meanwhile.
 */
export function openRun(job: Job, options: DebugRunOptions): Promise<JobRun>;
export function openRun(job: Job, options: ThisThreadRunOptions): Promise<JobRun | ParallelJobRun>;
export function openRun(job: Job, options: BackgroundRunOptions): Promise<BackgroundRun>;
export async function openRun(
  job: Job,
  options: DebugRunOptions | ThisThreadRunOptions | BackgroundRunOptions,
): Promise<JobRun | BackgroundRun> {
  // Loaded when a run needs them: the CLI's run at parallelism 1 runs on a worker thread, and
  // its main thread need not load the executors, the state stores and SES (61 modules).
  if ('debug' in options) return openHere(job, options);
  const threads = threadsFor(planJob(job), options.threads ?? job.settings.threads ?? availableParallelism());
  if (options.oneThread === 'ownThread') {
    const { threads: _, oneThread: __, ...rest } = options;
    if (threads === 1) return ThreadedJobRun.start({ ...rest, job });
    void dropWarmJobWorker();
    const { ParallelJobRun } = await import('./parallelJobRun.js');
    return ParallelJobRun.start({ ...rest, job, threads });
  }
  // The parallel executor's workers mark their own calls: this thread's marker is for a run on it.
  const { threads: _, oneThread: __, callMarker, ...rest } = options;
  if (threads > 1) {
    const { ParallelJobRun } = await import('./parallelJobRun.js');
    return ParallelJobRun.start({ ...rest, job, threads });
  }
  return openHere(job, { ...rest, callMarker });
}

/** A run on this thread: user code runs here, so the process is locked down before the job opens (lockdown.ts). */
async function openHere(job: Job, options: RunOptions): Promise<JobRun> {
  const [{ JobRun }, { ensureLockdown }] = await Promise.all([
    import('./jobRun.js'),
    import('../sandbox/userCode.js'),
  ]);
  ensureLockdown();
  return JobRun.open(job, options);
}
