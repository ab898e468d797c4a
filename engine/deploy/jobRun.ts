// A job run on the deterministic executor, all of it on the thread that opens it (openRun.ts
// chooses it for that thread, or for the CLI's run thread, jobWorker.ts): opened by the
// composition root (jobAssembly.ts), run by the executor until every subtask has finished, then
// the end's checkpoint commits the sinks' last output (CheckpointCoordinator.takeFinal). On any
// failure every operator is aborted, so nothing half-written becomes visible. Debug runs are
// driven step by step through it.
import type { CheckpointCoordinator, CoordinatorProgress } from '../checkpoint/checkpointCoordinator.js';
import { JobError } from '../graph/jobError.js';
import type { Plan } from '../graph/plan.js';
import type { Job } from '../graph/schema.js';
import type { JobMetrics } from '../metrics/jobMetrics.js';
import type { Channel } from '../runtime/channel.js';
import {
  DEBUG_SOURCE_RECORDS,
  DeterministicExecutor,
  type ExecutorProgress,
  type ScheduledUnit,
  SLICE_RECORDS,
} from '../runtime/deterministicExecutor.js';
import type { ChannelItem } from '../runtime/envelope.js';
import { onEscapedRejection } from '../runtime/escapedRejections.js';
import type { Subtask, SubtaskProgress } from '../runtime/subtask.js';
import { UserCodeError } from '../sandbox/userCode.js';
import type { KvStore } from '../state/kvStore.js';
import { type AssembledJob, assembleJob } from './jobAssembly.js';
import { type HeldRunLocks, takeRunLocks } from './runLock.js';
import { runLockTargets } from './runLockTargets.js';
import { jobMetrics, subtaskRow } from './runMetrics.js';
import type { RunOptions } from './runOptions.js';

export { hasKeyedState } from './jobAssembly.js';
export type { DebugHooks, RunOptions } from './runOptions.js';

/** A debug run between two steps, as data (time travel); keyed state is rolled back apart from it. */
export interface RunProgress {
  readonly subtasks: readonly SubtaskProgress[];
  readonly channels: readonly {
    readonly items: readonly ChannelItem[];
    readonly delivered: number;
    readonly ended: boolean;
  }[];
  readonly executor: ExecutorProgress;
  readonly coordinator: CoordinatorProgress | undefined;
}

export interface RunSummary {
  readonly stopped: boolean;
  readonly metrics: JobMetrics;
  /** Checkpoints completed in this run. */
  readonly checkpoints: readonly number[];
}

export class JobRun {
  private readonly startedAt = performance.now();
  private finishedAt: number | undefined;
  private readonly executor: DeterministicExecutor;
  readonly plan: Plan;
  readonly subtasks: readonly Subtask[];
  private readonly coordinator: CheckpointCoordinator | undefined;
  readonly firstCheckpointId: number;
  private stopping = false;
  /**
   * Restored from the checkpoint a finished run ended with: its sinks made that commit again as
   * they opened (recoverSinks), and nothing is left to run.
   */
  private readonly restoredEnd: boolean;
  private locks: HeldRunLocks | undefined;
  /** A failure that did not come through the executor (a rejection user code left unhandled). */
  private failure: JobError | undefined;
  private readonly stopHearingEscapes: () => void;

  private constructor(
    readonly job: Job,
    assembled: AssembledJob<DeterministicExecutor>,
    restoredEnd: boolean,
  ) {
    this.restoredEnd = restoredEnd;
    this.plan = assembled.plan;
    this.subtasks = assembled.subtasks;
    this.executor = assembled.executor;
    this.coordinator = assembled.coordinator;
    this.firstCheckpointId = assembled.firstCheckpointId;
    this.stopHearingEscapes = onEscapedRejection((error) => this.fail(error));
  }

  /**
   * Builds and opens everything; a failure here has opened nothing that stays open. First of all
   * it locks what the run writes: a second run of the same folders is refused, naming this one.
   */
  static async open(job: Job, options: RunOptions): Promise<JobRun> {
    const locks = takeRunLocks(
      runLockTargets(job, {
        jobDir: options.jobDir,
        stateDir: options.stateDir,
        ...(options.checkpointDir === undefined ? {} : { checkpointDir: options.checkpointDir }),
        previewSinks: options.previewSinks !== undefined,
      }),
      { job: job.name },
    );
    try {
      // Debug runs step this executor (step(), progress()): a JobRun is always on it.
      // Stepped outside a debug run (tests that stop a run at a chosen slice), a source makes a
      // whole slice per step, as in run().
      const sourceRecordsPerStep = options.debug === undefined ? SLICE_RECORDS : DEBUG_SOURCE_RECORDS;
      const assembled = await assembleJob(
        job,
        options,
        (subtasks) => new DeterministicExecutor(subtasks, sourceRecordsPerStep),
      );
      const run = new JobRun(job, assembled, options.restore?.finished === true);
      run.locks = locks;
      return run;
    } catch (error) {
      locks.release();
      // Code that throws or reaches for something withheld at its top level fails as it compiles:
      // the user's fault, said as such.
      if (error instanceof UserCodeError) throw new JobError(error.message, error.operatorId);
      throw error;
    }
  }

