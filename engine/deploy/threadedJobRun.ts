// A job run on a worker thread (jobWorker.ts), driven from the thread that handles signals and
// draws progress. User code never runs on this thread, so a stop always gets through: a clean
// one first, and when a call into user code has not returned a second after it (a loop that
// never ends, a promise that never settles), the worker is terminated and the run fails naming
// the operator and the record it was stuck on (a call's length is known to WATCH_EVERY_MS). The last completed checkpoint stays as it was:
// a checkpoint is complete only once its metadata file is renamed into place.
import { Worker } from 'node:worker_threads';
import type { CheckpointEvent } from '../checkpoint/checkpointCoordinator.js';
import { JobError } from '../graph/jobError.js';
import type { JobMetrics } from '../metrics/jobMetrics.js';
import type { SubtaskWait } from '../metrics/waitNotices.js';
import { CallMarkerView, createMarkerBuffer } from '../runtime/callMarker.js';
import { CallWatch } from './callWatch.js';
import type { RunSummary } from './jobRun.js';
import type { FromJobWorker, JobWorkerData, ToJobWorker } from './jobWorkerProtocol.js';
import { releaseRunLocks } from './runLock.js';
import { runLockTargets } from './runLockTargets.js';
import { neverSettledMessage, threadDiedMessage } from './stuckCall.js';
import { takeWarmJobWorker } from './warmJobWorker.js';
import { workerScript } from './workerScript.js';

/** How often a stop looks whether the call in progress has moved on. */
const WATCH_EVERY_MS = 100;

export type ThreadedRunOptions = Omit<JobWorkerData, 'marker'> & {
  readonly onCheckpoint?: (event: CheckpointEvent) => void;
  /** Told once per call that lasts NOTICE_AFTER_MS, in words (describeCall). */
  readonly onLongCall?: (text: string) => void;
  /** Told each change of what a subtask's connector waits for, from the job's opening on. */
  readonly onWait?: (wait: SubtaskWait) => void;
  /**
   * Told how many of the job's `total` subtasks are open, while it opens (each
   * OPENING_REPORT_EVERY of them: a job of fewer opens without a word).
   */
  readonly onOpening?: (opened: number, total: number) => void;
};

/** The subtasks a job runs: its operators' parallelism added up. */
export function subtaskCount(job: ThreadedRunOptions['job']): number {
  return job.operators.reduce((n, op) => n + op.parallelism, 0);
}

export class ThreadedJobRun {
  private readonly worker: Worker;
  private readonly view: CallMarkerView;
  private latest: JobMetrics | undefined;
  /** Resolves once the job is open and running; rejects with the engine's message. */
  readonly opened: Promise<void>;
  private readonly ended: Promise<RunSummary>;
  private settle!: { resolve(summary: RunSummary): void; reject(error: JobError): void };
  /** Samples the call marker, so that how long a call has lasted is known when a stop comes. */
  private readonly watch: NodeJS.Timeout;
  private readonly calls: CallWatch;
  private done = false;
  /** fail() is ending the thread: its exit is no news. */
  private failing = false;

  private constructor(private readonly options: ThreadedRunOptions) {
    const { onCheckpoint, onLongCall, onWait, onOpening, ...rest } = options;
    const marker = createMarkerBuffer();
    this.view = new CallMarkerView(marker);
    this.calls = new CallWatch([this.view], options.job.settings.callTimeoutMs, onLongCall, (message) =>
      this.fail(message),
    );
    const data: JobWorkerData = { ...rest, marker };
    this.worker =
      takeWarmJobWorker(data) ??
      new Worker(workerScript(import.meta.url, './jobWorker.js'), { workerData: data });
    this.ended = new Promise<RunSummary>((resolve, reject) => {
      this.settle = { resolve, reject };
    });
    // Whoever awaits opened() or run() sees the failure; neither alone may leave it unhandled.
    this.ended.catch(() => {});
    this.opened = new Promise<void>((resolve, reject) => {
      this.worker.on('message', (message: FromJobWorker) => {
        switch (message.type) {
          case 'marker':
            this.view.update(message.update);
            return;
          case 'opening':
            onOpening?.(message.opened, subtaskCount(options.job));
            return;
          case 'opened':
            resolve();
            return;
          case 'metrics':
            this.latest = message.metrics;
            return;
          case 'checkpoint':
            onCheckpoint?.(message.event);
            return;
          case 'wait':
            onWait?.(message.wait);
            return;
          case 'done':
            this.latest = message.summary.metrics;
            this.finish(() => this.settle.resolve(message.summary));
            return;
          case 'failed':
            this.finish(() => this.settle.reject(new JobError(message.message)));
            return;
        }
      });
      this.ended.then(() => resolve(), reject);
    });
    this.opened.catch(() => {});
    this.worker.on('error', (error) => {
      const why =
        (error as NodeJS.ErrnoException).code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? 'out of memory'
          : error.message;
      this.fail(threadDiedMessage(why, this.view.current()));
    });
    this.watch = setInterval(() => this.calls.look(), WATCH_EVERY_MS);
    this.watch.unref();
    this.worker.on('exit', (code) => {
      if (this.done || this.failing) return;
      const call = this.view.current();
      this.fail(
        call?.awaiting === true
          ? neverSettledMessage(call)
          : threadDiedMessage(`it ended with exit code ${code}`, call),
      );
    });
  }

  /** Starts the worker, which opens the job and runs it (see `opened`). */
  static start(options: ThreadedRunOptions): ThreadedJobRun {
    return new ThreadedJobRun(options);
  }

  /** Resolves when the run has finished or stopped; rejects with a JobError the user can act on. */
  run(): Promise<RunSummary> {
    return this.ended;
  }

  /** The latest sample (a few times a second), undefined before the first. */
  metrics(): JobMetrics | undefined {
    return this.latest;
  }

  /**
   * A clean stop (as JobRun.stop); and a forced one once the stop is STUCK_AFTER_MS old and a
   * call into user code has been in progress that long (see CallWatch).
   */
  stop(): void {
    this.post({ type: 'stop' });
    this.calls.stopAsked();
  }

  /** Ends the run at once, wherever it is (a second Ctrl-C). */
  async kill(): Promise<void> {
    this.fail('stopped at once');
    await this.worker.terminate();
  }

  private post(message: ToJobWorker): void {
    if (!this.done) this.worker.postMessage(message);
  }

  /**
   * Ends the thread and the run with `message`. The locks the run took are released once the
   * thread is gone: it cannot release them, and this process, which holds them, is alive.
   */
  private fail(message: string): void {
    if (this.done || this.failing) return;
    this.failing = true;
    const threadId = this.worker.threadId;
    void this.worker.terminate().then(() => {
      releaseRunLocks(runLockTargets(this.options.job, this.options), { threadId });
      this.finish(() => this.settle.reject(new JobError(message)));
    });
  }

  private finish(settle: () => void): void {
    if (this.done) return;
    this.done = true;
    clearInterval(this.watch);
    // The thread said how its run ended, after closing what the run opened: nothing it still
    // holds (a connection a connector failed to close) may keep this process alive after that.
    void this.worker.terminate();
    settle();
  }
}
