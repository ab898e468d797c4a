// A run on several threads (the parallel executor): one worker per thread runs its share of
// the subtasks (partWorker.ts), and the records go between workers over links of their own.
// This thread keeps what must see the whole job: the checkpoint coordinator and the sinks'
// committers (partCoordinator.ts), the run's locks, the quiet detection loops need, the merged
// metrics, and the watch over every thread's calls into user code (callWatch.ts). It never runs
// user code, so a stop always gets through; when a thread dies, the run fails naming what that
// thread ran, and the last completed checkpoint is intact for `--restore latest`.
import type { CheckpointCoordinator } from '../checkpoint/checkpointCoordinator.js';
import { checkRestorable } from '../checkpoint/restore.js';
import { JobError } from '../graph/jobError.js';
import { type Plan, planJob } from '../graph/plan.js';
import { placeSubtasks, type ThreadPlacement, threadsFor } from '../graph/threadPlacement.js';
import type { JobMetrics } from '../metrics/jobMetrics.js';
import type { PreviewListener } from '../operators/sinkPreview.js';
import type { StoreBrowser } from '../state/storeBrowser.js';
import { type CallInProgress, CallWatch, longestCall } from './callWatch.js';
import { emptyStateFolder, firstCheckpointId } from './jobAssembly.js';
import type { RunSummary } from './jobRun.js';
import { partCoordinator } from './partCoordinator.js';
import { browserOn } from './partProxies.js';
import { linkPorts, PartThread } from './partThread.js';
import type { FromPartWorker, ToPartWorker } from './partWorkerProtocol.js';
import { QuietDetector } from './quietDetector.js';
import { type HeldRunLocks, takeRunLocks } from './runLock.js';
import { runLockTargets } from './runLockTargets.js';
import { jobMetrics } from './runMetrics.js';
import { neverSettledMessage, partDiedMessage } from './stuckCall.js';
import { subtaskCount, type ThreadedRunOptions } from './threadedJobRun.js';

/** How often a stop looks whether a call in progress has moved on. */
const WATCH_EVERY_MS = 100;
/** How often the coordinator may start a due checkpoint. */
const POLL_EVERY_MS = 5;
/** How long threads get to clean up after a failure before they are terminated. */
const CLEANUP_MS = 2000;
const noop = () => {};

/**
 * As the CLI's run (no checkpoint folder: no checkpoints, as a preview takes none), and for the
 * designer's Run: sinks that hand their records to `previewSinks` and write nothing.
 */
export type ParallelRunOptions = Omit<ThreadedRunOptions, 'checkpointDir'> & {
  readonly checkpointDir?: string;
  readonly previewSinks?: PreviewListener;
};

export class ParallelJobRun {
  private readonly startedAt = performance.now();
  private finishedAt: number | undefined;
  readonly plan: Plan;
  private readonly placement: ThreadPlacement;
  private parts: PartThread[] = [];
  /** Per thread, how many of its subtasks are open (while the job opens). */
  private readonly openedSubtasks: number[] = [];
  private locks: HeldRunLocks | undefined;
  private coordinator: CheckpointCoordinator | undefined;
  /** Paused (the designer): no checkpoint starts, as none does on one thread while paused. */
  private paused = false;
  private quiet: QuietDetector | undefined;
  private watch: CallWatch | undefined;
  private timers: NodeJS.Timeout[] = [];
  /** Every part is open and told to start (begin()): a stop can be sent to them. */
  private begun = false;
  /** A stop asked for before begin(), taken there. */
  private stopping = false;
  private halting = false;
  private failure: string | undefined;
  private done = false;
  readonly opened: Promise<void>;
  private readonly ended: Promise<RunSummary>;
  private settle!: { resolve(summary: RunSummary): void; reject(error: JobError): void };
  private openedSettle!: { resolve(): void; reject(error: unknown): void };

