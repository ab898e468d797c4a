// The composition root: a job and where it runs in, its subtasks out, each made whole in its
// constructor (gate, logic, store, checkpointer), wired by channels, opened, and put under one
// executor and, with checkpoints, one coordinator. Nothing below this folder knows the concrete
// classes it puts together. A failure here leaves nothing open.
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { getHeapStatistics } from 'node:v8';
import { CheckpointCoordinator } from '../checkpoint/checkpointCoordinator.js';
import { CheckpointStorage } from '../checkpoint/checkpointStorage.js';
import { checkRestorable, recoverSinks, replayFeedback, restoredSplits } from '../checkpoint/restore.js';
import { restoreState, StateSnapshots } from '../checkpoint/stateSnapshots.js';
import { type CheckpointAcker, FileSubtaskCheckpointer } from '../checkpoint/subtaskCheckpointer.js';
import { keyGroupRange } from '../graph/keyGroups.js';
import { findKind } from '../graph/kinds/kindRegistry.js';
import type { Plan, PlannedOperator } from '../graph/plan.js';
import { planJob } from '../graph/plan.js';
import type { Job } from '../graph/schema.js';
import { type PreparedOperator, prepareOperator } from '../operators/registry.js';
import { PreviewSinkLogic } from '../operators/sinkPreview.js';
import { DeterministicExecutor } from '../runtime/deterministicExecutor.js';
import { Emitter } from '../runtime/emitter.js';
import { InputGate } from '../runtime/inputGate.js';
import { Subtask, type SubtaskContext } from '../runtime/subtask.js';
import { cannotWrite } from '../state/fileFault.js';
import { KeyedState } from '../state/keyedState.js';
import type { KvStore } from '../state/kvStore.js';
import { LevelKvStore } from '../state/levelKvStore.js';
import { MemoryKvStore } from '../state/memoryKvStore.js';
import { wire } from './channelWiring.js';
import type { RunOptions } from './runOptions.js';

function runsUserCode(op: PlannedOperator): boolean {
  return findKind(op.operator.kind)?.userCode !== undefined;
}

/** Keyed state for every operator with keyed input that runs user code. */
export function hasKeyedState(op: PlannedOperator): boolean {
  return op.keyed && runsUserCode(op);
}

/** The state read caches of all subtasks together: a quarter of the heap, at most 64 MiB. */
function stateCacheBudget(): number {
  return Math.min(64 * 1024 * 1024, getHeapStatistics().heap_size_limit / 4);
}

export interface AssembledJob {
  readonly plan: Plan;
  readonly subtasks: readonly Subtask[];
  readonly executor: DeterministicExecutor;
  readonly coordinator: CheckpointCoordinator | undefined;
  readonly firstCheckpointId: number;
}

export async function assembleJob(job: Job, options: RunOptions): Promise<AssembledJob> {
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
  const setup = storage === undefined ? undefined : { files: storage, firstId };
  const preview = options.previewSinks;
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
          ),
    ]),
  );
  const sinks = [...prepared].flatMap(([operatorId, p]) =>
    p.committer === undefined ? [] : [{ operatorId, committer: p.committer }],
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
      acknowledge: (ordinal, id, ack) => coordinatorRef.current?.acknowledge(ordinal, id, ack),
    };
    for (const op of plan.operators) {
      const userCode = runsUserCode(op);
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
        const state = stateStore === undefined ? undefined : new KeyedState(stateStore, debug?.wrapStateApi);
        if (restore !== undefined && store !== undefined && state !== undefined) {
          const handles = restore.subtasks
            .filter((s) => s.operator === op.id && s.state)
            .map((s) => s.state!);
          await restoreState(storage!, store, handles, range);
          await state.recount();
        }
        const ordinal = subtasks.length;
        const context: SubtaskContext = {
          operator: op,
          subtask: index,
          parallelism: op.parallelism,
          jobDir: options.jobDir,
          emitter,
          state,
          current: undefined,
          checkpoints: storage,
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
        subtasks.push(
          new Subtask(context, new InputGate(inputs.list, inputs.counter), logic, stateStore, checkpointer, {
            observer: options.observer,
            // A sink or a file source never holds its thread: only user code is marked.
            callMarker: userCode ? options.callMarker : undefined,
            ordinal,
            stepping: debug !== undefined,
            suspendsOnWait: logic.waitsInPlace !== true,
          }),
        );
      }
    }
    options.callMarker?.begin(
      subtasks.map((s) => ({ operatorId: s.operator.id, subtask: s.subtask, parallelism: s.parallelism })),
    );
    if (restore !== undefined) {
      await replayFeedback(storage!, restore, plan, subtasks);
      await recoverSinks(restore, sinks);
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
  const executor = new DeterministicExecutor(subtasks);
  let coordinator: CheckpointCoordinator | undefined;
  if (storage !== undefined) {
    coordinator = new CheckpointCoordinator(storage, job, plan, executor.participants, sinks, firstId);
    coordinator.onEvent = options.onCheckpoint;
    // A debug run may open again from the checkpoint it started from (to replay from its
    // start), so that one stays however many are taken after it.
    if (debug !== undefined) coordinator.pinned = restore?.id;
    coordinatorRef.current = coordinator;
    const poll = coordinator;
    executor.beforeSlice = () => poll.poll();
  }
  return { plan, subtasks, executor, coordinator, firstCheckpointId: firstId };
}
