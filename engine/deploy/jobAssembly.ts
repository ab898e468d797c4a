// The composition root: a job and where it runs in, its subtasks out, each made whole in its
// constructor (gate, logic, store, checkpointer), wired by channels, opened, and put under the
// executor the run is opened on (openRun.ts chooses it; JobRun makes its own) and, with
// checkpoints, one coordinator. Nothing below this folder knows the concrete classes it puts
// together. A failure here leaves nothing open.

import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { getHeapStatistics } from 'node:v8';
import { CheckpointCoordinator } from '../checkpoint/checkpointCoordinator.js';
import type { CheckpointMetadata } from '../checkpoint/checkpointMetadata.js';
import { CheckpointStorage } from '../checkpoint/checkpointStorage.js';
import {
  checkRestorable,
  recoverSinks,
  replayFeedback,
  restoredOf,
  restoredSplits,
} from '../checkpoint/restore.js';
import { restoreState, StateSnapshots } from '../checkpoint/stateSnapshots.js';
import { type CheckpointAcker, FileSubtaskCheckpointer } from '../checkpoint/subtaskCheckpointer.js';
import { keyGroupRange } from '../graph/keyGroups.js';
import { findKind } from '../graph/kinds/kindRegistry.js';
import type { Plan, PlannedEdge, PlannedOperator } from '../graph/plan.js';
import { planJob } from '../graph/plan.js';
import type { Job } from '../graph/schema.js';
import { loadFactories, type PreparedOperator, prepareOperator } from '../operators/registry.js';
import { PreviewSinkLogic } from '../operators/sinkPreview.js';
import { Emitter } from '../runtime/emitter.js';
import type { CheckpointParticipants, Executor } from '../runtime/executor.js';
import { InputGate } from '../runtime/inputGate.js';
import type { SinkCommitterOf } from '../runtime/sink.js';
import { Subtask, type SubtaskContext } from '../runtime/subtask.js';
import { NO_WATERMARK } from '../runtime/timers.js';
import { WaitReport } from '../runtime/waitReport.js';
import { cannotWrite } from '../state/fileFault.js';
import { KeyedState } from '../state/keyedState.js';
import type { KvStore } from '../state/kvStore.js';
import { LevelKvStore } from '../state/levelKvStore.js';
import { MemoryKvStore } from '../state/memoryKvStore.js';
import { type ThreadPart, wire } from './channelWiring.js';
import type { RunOptions } from './runOptions.js';

function runsUserCode(op: PlannedOperator): boolean {
  return findKind(op.operator.kind)?.userCode !== undefined;
}

/** Keyed state (and timers) for every operator with keyed input that runs user code or is keyed by kind (window). */
export function hasKeyedState(op: PlannedOperator): boolean {
  // A transaction routes its records itself: its inputs are broadcast, its rows keyed state.
  if (op.transactional) return true;
  return op.keyed && (runsUserCode(op) || findKind(op.operator.kind)?.keyedInput === 'always');
}

/** The state read caches of all subtasks together: a quarter of the heap, at most 64 MiB. */
function stateCacheBudget(): number {
  return Math.min(64 * 1024 * 1024, getHeapStatistics().heap_size_limit / 4);
}

/**
 * Puts a restored subtask's time back: its keyed state's timers (counted as the state is), its
 * inputs' watermarks and, for a source, how far its records' times had gone. At the same
 * parallelism a subtask gets its own; rescaled, the least of the old subtasks'.
 */
async function restoreTime(
  subtask: Subtask,
  restore: CheckpointMetadata,
  op: PlannedOperator,
  index: number,
): Promise<void> {
  const timers = subtask.time.store;
  await subtask.state?.recount(timers === undefined ? undefined : (key) => timers.restored(key));
  const restored = restoredOf(restore, op.id);
  const old = restored.operator;
  const sameIndex = old !== undefined && old.parallelism === op.parallelism;
  const snapshots = restored.subtasks.filter((s) => !sameIndex || s.subtask === index);
  subtask.time.restore(snapshots.flatMap((s) => (s.time === undefined ? [] : [s.time])));
  subtask.sourceWatermarks?.restore(
    snapshots.flatMap((s) => (s.sourceTime === undefined ? [] : [s.sourceTime])),
  );
  subtask.syncWatermark();
}

