// The engine's two executors, for tests that run a whole job in this process and check what it
// produces: 'deterministic' (JobRun, every subtask on this thread, one fixed order) and
// 'parallel' (ParallelJobRun, the subtasks spread over worker threads, which load the build in
// dist/: build it first). A test over both says `describe.each(EXECUTORS)` and runs its job
// through runJob/openJob; what it may compare exactly on both is what the parallel executor
// keeps (each key's records in order, each producer's order into one subtask), the rest as a
// multiset.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { JobRun, type RunOptions, type RunSummary } from '../engine/deploy/jobRun.js';
import { ParallelJobRun } from '../engine/deploy/parallelJobRun.js';
import type { Job } from '../engine/graph/schema.js';
import type { JobMetrics } from '../engine/metrics/jobMetrics.js';

export const EXECUTORS = ['deterministic', 'parallel'] as const;
export type Executor = (typeof EXECUTORS)[number];

/**
 * Threads of a parallel run unless a test says otherwise: more than one, so that edges cross
 * threads, and no more than the cores a CI machine is sure to have.
 */
export const PARALLEL_THREADS = 2;

/** What both executors take: no in-process hooks (observer, debug, call marker). */
export type ExecutorRunOptions = Pick<
  RunOptions,
  'jobDir' | 'confined' | 'stateDir' | 'checkpointDir' | 'restore' | 'onCheckpoint' | 'previewSinks'
> & {
  /** Parallel only: threads to spread the subtasks over (default PARALLEL_THREADS). */
  readonly threads?: number;
  /**
   * Parallel only: kind modules each worker loads (compiled, see test/kinds/compileKinds.ts);
   * on this thread the test registers them itself.
   */
  readonly kindModules?: readonly string[];
};

/** An open run, driven alike on either executor. */
export interface ExecutorRun {
  /** Runs to the end (or to a stop); rejects with the run's JobError. Call once. */
  run(): Promise<RunSummary>;
  stop(): void;
  /** Resolves once the run is held (every thread), its figures as they stand. */
  pause(): Promise<void>;
  resume(): void;
  /** The figures so far (on several threads, as of each thread's latest report). */
  metrics(): JobMetrics | undefined;
}

/**
 * Opens `job` on `executor`: resolves once it is open (on several threads, once every thread
 * has opened its subtasks; the run starts then), rejects as the open fails.
 */
export async function openJob(
  executor: Executor,
  job: Job,
  options: ExecutorRunOptions,
): Promise<ExecutorRun> {
  const { threads = PARALLEL_THREADS, kindModules, ...runOptions } = options;
  if (executor === 'deterministic') return JobRun.open(job, runOptions);
  const run = ParallelJobRun.start({
    job,
    ...runOptions,
    threads,
    ...(kindModules === undefined ? {} : { kindModules }),
  });
  await run.opened;
  return {
    run: () => run.run(),
    stop: () => run.stop(),
    pause: () => run.pause(),
    resume: () => run.resume(),
    metrics: () => run.metrics(),
  };
}

/** Opens and runs `job` to its end on `executor`; rejects with the run's JobError. */
export async function runJob(executor: Executor, job: Job, options: ExecutorRunOptions): Promise<RunSummary> {
  return (await openJob(executor, job, options)).run();
}

/** Runs `job` (state in `dir`) and reads the JSONL file `output` it writes there; or the error it fails with. */
export async function runForOutput(
  executor: Executor,
  job: Job,
  dir: string,
  output = 'out.jsonl',
): Promise<{ out?: unknown[]; error?: Error }> {
  try {
    await runJob(executor, job, { jobDir: dir, stateDir: join(dir, 'state') });
  } catch (error) {
    return { error: error as Error };
  }
  const text = await readFile(join(dir, output), 'utf8');
  return {
    out: text
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line)),
  };
}
