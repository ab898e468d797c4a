// What the CLI's run thread and the thread that started it say to each other: plain data only
// (structured clone), one row per message.
import type { CheckpointEvent } from '../checkpoint/checkpointCoordinator.js';
import type { CheckpointMetadata } from '../checkpoint/checkpointMetadata.js';
import type { Job } from '../graph/schema.js';
import type { JobMetrics } from '../metrics/jobMetrics.js';
import type { SubtaskWait } from '../metrics/waitNotices.js';
import type { MarkerUpdate } from '../runtime/callMarker.js';
import type { RunSummary } from './jobRun.js';

/** Handed to the worker as its workerData. */
export interface JobWorkerData {
  readonly job: Job;
  readonly jobDir: string;
  /** See RunOptions.confined. */
  readonly confined?: boolean;
  readonly stateDir: string;
  readonly checkpointDir: string;
  readonly restore?: CheckpointMetadata;
  /**
   * Kind modules (absolute paths or URLs, see loadKindModule) beyond the built-in kinds: the
   * worker has a kind registry of its own, so it loads them before it opens the job. The
   * starting thread, which validated the job, has loaded the same ones.
   */
  readonly kindModules?: readonly string[];
  /** The call marker's memory (callMarker.ts), shared with the starting thread. */
  readonly marker: SharedArrayBuffer;
}

/**
 * The workerData of a thread started before its job is known (warmJobWorker.ts): it loads, then
 * waits for a `start` message with its JobWorkerData.
 */
export const WARM = 'warm';

/** To the worker, which opens the job and runs it as soon as it starts (or is given it). */
export type ToJobWorker =
  /** A clean stop (JobRun.stop). */
  | { readonly type: 'stop' }
  /** The job of a thread started WARM: its first message, and only then. */
  | { readonly type: 'start'; readonly data: JobWorkerData };

/** From the worker. */
export type FromJobWorker =
  | { readonly type: 'marker'; readonly update: MarkerUpdate }
  /** `opened` of the job's subtasks are open (every OPENING_REPORT_EVERY, while it opens). */
  | { readonly type: 'opening'; readonly opened: number }
  /** JobRun.open succeeded; the run goes on. */
  | { readonly type: 'opened' }
  /** A sample for the progress display and the metrics file, a few times a second. */
  | { readonly type: 'metrics'; readonly metrics: JobMetrics }
  | { readonly type: 'checkpoint'; readonly event: CheckpointEvent }
  /** A subtask's connector began, changed or ended a wait (also while the job opens). */
  | { readonly type: 'wait'; readonly wait: SubtaskWait }
  | { readonly type: 'done'; readonly summary: RunSummary }
  /** Opening or running failed; `message` is for the user as it is. */
  | { readonly type: 'failed'; readonly message: string };
