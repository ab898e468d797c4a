// Where the CLI's run goes: one worker thread running the deterministic executor when the job
// runs on one thread, or the parallel executor's workers otherwise. Both are driven alike.
import { planJob } from '../graph/plan.js';
import { threadsFor } from '../graph/threadPlacement.js';
import { ParallelJobRun } from './parallelJobRun.js';
import { ThreadedJobRun, type ThreadedRunOptions } from './threadedJobRun.js';

export type BackgroundRunOptions = ThreadedRunOptions & {
  /** Threads to spread the subtasks over (`--threads`, `settings.threads`, else the cores). */
  readonly threads: number;
};

/** What the CLI drives: the same surface for either executor. */
export interface BackgroundRun {
  readonly opened: Promise<void>;
  run(): ReturnType<ThreadedJobRun['run']>;
  metrics(): ReturnType<ThreadedJobRun['metrics']>;
  stop(): void;
  kill(): Promise<void>;
}

export function startRun(options: BackgroundRunOptions): BackgroundRun {
  const { threads, ...rest } = options;
  // A job at parallelism 1, or whose subtasks make one group, runs on one thread (threadsFor).
  if (threadsFor(planJob(options.job), threads) > 1) return ParallelJobRun.start(options);
  return ThreadedJobRun.start(rest);
}