  /** Runs to the end (bounded sources) or until stop(); commits the sinks on success. */
  async run(): Promise<RunSummary> {
    const restoredEnd = this.restoredEnd;
    if (!restoredEnd) this.coordinator?.start(this.job.settings.checkpointIntervalMs);
    try {
      if (!restoredEnd) await this.executor.run();
      if (this.failure !== undefined) throw this.failure;
      if (restoredEnd || this.executor.halted) {
        await this.coordinator?.stop();
        // Stopped at a checkpoint: what came after it is left for a restore to redo. (Restored
        // where a finished run ended, nothing came after it.)
        await Promise.allSettled(this.subtasks.map((s) => s.abort()));
      } else {
        await this.end();
      }
    } catch (error) {
      this.coordinator?.abandon();
      await Promise.allSettled(this.subtasks.map((s) => s.abort()));
      await Promise.allSettled(this.subtasks.map((s) => s.discardSnapshots()));
      await this.closeStores();
      this.locks?.release();
      this.finishedAt = performance.now();
      this.stopHearingEscapes();
      throw error instanceof JobError
        ? error
        : new JobError(`internal error: ${(error as Error).stack ?? error}`);
    }
    await Promise.allSettled(this.subtasks.map((s) => s.discardSnapshots()));
    await this.closeStores();
    this.locks?.release();
    this.finishedAt = performance.now();
    this.stopHearingEscapes();
    return {
      stopped: this.stopping,
      metrics: this.metrics(),
      checkpoints: this.coordinator?.completed ?? [],
    };
  }

  /**
   * A clean stop. With checkpoints: take one more, and stop right after it completes (a
   * restore resumes from there). Without: sources stop, what is in flight completes and is
   * committed.
   */
  stop(): void {
    if (this.stopping) return;
    this.stopping = true;
    // A paused run could never reach the final checkpoint.
    this.executor.resume();
    const coordinator = this.coordinator;
    if (coordinator === undefined) {
      this.executor.requestStop();
      return;
    }
    // A checkpoint of the stop's own, not one in flight as the stop came: that one cut the job
    // before the stop was asked for. One that cannot be written (its folder full or gone
    // read-only) must not hold the stop back: it goes on as a stop without checkpoints does,
    // sources ending and what is in flight completing and being committed.
    coordinator.requestNow((completed) => {
      if (completed) this.executor.halt();
      else this.executor.requestStop();
    });
  }

  /**
   * Ends the run with `error` at the next slice boundary, as if a subtask had thrown it: for a
   * failure that surfaces outside any call (a promise user code left rejected).
   */
  fail(error: JobError): void {
    this.failure ??= error;
    this.executor.resume();
    this.executor.halt();
  }

  /**
   * Holds the run at the next slice boundary (DeterministicExecutor.pause), resolving once it is
   * held; stop() resumes it first.
   */
  async pause(): Promise<void> {
    if (!this.stopping) await this.executor.pause();
  }

  resume(): void {
    this.executor.resume();
  }

  get paused(): boolean {
    return this.executor.paused;
  }

  /**
   * The keyed state store of one subtask (open while the run is), for browsing it: what its
   * logic holds on the heap is written there first (called between two slices).
   */
  stateStore(operatorId: string, subtask: number): KvStore | undefined {
    const found = this.subtasks.find((s) => s.operator.id === operatorId && s.subtask === subtask);
    found?.logic.writeHeldState?.();
    return found?.store;
  }

  /**
   * Debug runs: the next unit of work, in the order run() does it (see DeterministicExecutor.step);
   * undefined once every subtask has finished (then completeSteps()).
   */
  async step(): Promise<ScheduledUnit | undefined> {
    if (this.failure !== undefined) throw this.failure;
    if (this.restoredEnd) return undefined;
    const unit = await this.executor.step();
    if (this.failure !== undefined) throw this.failure;
    return unit;
  }

  /**
   * Debug runs, once step() has found every subtask finished: what run() does after its last
   * slice, commit included, but for the end's checkpoint. The stores stay open, so time travel
   * can still go back, and going back in place needs the sinks' parts of the checkpoints before
   * the end, which one more checkpoint would let go (retention). (A debug run is not exactly
   * once across time travel in any case: going back over a commit of a sink that cannot be put
   * back in place, a connector's, replays the run from its start and commits again.)
   */
  async completeSteps(): Promise<void> {
    if (this.restoredEnd) await this.coordinator?.stop();
    else await this.end(false);
    this.finishedAt = performance.now();
  }