/** An executor that runs a whole job on one thread, with its coordinator beside it. */
export interface WholeJobExecutor extends Executor {
  /** The coordinator reaches the subtasks through these. */
  readonly participants: CheckpointParticipants;
  /** Runs before every slice: the coordinator starts a due checkpoint there. */
  beforeSlice: (() => boolean) | undefined;
}

export interface AssembledJob<E extends WholeJobExecutor> {
  readonly plan: Plan;
  readonly subtasks: readonly Subtask[];
  readonly executor: E;
  readonly coordinator: CheckpointCoordinator | undefined;
  readonly firstCheckpointId: number;
}

/** What one thread of a run on several threads is given (parallelJobRun.ts makes it). */
export interface PartSetup extends ThreadPart {
  /** Acknowledgements go to the coordinator, on the run's main thread. */
  readonly acker: CheckpointAcker;
  /** The first checkpoint's id, as the main thread found it. */
  readonly firstCheckpointId: number;
}

/** One thread's subtasks of a run on several threads, opened and wired to the others. */
export interface AssembledPart {
  readonly plan: Plan;
  readonly subtasks: readonly Subtask[];
  /** The committers of the sinks this thread runs (all of a sink's subtasks share a thread). */
  readonly sinks: readonly SinkCommitterOf[];
}

function checkpointStorage(job: Job, options: RunOptions): CheckpointStorage | undefined {
  return options.checkpointDir !== undefined &&
    (job.settings.checkpointIntervalMs > 0 || options.restore !== undefined)
    ? new CheckpointStorage(options.checkpointDir)
    : undefined;
}

/** Empties the state folder's `subtasks/`, where a run on LevelDB opens its subtasks' stores. */
export async function emptyStateFolder(stateDir: string): Promise<void> {
  const stateRoot = join(stateDir, 'subtasks');
  try {
    await rm(stateRoot, { recursive: true, force: true });
    await mkdir(stateRoot, { recursive: true });
  } catch (error) {
    throw cannotWrite('state', stateDir, error);
  }
}

/** The first checkpoint's id: one after the newest completed in the folder. */
export async function firstCheckpointId(job: Job, options: RunOptions): Promise<number> {
  const storage = checkpointStorage(job, options);
  return (
    options.debug?.firstCheckpointId ??
    (storage === undefined ? 1 : ((await storage.completedIds())[0] ?? 0) + 1)
  );
}

/** The whole job on one thread, under the executor `executorFor` puts its subtasks under. */
export async function assembleJob<E extends WholeJobExecutor>(
  job: Job,
  options: RunOptions,
  executorFor: (subtasks: readonly Subtask[]) => E,
): Promise<AssembledJob<E>> {
  const plan = planJob(job);
  const restore = options.restore;
  if (restore !== undefined) checkRestorable(plan, restore);
  const storage = checkpointStorage(job, options);
  const firstId = await firstCheckpointId(job, options);
  const coordinatorRef: { current?: CheckpointCoordinator } = {};
  const acker: CheckpointAcker = {
    acknowledge: (ordinal, id, ack) => coordinatorRef.current?.acknowledge(ordinal, id, ack),
  };
  const { subtasks, sinks } = await assembleSubtasks(job, options, plan, storage, firstId, acker, undefined);
  const executor = executorFor(subtasks);
  let coordinator: CheckpointCoordinator | undefined;
  if (storage !== undefined) {
    coordinator = new CheckpointCoordinator(storage, job, plan, executor.participants, sinks, firstId);
    coordinator.onEvent = options.onCheckpoint;
    // A debug run may open again from the checkpoint it started from (to replay from its
    // start), so that one stays however many are taken after it.
    if (options.debug !== undefined) coordinator.pinned = restore?.id;
    coordinatorRef.current = coordinator;
    const poll = coordinator;
    executor.beforeSlice = () => poll.poll();
  }
  return { plan, subtasks, executor, coordinator, firstCheckpointId: firstId };
}

