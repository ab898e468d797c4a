// What the designer's Run drives: the job on the executor openRun chooses, on as many threads as
// the CLI's run would give it (settings.threads, else the cores). On one thread it is JobRun in
// the run thread, the deterministic executor; spread over more it is the parallel executor, whose
// workers the run thread starts and watches (ParallelJobRun). Debug keeps the deterministic
// executor (debugRun.ts): stepping needs one order of events. HostRun sees only this.
import type { CheckpointEvent } from '../../checkpoint/checkpointCoordinator.js';
import type { CheckpointMetadata } from '../../checkpoint/checkpointMetadata.js';
import type { CallInProgress } from '../../deploy/callWatch.js';
import type { RunSummary } from '../../deploy/jobRun.js';
import { openRun } from '../../deploy/openRun.js';
import { ParallelJobRun } from '../../deploy/parallelJobRun.js';
import type { Plan } from '../../graph/plan.js';
import type { Job } from '../../graph/schema.js';
import type { JobMetrics } from '../../metrics/jobMetrics.js';
import type { SubtaskWait } from '../../metrics/waitNotices.js';
import type { PreviewListener } from '../../operators/sinkPreview.js';
import type { CallMarker } from '../../runtime/callMarker.js';
import type { LiveState } from './drivenRun.js';

export interface RunEngine {
  readonly plan: Plan;
  /** Threads the subtasks run on: 1 is JobRun in this thread. */
  readonly threads: number;
  /** Runs to the end or a stop; rejects with the engine's one-line JobError. */
  run(): Promise<RunSummary>;
  metrics(): JobMetrics;
  /** Resolves once the run is held (every thread at a slice boundary), so its metrics stand still. */
  pause(): Promise<void>;
  resume(): void;
  stop(): void;
  liveState(operatorId: string, subtask: number): LiveState | undefined;
  /**
   * The longest call into user code in progress on the run's workers. On one thread there is
   * none to see from here: the code runs on this thread, which the host's watches (runThread.ts).
   */
  callInProgress(): CallInProgress | undefined;
}

export interface RunEngineOptions {
  readonly jobDir: string;
  /** See RunOptions.confined. */
  readonly confined: boolean;
  readonly stateDir: string;
  /** Absent: no checkpoints (a preview). */
  readonly checkpointDir?: string;
  readonly restore?: CheckpointMetadata;
  readonly previewSinks?: PreviewListener;
  readonly onCheckpoint: (event: CheckpointEvent) => void;
  /** Each change of what a subtask's connector waits for, from the job's opening on. */
  readonly onWait?: (wait: SubtaskWait) => void;
  /** The run thread's marker: only a run on this thread marks its calls in it. */
  readonly callMarker?: CallMarker;
}

/** Opens the job and has it ready to run; rejects with the engine's message if it cannot open. */
export async function openRunEngine(job: Job, options: RunEngineOptions): Promise<RunEngine> {
  const run = await openRun(job, { ...options, oneThread: 'thisThread' });
  if (run instanceof ParallelJobRun) return parallelEngine(run);
  return {
    plan: run.plan,
    threads: 1,
    run: () => run.run(),
    metrics: () => run.metrics(),
    pause: () => run.pause(),
    resume: () => run.resume(),
    stop: () => run.stop(),
    liveState: (operatorId, subtask) => run.stateStore(operatorId, subtask),
    callInProgress: () => undefined,
  };
}

async function parallelEngine(run: ParallelJobRun): Promise<RunEngine> {
  await run.opened;
  return {
    plan: run.plan,
    threads: run.threads,
    run: () => run.run(),
    // Every thread has sent its rows before the run counts as opened.
    metrics: () => run.metrics()!,
    pause: () => run.pause(),
    resume: () => run.resume(),
    stop: () => run.stop(),
    liveState: (operatorId, subtask) => {
      const browser = run.stateBrowser(operatorId, subtask);
      return browser === undefined ? undefined : { browse: async () => browser };
    },
    callInProgress: () => run.callInProgress(),
  };
}