  private constructor(
    private readonly options: ParallelRunOptions,
    threads: number,
  ) {
    this.plan = planJob(options.job);
    this.placement = placeSubtasks(this.plan, threadsFor(this.plan, threads));
    this.ended = new Promise<RunSummary>((resolve, reject) => {
      this.settle = { resolve, reject };
    });
    this.ended.catch(() => {});
    this.opened = new Promise<void>((resolve, reject) => {
      this.openedSettle = { resolve, reject };
    });
    this.opened.catch(() => {});
    this.ended.catch((error) => this.openedSettle.reject(error));
    void this.open().catch((error: unknown) => {
      this.fail(
        error instanceof JobError ? error.message : `internal error: ${(error as Error)?.stack ?? error}`,
      );
    });
  }

  /** Opens the job on `threads` threads and runs it (see `opened`). */
  static start(options: ParallelRunOptions & { readonly threads: number }): ParallelJobRun {
    const { threads, ...rest } = options;
    return new ParallelJobRun(rest, threads);
  }

  /** The number of threads the subtasks are spread over. */
  get threads(): number {
    return this.placement.threads;
  }

  run(): Promise<RunSummary> {
    return this.ended;
  }

  metrics(): JobMetrics | undefined {
    if (this.parts.length === 0) return undefined;
    const elapsed = (this.finishedAt ?? performance.now()) - this.startedAt;
    return jobMetrics(
      this.options.job.name,
      this.plan,
      elapsed,
      this.parts.flatMap((p) => p.rows),
    );
  }

  /**
   * The state browser's reads of one subtask's store while the run has it open: each a message
   * to the thread that runs the subtask (only it has the store open) and its answer.
   */
  stateBrowser(operatorId: string, subtask: number): StoreBrowser | undefined {
    const thread = this.placement.byOperator.get(operatorId)?.[subtask];
    const part = thread === undefined ? undefined : this.parts[thread];
    if (part === undefined || this.done) return undefined;
    return browserOn(part, operatorId, subtask);
  }

  /**
   * The longest call into user code in progress on any thread, with how long it has lasted (to
   * WATCH_EVERY_MS): what the designer's run status shows while it lasts.
   */
  callInProgress(): CallInProgress | undefined {
    return longestCall(this.parts.map((p) => p.view));
  }

  private async open(): Promise<void> {
    const { job } = this.options;
    const options = this.options;
    this.locks = takeRunLocks(
      runLockTargets(job, { ...options, previewSinks: options.previewSinks !== undefined }),
      { job: job.name },
    );
    const restore = options.restore;
    if (restore !== undefined) checkRestorable(this.plan, restore);
    if (job.settings.stateBackend === 'level') await emptyStateFolder(options.stateDir);
    const firstId = await firstCheckpointId(job, options);
    if (this.done) return;
    this.spawn(firstId);
    // The sinks' committers are on the threads just made.
    this.coordinator = partCoordinator(
      options,
      {
        plan: this.plan,
        placement: this.placement,
        parts: this.parts,
        broadcast: (message) => this.broadcast(message),
      },
      firstId,
    );
  }

  private spawn(firstId: number): void {
    const threads = this.placement.threads;
    const ports = linkPorts(threads);
    const {
      onCheckpoint: _c,
      onLongCall: _l,
      onWait: _w,
      onOpening: _o,
      previewSinks,
      ...rest
    } = this.options;
    for (let thread = 0; thread < threads; thread++) {
      const data = {
        ...rest,
        thread,
        threads,
        links: ports[thread]!,
        firstCheckpointId: firstId,
        ...(previewSinks === undefined ? {} : { preview: true }),
      };
      const part: PartThread = new PartThread(thread, this.plan, this.placement, data, {
        heard: (message) => this.heard(thread, part, message),
        // A thread that died cannot take an abort; nor can one that is stuck.
        died: (why) => {
          if (!this.done) this.fail(partDiedMessage(why, part.view.current(), part.subtasks), true);
        },
      });
      this.parts.push(part);
    }
    this.quiet = new QuietDetector(
      threads,
      (round) => this.broadcast({ type: 'probe', round }),
      (action) => {
        if (action === 'closeLoops' || action === 'tellLoopsEnded') {
          this.broadcast({ type: 'command', command: action });
        } else if (action === 'neverSettles') {
          const call = this.parts.map((p) => p.view.current()).find((c) => c?.awaiting === true);
          this.fail(
            call === undefined
              ? 'internal: a call waits on a promise nothing can settle'
              : neverSettledMessage(call),
            true,
          );
        } else if (action === 'stalled') {
          this.fail('internal: the job stalled with subtasks unfinished and nothing left to run');
        }
      },
    );
    this.watch = new CallWatch(
      this.parts.map((p) => p.view),
      this.options.job.settings.callTimeoutMs,
      this.options.onLongCall,
      // A call that does not return cannot take an abort: its thread is terminated.
      (message) => this.fail(message, true),
    );
    const watch = setInterval(() => this.watch?.look(), WATCH_EVERY_MS);
    watch.unref();
    this.timers.push(watch);
  }