/**
 * One thread's part: its subtasks, opened, their state restored, wired to the other threads'
 * through `part`. Its sinks are recovered here, before their writers open (their committers run on
 * this thread, beside the writers); the main thread keeps the coordinator.
 */
export async function assemblePart(job: Job, options: RunOptions, part: PartSetup): Promise<AssembledPart> {
  const plan = planJob(job);
  const storage = checkpointStorage(job, options);
  const { subtasks, sinks } = await assembleSubtasks(
    job,
    options,
    plan,
    storage,
    part.firstCheckpointId,
    part.acker,
    part,
  );
  return { plan, subtasks, sinks };
}

async function assembleSubtasks(
  job: Job,
  options: RunOptions,
  plan: Plan,
  storage: CheckpointStorage | undefined,
  firstId: number,
  acker: CheckpointAcker,
  part: PartSetup | undefined,
): Promise<{ subtasks: Subtask[]; sinks: SinkCommitterOf[] }> {
  await loadFactories(plan.operators.map((op) => op.operator.kind));
  const restore = options.restore;
  const debug = options.debug;
  const setup = storage === undefined ? undefined : { files: storage, firstId };
  const preview = options.previewSinks;
  const here = (op: PlannedOperator, index: number) =>
    part === undefined || part.placement.byOperator.get(op.id)![index] === part.thread;
  const prepared = new Map<string, PreparedOperator>(
    plan.operators.map((op) => [
      op.id,
      preview !== undefined && findKind(op.operator.kind)?.role === 'sink'
        ? { create: (env) => new PreviewSinkLogic(env, preview) }
        : prepareOperator(
            op,
            options.jobDir,
            setup,
            restore === undefined ? undefined : restoredSplits(restore, op.id),
            job.name,
            options.confined === true,
          ),
    ]),
  );
  const sinks = plan.operators.flatMap((op) => {
    const committer = prepared.get(op.id)!.committer;
    return committer === undefined || !here(op, 0) ? [] : [{ operatorId: op.id, committer }];
  });
  const subtasks: Subtask[] = [];
  const stores: KvStore[] = [];
  try {
    const stateRoot = join(options.stateDir, 'subtasks');
    // On several threads the main thread has emptied the folder before any part opens.
    if (job.settings.stateBackend === 'level' && part === undefined) await emptyStateFolder(options.stateDir);
    const channels = wire(plan, part, (id) => prepared.get(id)!.writesJsonText === true);
    // The cache budget is the heap's, and each thread has a heap of its own.
    const keyedSubtasks = plan.operators
      .filter(hasKeyedState)
      .reduce((n, op) => n + [...Array(op.parallelism).keys()].filter((i) => here(op, i)).length, 0);
    const cacheBytes = stateCacheBudget() / Math.max(1, keyedSubtasks);
    // Into a transaction of several subtasks each record goes to the owners of its rows only
    // (runtime/edgeRouter.ts). Debug runs broadcast, as before: every subtask takes every
    // record, so Step shows each one where it is walked through the serial order; the order is
    // the same either way (transaction/txOrder.ts).
    const routerOf = (edge: PlannedEdge) => {
      const to = plan.byId.get(edge.to)!;
      if (debug !== undefined || edge.feedback || !to.transactional || to.parallelism < 2) return undefined;
      return prepared.get(to.id)!.router?.(plan.maxParallelism);
    };
    let ordinal = 0;
    for (const op of plan.operators) {
      const userCode = runsUserCode(op);
      for (let index = 0; index < op.parallelism; index++, ordinal++) {
        if (!here(op, index)) continue;
        const inputs = channels.inputsOf(op.id, index);
        const emitter = new Emitter(
          index,
          plan.maxParallelism,
          op.outputs,
          (edge) => channels.outputsOf(edge, index),
          (edge) => routerOf(edge),
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
        const state = stateStore === undefined ? undefined : new KeyedState(stateStore, debug?.wrapStateApi);
        if (restore !== undefined && store !== undefined && state !== undefined) {
          const handles = restoredOf(restore, op.id)
            .subtasks.filter((s) => s.state)
            .map((s) => s.state!);
          await restoreState(storage!, store, handles, range);
        }
        const onWait = options.onWait;
        const waitReport = new WaitReport(
          onWait === undefined
            ? undefined
            : (message) =>
                onWait({
                  operatorId: op.id,
                  subtask: index,
                  parallelism: op.parallelism,
                  ...(message === undefined ? {} : { message }),
                }),
        );
        const context: SubtaskContext = {
          // Params with `${env:NAME}` resolved: what the kind's factory was given too.
          operator: prepared.get(op.id)!.planned ?? op,
          subtask: index,
          parallelism: op.parallelism,
          jobDir: options.jobDir,
          emitter,
          state,
          current: undefined,
          input: undefined,
          watermark: NO_WATERMARK,
          timers: undefined,
          checkpoints: storage,
          inputs: inputs.list,
          maxParallelism: plan.maxParallelism,
          reportWait: waitReport.report,
          stepwise: debug !== undefined,
        };
        const checkpointer =
          storage === undefined
            ? undefined
            : new FileSubtaskCheckpointer(
                { operatorId: op.id, subtask: index, ordinal },
                storage,
                acker,
                store === undefined
                  ? undefined
                  : new StateSnapshots(storage, op.id, index, store, range, firstId),
              );
        const logic = prepared.get(op.id)!.create(context);
        const subtask = new Subtask(
          context,
          new InputGate(inputs.list, inputs.counter),
          logic,
          stateStore,
          checkpointer,
          {
            observer: options.observer,
            // A sink or a file source never holds its thread: only user code is marked.
            callMarker: userCode ? options.callMarker : undefined,
            ordinal,
            maxParallelism: plan.maxParallelism,
            stepping: debug !== undefined,
            suspendsOnWait: logic.waitsInPlace !== true,
            waitReport,
          },
        );
        if (restore !== undefined) {
          await restoreTime(subtask, restore, op, index);
          logic.restoreOperatorState?.(
            [...restoredOf(restore, op.id).subtasks]
              .sort((a, b) => a.subtask - b.subtask)
              .map((s) => s.operatorState),
          );
        }
        subtasks.push(subtask);
        options.onSubtaskOpened?.();
      }
    }
    // The marker names a subtask by its ordinal among the whole run's, on every thread.
    options.callMarker?.begin(
      plan.operators.flatMap((op) =>
        [...Array(op.parallelism).keys()].map((subtask) => ({
          operatorId: op.id,
          subtask,
          parallelism: op.parallelism,
        })),
      ),
    );
    if (restore !== undefined) {
      await replayFeedback(storage!, restore, plan, subtasks);
      await recoverSinks(restore, sinks);
    }
    const opened: Subtask[] = [];
    try {
      for (const subtask of subtasks) {
        // Aborted too if its open fails: what it opened before failing must go with the rest.
        opened.push(subtask);
        await subtask.logic.open();
      }
    } catch (error) {
      await Promise.allSettled(opened.map((s) => s.abort()));
      throw error;
    }
  } catch (error) {
    // A committer may hold a connection (a restore's recover, a writer's sweep) without any of
    // its operator's subtasks having opened to abort.
    await Promise.allSettled(sinks.map((s) => s.committer.close?.()));
    await Promise.allSettled(stores.map((s) => s.close()));
    throw error;
  }
  return { subtasks, sinks };
}
