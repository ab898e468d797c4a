// Resuming from a checkpoint: is the job still one its state can follow; who reads what is
// left of the sources; the records that were in flight round a loop; the sinks' last commit.
import { JobError } from '../graph/jobError.js';
import { keyGroupOf, subtaskOfKeyGroup } from '../graph/keyGroups.js';
import type { Plan } from '../graph/plan.js';
import type { ConnectorState } from '../runtime/connectorState.js';
import { envelope } from '../runtime/envelope.js';
import type { RecordSource } from '../runtime/recordSource.js';
import type { SinkCommitterOf } from '../runtime/sink.js';
import type { Subtask } from '../runtime/subtask.js';
import type { CheckpointMetadata, OperatorRecord, SubtaskSnapshot } from './checkpointMetadata.js';
import type { CheckpointStorage } from './checkpointStorage.js';

/** A checkpoint's records grouped by operator, once per checkpoint (see restoredOf). */
const grouped = new WeakMap<
  CheckpointMetadata,
  { readonly operators: Map<string, OperatorRecord>; readonly subtasks: Map<string, SubtaskSnapshot[]> }
>();

/**
 * What `checkpoint` holds of one operator: its record and its subtasks' snapshots (in the
 * checkpoint's order). Grouped on first use: looking through every snapshot for each subtask a
 * restore opens made restoring a big job quadratic in its size.
 */
export function restoredOf(
  checkpoint: CheckpointMetadata,
  operatorId: string,
): { readonly operator: OperatorRecord | undefined; readonly subtasks: readonly SubtaskSnapshot[] } {
  let groups = grouped.get(checkpoint);
  if (groups === undefined) {
    groups = { operators: new Map(checkpoint.operators.map((o) => [o.id, o])), subtasks: new Map() };
    for (const snapshot of checkpoint.subtasks) {
      const list = groups.subtasks.get(snapshot.operator);
      if (list === undefined) groups.subtasks.set(snapshot.operator, [snapshot]);
      else list.push(snapshot);
    }
    grouped.set(checkpoint, groups);
  }
  return { operator: groups.operators.get(operatorId), subtasks: groups.subtasks.get(operatorId) ?? [] };
}

/**
 * Refuses a job its checkpoint cannot be restored into: another number of key groups, an
 * operator with state that is gone, or whose key changed. A new stateless operator, or another
 * parallelism, is fine: key groups move to their new subtasks.
 */
export function checkRestorable(plan: Plan, checkpoint: CheckpointMetadata): void {
  if (checkpoint.maxParallelism !== plan.maxParallelism) {
    throw new JobError(
      `checkpoint ${checkpoint.id} was taken with maxParallelism ${checkpoint.maxParallelism}; the job now has ${plan.maxParallelism}, so its key groups cannot be mapped`,
    );
  }
  for (const record of checkpoint.operators) {
    if (!record.stateful) continue;
    const now = plan.byId.get(record.id);
    if (now === undefined) {
      throw new JobError(
        `operator "${record.id}" has state in checkpoint ${checkpoint.id} but is not in the job any more; restoring would lose it`,
        record.id,
      );
    }
    const keys = now.inputs
      .filter((e) => e.partition === 'hash')
      .map((e) => e.keyPaths.map((p) => p.join('.')).join(','));
    const before = [...new Set(record.keys)].sort().join(' | ');
    const after = [...new Set(keys)].sort().join(' | ');
    if (before !== after) {
      throw new JobError(
        `operator "${record.id}" is keyed by ${after || 'nothing'} now but by ${before} in checkpoint ${checkpoint.id}; its state cannot follow a new key`,
        record.id,
      );
    }
  }
}

/**
 * What an operator's sources had left to read, in subtask order (the operator's enumerator deals
 * it to the subtasks it has now); undefined when the checkpoint holds none for it.
 */
export function restoredSplits(
  checkpoint: CheckpointMetadata,
  operatorId: string,
): readonly ConnectorState[] | undefined {
  const old = restoredOf(checkpoint, operatorId).subtasks.filter((s) => s.splits !== undefined);
  if (old.length === 0) return undefined;
  return old.flatMap((s) => s.splits!);
}

/**
 * Records logged round a loop go back in front of everything else, each to the subtask that now
 * owns its key group (the feedback edge is hash-partitioned, so every record has one).
 */
export async function replayFeedback(
  storage: CheckpointStorage,
  checkpoint: CheckpointMetadata,
  plan: Plan,
  subtasks: readonly Subtask[],
): Promise<void> {
  for (const old of checkpoint.subtasks) {
    if (old.feedback === undefined) continue;
    const operator = plan.byId.get(old.operator);
    if (operator === undefined) continue;
    const source: RecordSource = { kind: 'loop', operatorId: old.operator, checkpointId: checkpoint.id };
    // On several threads, each thread replays the records of its own subtasks.
    const here = subtasks.filter((s) => s.operator === operator);
    let position = 0;
    for await (const line of storage.readLines(old.feedback)) {
      const [value, key, , timestamp] = line as [unknown, unknown, number, number | null];
      const keyGroup = keyGroupOf(key, plan.maxParallelism);
      const target = subtaskOfKeyGroup(keyGroup, operator.parallelism, plan.maxParallelism);
      const subtask = here.find((s) => s.subtask === target);
      if (subtask === undefined) continue;
      const channel = subtask.inputs.find((c) => c.edge.feedback);
      if (channel === undefined) continue;
      channel.push(envelope(value, key, keyGroup, timestamp ?? undefined, source, position++));
    }
  }
}

/**
 * Each sink's committer redoes the checkpoint's commit (idempotent) and discards what came after
 * it, before any writer opens.
 */
export async function recoverSinks(
  checkpoint: CheckpointMetadata,
  sinks: readonly SinkCommitterOf[],
): Promise<void> {
  for (const { operatorId, committer } of sinks) {
    const commit = checkpoint.sinks.find((c) => c.operator === operatorId);
    await committer.recover(commit, checkpoint.id);
  }
}