  private heard(thread: number, part: PartThread, message: FromPartWorker): void {
    switch (message.type) {
      case 'marker':
        part.view.update(message.update);
        return;
      case 'opening': {
        this.openedSubtasks[thread] = message.opened;
        const opened = this.openedSubtasks.reduce((n, m) => n + (m ?? 0), 0);
        this.options.onOpening?.(opened, subtaskCount(this.options.job));
        return;
      }
      case 'opened':
        part.opened = true;
        if (this.parts.every((p) => p.opened)) this.begin();
        return;
      case 'ack':
        this.coordinator?.acknowledge(message.ordinal, message.checkpointId, Promise.resolve(message.ack));
        return;
      case 'ackFailed':
        this.coordinator?.acknowledge(
          message.ordinal,
          message.checkpointId,
          Promise.reject(new Error(message.reason)),
        );
        return;
      case 'idle':
        this.quiet?.reported(thread, message.status);
        return;
      case 'probed':
        this.quiet?.probed(thread, message.round, message.status);
        return;
      case 'finished':
        part.finished = true;
        if (this.parts.every((p) => p.finished)) void this.finishAll();
        return;
      case 'wait':
        this.options.onWait?.(message.wait);
        return;
      case 'metrics':
        part.rows = message.subtasks;
        return;
      case 'paused':
        part.rows = message.subtasks;
        if (this.holding?.round === message.round) {
          this.holding.left.delete(part);
          if (this.holding.left.size === 0) this.heldEverywhere();
        }
        return;
      case 'preview': {
        const listener = this.options.previewSinks;
        for (const record of message.records) listener?.(message.operatorId, message.subtask, record);
        return;
      }
      case 'answer':
        return;
      case 'closed':
        part.rows = message.subtasks;
        if (this.parts.every((p) => p.closed)) this.allClosed();
        return;
      case 'failed':
        this.fail(message.message);
        return;
    }
  }

  /** Every part is open: the run starts, and with it the checkpoint interval. */
  private begin(): void {
    this.begun = true;
    this.openedSettle.resolve();
    if (this.options.restore?.finished === true) {
      // Restored where a finished run ended: its sinks made that commit again as they opened
      // (on their threads), and nothing is left to run. The parts close as at a stop.
      this.broadcast({ type: 'abort' });
      return;
    }
    this.broadcast({ type: 'start' });
    const coordinator = this.coordinator;
    if (coordinator !== undefined) {
      coordinator.start(this.options.job.settings.checkpointIntervalMs);
      const poll = setInterval(() => {
        if (!this.paused) coordinator.poll();
      }, POLL_EVERY_MS);
      poll.unref();
      this.timers.push(poll);
    }
    if (this.stopping) {
      this.stopping = false;
      this.stop();
    }
  }

  /**
   * Every subtask has finished: the checkpoint in flight settles, the end's checkpoint commits
   * what the sinks wrote since the last one (CheckpointCoordinator.takeFinal: the parts take its
   * trigger and snapshot on their own), then every part commits what no checkpoint took.
   */
  private async finishAll(): Promise<void> {
    if (this.halting || this.failure !== undefined) return;
    // A stop's checkpoint that completes now ends the run there (the parts abort).
    await this.coordinator?.settled();
    if (this.halting || this.failure !== undefined) return;
    await this.coordinator?.takeFinal(async () => {});
    await this.coordinator?.stop();
    if (this.halting || this.failure !== undefined) return;
    this.broadcast({ type: 'commit' });
  }

  /** Every part has closed (committed, or aborted at a stop): the run is over. */
  private allClosed(): void {
    if (this.failure !== undefined) return;
    this.end(() =>
      this.settle.resolve({
        stopped: this.halting || this.stopRequested,
        metrics: this.metrics()!,
        checkpoints: this.coordinator?.completed ?? [],
      }),
    );
  }

