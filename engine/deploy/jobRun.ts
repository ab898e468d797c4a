// A job run: plan the job, wire subtasks with channels, open state and operators, schedule
// until every subtask has finished, then commit the sinks. On any failure every operator is
// aborted, so nothing half-written becomes visible.
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { getHeapStatistics } from 'node:v8';
import {
  CheckpointCoordinator,
  type CheckpointEvent,
  type CoordinatorProgress,
} from '../checkpoint/checkpointCoordinator.js';
import type { CheckpointMetadata } from '../checkpoint/checkpointMetadata.js';
import { CheckpointStorage } from '../checkpoint/checkpointStorage.js';
import { checkRestorable, distributeSplits, replayFeedback, republishSinks } from '../checkpoint/restore.js';
import { restoreState, StateSnapshots } from '../checkpoint/stateSnapshots.js';
import { keyGroupRange } from '../graph/keyGroups.js';
import { KINDS } from '../graph/operatorKinds.js';
import type { Plan, PlannedEdge, PlannedOperator } from '../graph/plan.js';
import { planJob } from '../graph/plan.js';
import type { Job } from '../graph/schema.js';
import { type JobMetrics, operatorTotals, type SubtaskMetrics } from '../metrics/jobMetrics.js';
import { type PreparedOperator, prepareOperator } from '../operators/registry.js';
import { type PreviewListener, PreviewSinkLogic } from '../operators/sinkPreview.js';
import { UserCodeError } from '../sandbox/userCode.js';
import { KeyedState, type StateApi } from '../state/keyedState.js';
import type { KvStore } from '../state/kvStore.js';
import { LevelKvStore } from '../state/levelKvStore.js';
import { MemoryKvStore } from '../state/memoryKvStore.js';
import type { CallMarker } from '../runtime/callMarker.js';
import { Channel } from '../runtime/channel.js';
import { Emitter } from '../runtime/emitter.js';
import type { ChannelItem } from '../runtime/envelope.js';
import { onEscapedRejection } from '../runtime/escapedRejections.js';
import { cannotWrite } from '../state/fileFault.js';
import { JobError } from '../graph/jobError.js';
import { type HeldRunLocks, takeRunLocks } from '../runtime/runLock.js';
import { runLockTargets } from '../runtime/runLockTargets.js';
import { type ScheduledUnit, Scheduler, type SchedulerProgress } from '../runtime/scheduler.js';
import { type CheckpointAcker, type DeliveryObserver, Subtask, type SubtaskProgress } from '../runtime/subtask.js';

/** Items per channel before its producer is held back. */
export const CHANNEL_CAPACITY = 1024;

/** Keyed state for every operator with keyed input that runs user code. */
export function hasKeyedState(op: PlannedOperator): boolean {
  return op.keyed && KINDS[op.operator.kind].functionName !== undefined;
}

/** The state read caches of all subtasks together: a quarter of the heap, at most 64 MiB. */
function stateCacheBudget(): number {
  return Math.min(64 * 1024 * 1024, getHeapStatistics().heap_size_limit / 4);
}

export interface RunOptions {
  /** Directory of the job file: relative paths in params resolve against it. */
  readonly jobDir: string;
  /** Where LevelDB state lives; its `subtasks/` folder is the engine's and starts empty. */
  readonly stateDir: string;
  /** Where checkpoints go; needed when the job takes checkpoints or restores one. */
  readonly checkpointDir?: string;
  /** A completed checkpoint (loaded and verified) to resume from. */
  readonly restore?: CheckpointMetadata;
  /** Sees every delivery, in order (tests, the debugger's trace). */
  readonly observer?: DeliveryObserver;
  /** Sees every checkpoint as it completes or fails. */
  readonly onCheckpoint?: (event: CheckpointEvent) => void;
  /** Sinks write nothing and hand each record here instead (the designer's preview). */
  readonly previewSinks?: PreviewListener;
  /** A debug run: driven step by step (see step()) by engine/debug's DebugSession. */
  readonly debug?: DebugHooks;
  /**
   * Marks each call into an operator's logic, for the thread that can stop this one to say
   * where it was stuck (runs on a worker thread have one).
   */
  readonly callMarker?: CallMarker;
}

/** What a debug run adds to a run. */
export interface DebugHooks {
  /** Wraps each keyed subtask's store: the debugger's journal, which rolls state back. */
  readonly wrapStore: (store: KvStore) => KvStore;
  /** Wraps what user code sees as ctx.state: the debugger records each access. */
  readonly wrapStateApi: (api: StateApi, state: KeyedState) => StateApi;
  /** The first checkpoint's id: a run opened again to replay numbers its checkpoints as the first did. */
  readonly firstCheckpointId?: number;
}

