// From a planned operator to the logic each of its subtasks runs, through its kind's factory
// (kindFactories.ts). Work that belongs to the operator as a whole happens once here: a source's
// enumerator assigns the splits, a sink's committer is made, user code is compiled (once per
// subtask: each gets its own Compartment, see compileSubtaskFunctions).
import { JobError } from '../graph/jobError.js';
import { findKind } from '../graph/kinds/kindRegistry.js';
import type { PlannedOperator } from '../graph/plan.js';
import type { ConnectorState } from '../runtime/connectorState.js';
import type { SinkCommitter } from '../runtime/sink.js';
import type { Source } from '../runtime/source.js';
import { findFactory } from './kindFactories.js';
import type { CheckpointSetup, LogicFactory, OperatorContext } from './kindFactory.js';
import { SinkEnd, SinkWriterLogic } from './sinkLogic.js';
import { SourceReaderLogic } from './sourceLogic.js';

export type { CheckpointSetup, LogicFactory } from './kindFactory.js';

export interface PreparedOperator {
  readonly create: LogicFactory;
  /** Sinks: the committer their subtasks' output goes through. */
  readonly committer?: SinkCommitter;
}

/**
 * `restoredSplits`: what the operator's sources had left in the checkpoint a run restores (its
 * enumerator deals them to the subtasks); undefined on a fresh start.
 */
export function prepareOperator(
  planned: PlannedOperator,
  jobDir: string,
  checkpoints: CheckpointSetup | undefined,
  restoredSplits?: readonly ConnectorState[],
): PreparedOperator {
  const operator = planned.operator;
  const factory = findFactory(operator.kind);
  if (factory === undefined) {
    const why =
      findKind(operator.kind)?.available === false
        ? 'is not available yet in this version'
        : 'has no implementation loaded (its kind module was not loaded in this process)';
    throw new JobError(`operator "${operator.id}": kind ${operator.kind} ${why}`, operator.id);
  }
  const context: OperatorContext = { planned, jobDir, checkpoints };
  switch (factory.role) {
    case 'source':
      return prepareSource(planned, factory.createSource(context), restoredSplits);
    case 'sink': {
      const sink = factory.createSink(context);
      const end = new SinkEnd(sink.committer, planned.parallelism);
      return {
        create: (env) => new SinkWriterLogic(env, sink.createWriter(env), end),
        committer: sink.committer,
      };
    }
    case 'transform':
      return { create: factory.createLogic(context) };
  }
}

function prepareSource<Split>(
  planned: PlannedOperator,
  source: Source<Split>,
  restored: readonly ConnectorState[] | undefined,
): PreparedOperator {
  // Splits another kind wrote (the operator's kind changed) mean nothing to this one.
  const mine = restored
    ?.filter((s) => s.kind === source.splitKind)
    .map((s) => source.serializer.fromPayload(s.payload));
  const assigned = source.enumerator.assign(planned.parallelism, mine);
  return {
    create: (env) =>
      new SourceReaderLogic(env, source, source.createReader(env), assigned[env.subtask] ?? []),
  };
}