  /**
   * Every subtask has finished: the end's checkpoint commits what the sinks wrote since the
   * last one (CheckpointCoordinator.takeFinal), unless `final` is false; whatever no checkpoint
   * took (none could be taken, or the job takes none) is committed after it.
   */
  private async end(final = true): Promise<void> {
    for (const subtask of this.subtasks) subtask.takeFinalEndsOfStream();
    const coordinator = this.coordinator;
    if (coordinator !== undefined && final) {
      // The subtasks' snapshots; then the news that the checkpoint completed (their mail).
      if (await coordinator.takeFinal(() => this.executor.runFinished())) await this.executor.runFinished();
    }
    await coordinator?.stop();
    if (this.failure !== undefined) throw this.failure;
    for (const subtask of this.subtasks) await subtask.store?.flush();
    for (const subtask of this.subtasks) await subtask.logic.commit();
  }

  /**
   * Debug runs: starts a checkpoint at the next slice boundary, as the interval does in a normal
   * run. Not while the last one still needs steps to complete (false then): it would start only
   * when they have been taken. The last one's files are written first, so that how fast the
   * disk is cannot change where the next starts.
   */
  async requestCheckpoint(): Promise<boolean> {
    const coordinator = this.coordinator;
    if (coordinator === undefined || this.checkpointNeedsSteps()) return false;
    await coordinator.settled();
    coordinator.requestNow();
    return true;
  }

  /**
   * Debug runs, going back in time: gives up the checkpoint in flight, once the snapshots
   * already taken have written their files (the replay takes it again, under the same id).
   */
  async abandonCheckpoint(): Promise<void> {
    const coordinator = this.coordinator;
    if (coordinator === undefined) return;
    if (!this.checkpointNeedsSteps()) return coordinator.settled();
    for (const subtask of this.subtasks) subtask.abandonCheckpoint();
    await coordinator.abandonInFlight();
  }

  /**
   * A checkpoint has started that only more steps can complete: barriers on their way, or a
   * loop head's log waiting for its barrier to come back round.
   */
  private checkpointNeedsSteps(): boolean {
    return this.coordinator?.barriersInFlight === true || this.subtasks.some((s) => s.awaitingFeedback);
  }

  /** Debug runs: the run between two steps, as data; undefined while a checkpoint is being taken. */
  progress(): RunProgress | undefined {
    const coordinator = this.coordinator;
    if (coordinator?.canSaveProgress === false || !this.subtasks.every((s) => s.canSaveProgress))
      return undefined;
    return {
      subtasks: this.subtasks.map((s) => s.progress()),
      channels: this.channels().map((c) => ({ items: c.contents(), delivered: c.delivered, ended: c.ended })),
      executor: this.executor.progress(),
      coordinator: coordinator?.progress(),
    };
  }

  /**
   * Debug runs: back to what progress() gave, once abandonCheckpoint() has settled the
   * checkpoint in flight and the keyed state has been rolled back to the same point.
   * `item` may stand in a fresh copy for a record a step has handed to user code since.
   */
  async restoreProgress(progress: RunProgress, item: (item: ChannelItem) => ChannelItem): Promise<void> {
    // Keyed state's changelog goes on: the journal's writes back are changes like any other.
    if (progress.coordinator !== undefined) await this.coordinator?.rewind(progress.coordinator);
    const channels = this.channels();
    progress.channels.forEach((c, i) => {
      channels[i]!.restore(c.items.map(item), c.delivered, c.ended);
    });
    for (let i = 0; i < this.subtasks.length; i++)
      await this.subtasks[i]!.restoreProgress(progress.subtasks[i]!);
    this.executor.restoreProgress(progress.executor);
    this.finishedAt = undefined;
  }

  /** Ends a debug run that will not go on: nothing is committed, the stores close. */
  async close(): Promise<void> {
    await this.abandonCheckpoint().catch(() => {});
    this.coordinator?.abandon();
    await Promise.allSettled(this.subtasks.map((s) => s.abort()));
    await Promise.allSettled(this.subtasks.map((s) => s.discardSnapshots()));
    await this.closeStores();
    this.locks?.release();
    this.finishedAt ??= performance.now();
    this.stopHearingEscapes();
  }

  /** Every channel, in a fixed order. */
  private channels(): Channel[] {
    return this.subtasks.flatMap((s) => s.inputs);
  }

  metrics(): JobMetrics {
    const now = performance.now();
    // The slice under way, or the wait, counts up to now in where the subtasks' time went.
    this.executor.load?.settle(now);
    const elapsedMs = (this.finishedAt ?? now) - this.startedAt;
    return jobMetrics(this.job.name, this.plan, elapsedMs, this.subtasks.map(subtaskRow));
  }

  private async closeStores(): Promise<void> {
    await Promise.allSettled(this.subtasks.map((s) => s.store?.close()));
  }
}
