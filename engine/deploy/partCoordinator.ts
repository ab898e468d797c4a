// The checkpoint coordinator of a run on several threads, on the run's main thread. It reaches the
// subtasks through their threads: a trigger or a completion is one message to every thread, and
// each subtask's acknowledgement comes back as a message (parallelJobRun.ts hands it on). A sink's
// committer runs on the thread of the sink's writers, since it shares their target, so each of
// its calls is a message there and back (partProxies.ts); a restore's recovery happens there too,
// before the writers open.
import { CheckpointCoordinator } from '../checkpoint/checkpointCoordinator.js';
import { CheckpointStorage } from '../checkpoint/checkpointStorage.js';
import { findKind } from '../graph/kinds/kindRegistry.js';
import type { Plan } from '../graph/plan.js';
import type { Job } from '../graph/schema.js';
import type { ThreadPlacement } from '../graph/threadPlacement.js';
import type { CheckpointParticipants } from '../runtime/executor.js';
import type { SinkCommitterOf } from '../runtime/sink.js';
import { committerOn } from './partProxies.js';
import type { PartThread } from './partThread.js';
import type { ToPartWorker } from './partWorkerProtocol.js';
import type { RunOptions } from './runOptions.js';

/** A run's threads as its coordinator meets them. */
export interface CoordinatedParts {
  readonly plan: Plan;
  readonly placement: ThreadPlacement;
  /** Every thread, made: the sinks' committers are on them. */
  readonly parts: readonly PartThread[];
  /** Tells every thread. */
  readonly broadcast: (message: ToPartWorker) => void;
}

/** The run's coordinator, starting at checkpoint `firstId`; undefined when the run takes no checkpoints. */
export function partCoordinator(
  options: Pick<RunOptions, 'checkpointDir' | 'restore' | 'onCheckpoint'> & { readonly job: Job },
  threads: CoordinatedParts,
  firstId: number,
): CheckpointCoordinator | undefined {
  const { job } = options;
  if (
    options.checkpointDir !== undefined &&
    (job.settings.checkpointIntervalMs > 0 || options.restore !== undefined)
  ) {
    const coordinator = new CheckpointCoordinator(
      new CheckpointStorage(options.checkpointDir),
      job,
      threads.plan,
      participants(threads),
      sinkCommitters(threads),
      firstId,
    );
    coordinator.onEvent = options.onCheckpoint;
    return coordinator;
  }
  return undefined;
}

function participants({ plan, parts, broadcast }: CoordinatedParts): CheckpointParticipants {
  return {
    count: plan.operators.reduce((n, op) => n + op.parallelism, 0),
    allFinished: () => parts.every((p) => p.finished),
    trigger: (checkpointId) => broadcast({ type: 'trigger', checkpointId }),
    complete: (checkpointId) => broadcast({ type: 'complete', checkpointId }),
  };
}

/**
 * The coordinator's view of each sink's committer: the committer itself runs on the thread
 * of the sink's writers (it shares their target), so a call is a message there and back.
 * A restore's recovery happens there too, before the writers open.
 */
function sinkCommitters({ plan, placement, parts }: CoordinatedParts): SinkCommitterOf[] {
  return plan.operators.flatMap((op) => {
    if (findKind(op.operator.kind)?.role !== 'sink') return [];
    const part = parts[placement.byOperator.get(op.id)![0]!]!;
    return [{ operatorId: op.id, committer: committerOn(part, op.id) }];
  });
}