  private stopRequested = false;
  /** The pause waiting for every thread to say it holds. */
  private holding: { round: number; left: Set<PartThread>; resolve(): void; held: Promise<void> } | undefined;
  private pauseRounds = 0;

  /**
   * A clean stop, as JobRun.stop: with checkpoints, one more and the run ends at it; without,
   * sources stop and what is in flight completes. A call that does not return a second after
   * the stop ends the run by force (see CallWatch).
   */
  stop(): void {
    this.watch?.stopAsked();
    if (this.stopRequested) return;
    if (!this.begun) {
      // Not running yet (its threads may not even exist: every() of no parts is true, so their
      // being open says nothing): the stop is taken as soon as it is.
      this.stopping = true;
      return;
    }
    this.stopRequested = true;
    // A paused run could never reach the final checkpoint.
    this.resume();
    const coordinator = this.coordinator;
    if (coordinator === undefined) {
      this.broadcast({ type: 'requestStop' });
      return;
    }
    // A checkpoint of the stop's own (see JobRun.stop), then the run ends at it.
    coordinator.requestNow((completed) => {
      if (completed) {
        this.halting = true;
        this.broadcast({ type: 'abort' });
      } else this.broadcast({ type: 'requestStop' });
    });
  }

  /**
   * Each thread holds at its next slice boundary (the designer's Pause); resolves once every one
   * has, with its rows as they stand, so a paused run's metrics no longer move. stop() resumes first.
   */
  async pause(): Promise<void> {
    if (this.stopRequested || this.done) return;
    // A second pause before the threads hold waits for the same.
    if (this.holding !== undefined) return this.holding.held;
    this.paused = true;
    const round = ++this.pauseRounds;
    // A thread that has closed runs nothing more (and hears nothing).
    const left = new Set(this.parts.filter((p) => !p.closed));
    let resolve = noop;
    const everywhere = new Promise<void>((r) => {
      resolve = r;
    });
    // A run that ends meanwhile holds nothing more.
    const held = Promise.race([everywhere, this.ended.then(noop, noop)]);
    this.holding = { round, left, resolve, held };
    if (left.size === 0) this.heldEverywhere();
    this.broadcast({ type: 'pause', round });
    await held;
  }

  resume(): void {
    this.paused = false;
    this.heldEverywhere();
    this.broadcast({ type: 'resume' });
  }

  private heldEverywhere(): void {
    this.holding?.resolve();
    this.holding = undefined;
  }

  /** Ends the run at once, wherever it is (a second Ctrl-C). */
  async kill(): Promise<void> {
    this.fail('stopped at once', true);
    await Promise.allSettled(this.parts.map((p) => p.worker.terminate()));
  }

  private broadcast(message: ToPartWorker): void {
    // What makes a thread send on its own (a trigger: barriers; a stop: ends of stream) is no
    // message between threads, which the quiet detector counts.
    if (message.type === 'trigger' || message.type === 'requestStop') this.quiet?.mailed();
    for (const part of this.parts) part.post(message);
  }

  /**
   * Ends the run with `message`: the threads abort and close (their state and the sinks'
   * uncommitted parts go), and any that has not closed soon (at once when `force`: a thread
   * that is stuck or dead) is terminated.
   */
  private fail(message: string, force = false): void {
    if (this.done || this.failure !== undefined) return;
    this.failure = message;
    this.coordinator?.abandon();
    this.broadcast({ type: 'abort' });
    const cleanup = Promise.all(
      this.parts.map(async (p) => {
        const timer = setTimeout(() => void p.worker.terminate(), force ? 0 : CLEANUP_MS);
        await p.gone;
        clearTimeout(timer);
      }),
    );
    void cleanup.then(() => this.end(() => this.settle.reject(new JobError(message))));
  }

  private end(settle: () => void): void {
    if (this.done) return;
    this.done = true;
    this.finishedAt = performance.now();
    for (const timer of this.timers) clearInterval(timer);
    this.locks?.release();
    for (const part of this.parts) void part.worker.terminate();
    settle();
  }
}