/** A debug run between two steps, as data (time travel); keyed state is rolled back apart from it. */
export interface RunProgress {
  readonly subtasks: readonly SubtaskProgress[];
  readonly channels: readonly {
    readonly items: readonly ChannelItem[];
    readonly delivered: number;
    readonly ended: boolean;
  }[];
  readonly scheduler: SchedulerProgress;
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
  private readonly scheduler: Scheduler;
  private stopping = false;
  private locks: HeldRunLocks | undefined;
  /** A failure that did not come through the scheduler (a rejection user code left unhandled). */
  private failure: JobError | undefined;
  private readonly stopHearingEscapes: () => void;

  private constructor(
    readonly job: Job,
    readonly plan: Plan,
    readonly subtasks: readonly Subtask[],
    private readonly coordinator: CheckpointCoordinator | undefined,
    readonly firstCheckpointId: number,
  ) {
    this.scheduler = new Scheduler(
      subtasks,
      coordinator === undefined ? undefined : () => coordinator.poll(),
    );
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
      const run = await JobRun.openLocked(job, options);
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

  private static async openLocked(job: Job, options: RunOptions): Promise<JobRun> {
    const plan = planJob(job);
    const restore = options.restore;
    if (restore !== undefined) checkRestorable(plan, restore);
    const storage =
      options.checkpointDir !== undefined && (job.settings.checkpointIntervalMs > 0 || restore !== undefined)
        ? new CheckpointStorage(options.checkpointDir)
        : undefined;
    const debug = options.debug;
    const firstId =
      debug?.firstCheckpointId ?? (storage === undefined ? 1 : ((await storage.completedIds())[0] ?? 0) + 1);
    const setup = storage === undefined ? undefined : { storage, firstId };
    const preview = options.previewSinks;
    const prepared = new Map<string, PreparedOperator>(
      plan.operators.map((op) => [
        op.id,
        preview !== undefined && op.operator.kind.startsWith('sink.')
          ? { create: (env) => new PreviewSinkLogic(env, preview) }
          : prepareOperator(op, options.jobDir, setup),
      ]),
    );
    const subtasks: Subtask[] = [];
    const stores: KvStore[] = [];
    const coordinatorRef: { current?: CheckpointCoordinator } = {};
    try {
      const stateRoot = join(options.stateDir, 'subtasks');
      if (job.settings.stateBackend === 'level') {
        try {
          await rm(stateRoot, { recursive: true, force: true });
          await mkdir(stateRoot, { recursive: true });
        } catch (error) {
          throw cannotWrite('state', options.stateDir, error);
        }
      }
      const channels = wire(plan);
      const keyedSubtasks = plan.operators.filter(hasKeyedState).reduce((n, op) => n + op.parallelism, 0);
      const cacheBytes = stateCacheBudget() / Math.max(1, keyedSubtasks);
      const acker: CheckpointAcker = {
        acknowledge: (subtask, id, ack) => coordinatorRef.current?.acknowledge(subtask, id, ack),
      };
      for (const op of plan.operators) {
        const splits = restore === undefined ? undefined : distributeSplits(restore, op.id, op.parallelism);
        for (let index = 0; index < op.parallelism; index++) {
          const inputs = channels.inputsOf(op.id, index);
          const emitter = new Emitter(index, plan.maxParallelism, op.outputs, (edge) =>
            channels.outputsOf(edge, index),
          );
          let store: KvStore | undefined;
          if (hasKeyedState(op)) {
            store =
              job.settings.stateBackend === 'level'
                ? await LevelKvStore.open(join(stateRoot, `${op.id}-${index}`), cacheBytes)
                : new MemoryKvStore();
            stores.push(store);
          }
          const range = keyGroupRange(index, op.parallelism, plan.maxParallelism);
          // Checkpoints read the store itself: the debugger's journal only sees what state writes.
          const stateStore = store === undefined || debug === undefined ? store : debug.wrapStore(store);
          const state =
            stateStore === undefined ? undefined : new KeyedState(stateStore, debug?.wrapStateApi);
          if (restore !== undefined && store !== undefined && state !== undefined) {
            const handles = restore.subtasks
              .filter((s) => s.operator === op.id && s.state)
              .map((s) => s.state!);
            await restoreState(storage!, store, handles, range);
            await state.recount();
          }
          const subtask = new Subtask(
            op,
            index,
            options.jobDir,
            inputs.list,
            emitter,
            state,
            stateStore,
            inputs.counter,
          );
          subtask.observer = options.observer;
          // A sink or a file source never holds its thread: only user code is marked.
          if (KINDS[op.operator.kind].functionName !== undefined) subtask.callMarker = options.callMarker;
          subtask.ordinal = subtasks.length;
          subtask.stepping = debug !== undefined;
          subtask.restoredSplits = splits?.[index];
          if (storage !== undefined) {
            subtask.checkpointing = {
              storage,
              acker,
              state:
                store === undefined
                  ? undefined
                  : new StateSnapshots(storage, op.id, index, store, range, firstId),
            };
          }
          subtask.logic = prepared.get(op.id)!.create(subtask);
          subtasks.push(subtask);
        }
      }
      options.callMarker?.begin(
        subtasks.map((s) => ({ operatorId: s.operator.id, subtask: s.subtask, parallelism: s.parallelism })),
      );
      if (restore !== undefined) {
        await replayFeedback(storage!, restore, plan, subtasks);
        await republishSinks(storage!, restore, prepared);
      }
      const opened: Subtask[] = [];
      try {
        for (const subtask of subtasks) {
          await subtask.logic.open();
          opened.push(subtask);
        }
      } catch (error) {
        await Promise.allSettled(opened.map((s) => s.logic.abort()));
        throw error;
      }
    } catch (error) {
      await Promise.allSettled(stores.map((s) => s.close()));
      throw error;
    }
    let coordinator: CheckpointCoordinator | undefined;
    if (storage !== undefined) {
      const sinks = [...prepared.values()].flatMap((p) => (p.sink === undefined ? [] : [p.sink]));
      coordinator = new CheckpointCoordinator(storage, job, plan, subtasks, sinks, firstId);
      coordinator.onEvent = options.onCheckpoint;
      // A debug run may open again from the checkpoint it started from (to replay from its
      // start), so that one stays however many are taken after it.
      if (debug !== undefined) coordinator.pinned = restore?.id;
      coordinatorRef.current = coordinator;
    }
    return new JobRun(job, plan, subtasks, coordinator, firstId);
  }

  /** Runs to the end (bounded sources) or until stop(); commits the sinks on success. */
  async run(): Promise<RunSummary> {
    this.coordinator?.start(this.job.settings.checkpointIntervalMs);
    try {
      await this.scheduler.run();
      if (this.failure !== undefined) throw this.failure;
      await this.coordinator?.stop();
      if (!this.scheduler.halted) {
        for (const subtask of this.subtasks) subtask.takeFinalEndsOfStream();
        for (const subtask of this.subtasks) await subtask.store?.flush();
        for (const subtask of this.subtasks) await subtask.logic.commit();
      } else {
        // Stopped at a checkpoint: what came after it is left for a restore to redo.
        await Promise.allSettled(this.subtasks.map((s) => s.logic.abort()));
      }
    } catch (error) {
      this.coordinator?.abandon();
      await Promise.allSettled(this.subtasks.map((s) => s.logic.abort()));
      await Promise.allSettled(this.subtasks.map((s) => s.checkpointing?.state?.discard()));
      await this.closeStores();
      this.locks?.release();
      this.finishedAt = performance.now();
      this.stopHearingEscapes();
      throw error instanceof JobError
        ? error
        : new JobError(`internal error: ${(error as Error).stack ?? error}`);
    }
    await Promise.allSettled(this.subtasks.map((s) => s.checkpointing?.state?.discard()));
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
    this.scheduler.resume();
    const coordinator = this.coordinator;
    if (coordinator === undefined) {
      this.scheduler.requestStop();
      return;
    }
    coordinator.onComplete = () => this.scheduler.halt();
    // A checkpoint that cannot be written (its folder full or gone read-only) must not hold the
    // stop back: it goes on as a stop without checkpoints does, sources ending and what is in
    // flight completing and being committed.
    coordinator.onFailed = () => this.scheduler.requestStop();
    coordinator.requestNow();
  }

  /**
   * Ends the run with `error` at the next slice boundary, as if a subtask had thrown it: for a
   * failure that surfaces outside any call (a promise user code left rejected).
   */
  fail(error: JobError): void {
    this.failure ??= error;
    this.scheduler.resume();
    this.scheduler.halt();
  }

  /** Holds the run at the next slice boundary (see Scheduler.pause); stop() resumes it first. */
  pause(): void {
    if (!this.stopping) this.scheduler.pause();
  }

  resume(): void {
    this.scheduler.resume();
  }

  get paused(): boolean {
    return this.scheduler.paused;
  }

  /** Per edge, the fill of its fullest channel (items / capacity, at most 1): where backpressure builds. */
  edgeFill(): Map<string, number> {
    const fill = new Map<string, number>();
    for (const subtask of this.subtasks) {
      for (const channel of subtask.inputs) {
        const f = Math.min(1, channel.size / channel.capacity);
        if (f >= (fill.get(channel.edge.id) ?? 0)) fill.set(channel.edge.id, f);
      }
    }
    return fill;
  }

  /** The keyed state store of one subtask (open while the run is), for browsing it. */
  stateStore(operatorId: string, subtask: number): KvStore | undefined {
    return this.subtasks.find((s) => s.operator.id === operatorId && s.subtask === subtask)?.store;
  }

  /**
   * Debug runs: the next unit of work, in the order run() does it (see Scheduler.step);
   * undefined once every subtask has finished (then completeSteps()).
   */
  async step(): Promise<ScheduledUnit | undefined> {
    if (this.failure !== undefined) throw this.failure;
    const unit = await this.scheduler.step();
    if (this.failure !== undefined) throw this.failure;
    return unit;
  }

  /**
   * Debug runs, once step() has found every subtask finished: what run() does after its last
   * slice, commit included. The stores stay open, so time travel can still go back.
   */
  async completeSteps(): Promise<void> {
    await this.coordinator?.stop();
    for (const subtask of this.subtasks) subtask.takeFinalEndsOfStream();
    for (const subtask of this.subtasks) await subtask.store?.flush();
    for (const subtask of this.subtasks) await subtask.logic.commit();
    this.finishedAt = performance.now();
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
      scheduler: this.scheduler.progress(),
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
    this.scheduler.restoreProgress(progress.scheduler);
    this.finishedAt = undefined;
  }

  /** Ends a debug run that will not go on: nothing is committed, the stores close. */
  async close(): Promise<void> {
    await this.abandonCheckpoint().catch(() => {});
    this.coordinator?.abandon();
    await Promise.allSettled(this.subtasks.map((s) => s.logic.abort()));
    await Promise.allSettled(this.subtasks.map((s) => s.checkpointing?.state?.discard()));
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
    const elapsedMs = (this.finishedAt ?? performance.now()) - this.startedAt;
    return {
      job: this.job.name,
      elapsedMs,
      operators: this.plan.operators.map((op) => {
        const subtasks: SubtaskMetrics[] = this.subtasks
          .filter((s) => s.operator === op)
          .map((s) => {
            const size = s.stateSize();
            return {
              subtask: s.subtask,
              recordsIn: s.recordsIn,
              recordsOut: s.emitter.recordsOut,
              queued: s.inputCounter.queued,
              ...(size === undefined
                ? {}
                : { stateEntries: size.entries, stateBytes: size.bytes, stateKeys: size.keys }),
            };
          });
        const totals = operatorTotals(subtasks);
        return {
          id: op.id,
          kind: op.operator.kind,
          parallelism: op.parallelism,
          recordsIn: totals.recordsIn,
          recordsOut: totals.recordsOut,
          ...(totals.stateEntries === undefined
            ? {}
            : {
                stateEntries: totals.stateEntries,
                stateBytes: totals.stateBytes,
                stateKeys: totals.stateKeys,
              }),
          subtasks,
        };
      }),
    };
  }

  private async closeStores(): Promise<void> {
    await Promise.allSettled(this.subtasks.map((s) => s.store?.close()));
  }
}

interface Wiring {
  inputsOf(operatorId: string, subtask: number): { list: Channel[]; counter: { queued: number } };
  outputsOf(edge: PlannedEdge, fromSubtask: number): Channel[];
}

/**
 * One channel per edge and pair of subtasks that can talk: forward joins subtask i to i, every
 * other partitioning joins all to all. A consumer reads feedback channels first, then the
 * others in edge order and producer order.
 */
function wire(plan: Plan): Wiring {
  const counters = new Map<string, { queued: number }>();
  const inputs = new Map<string, Channel[]>();
  const outputs = new Map<string, Channel[]>();
  const slot = (operatorId: string, subtask: number) => `${operatorId}#${subtask}`;
  for (const op of plan.operators) {
    for (let i = 0; i < op.parallelism; i++) {
      counters.set(slot(op.id, i), { queued: 0 });
      inputs.set(slot(op.id, i), []);
    }
  }
  const edges = plan.operators.flatMap((op) => [...op.outputs.values()].flat());
  const ordered = [...edges.filter((e) => e.feedback), ...edges.filter((e) => !e.feedback)];
  for (const edge of ordered) {
    const from = plan.byId.get(edge.from)!;
    const to = plan.byId.get(edge.to)!;
    for (let f = 0; f < from.parallelism; f++) {
      const byTarget: Channel[] = [];
      for (let t = 0; t < to.parallelism; t++) {
        if (edge.partition === 'forward' && f !== t) continue;
        const channel = new Channel(edge, f, t, CHANNEL_CAPACITY, counters.get(slot(to.id, t))!);
        byTarget[t] = channel;
        inputs.get(slot(to.id, t))!.push(channel);
      }
      outputs.set(`${edge.id}/${f}`, byTarget);
    }
  }
  return {
    inputsOf: (operatorId, subtask) => ({
      list: inputs.get(slot(operatorId, subtask))!,
      counter: counters.get(slot(operatorId, subtask))!,
    }),
    outputsOf: (edge, fromSubtask) => outputs.get(`${edge.id}/${fromSubtask}`)!,
  };
}
