// From a planned operator to the logic each of its subtasks runs, through its kind's factory
// (kindFactories.ts). Work that belongs to the operator as a whole happens once here: a source's
// enumerator assigns the splits, a sink's committer is made, user code is compiled (once per
// subtask: each gets its own Compartment, see compileSubtaskFunctions). `${env:NAME}` in params is
// resolved here, in every thread that prepares operators, so a kind only ever sees plain values.
import { JobError } from '../graph/jobError.js';
import { findKind } from '../graph/kinds/kindRegistry.js';
import type { PlannedOperator } from '../graph/plan.js';
import type { ConnectorState } from '../runtime/connectorState.js';
import type { EdgeRouter } from '../runtime/edgeRouter.js';
import type { SinkCommitter } from '../runtime/sink.js';
import type { Source } from '../runtime/source.js';
import { checkConfined, checkNoEnvironment } from './confinement.js';
import { describeCause } from './connectors/serverRetry.js';
import { resolveEnvParams } from './envParams.js';
import { findFactory, loadFactories } from './kindFactories.js';
import type { CheckpointSetup, ConnectionCheck, LogicFactory, OperatorContext } from './kindFactory.js';
import { SinkEnd, SinkWriterLogic } from './sinkLogic.js';
import { SourceReaderLogic } from './sourceLogic.js';

export { loadFactories } from './kindFactories.js';
export type { CheckpointSetup, LogicFactory } from './kindFactory.js';

export interface PreparedOperator {
  /**
   * The operator as its subtasks see it (env.operator): its params with `${env:NAME}` resolved.
   * Absent where they see the plan's own (a preview's sinks).
   */
  readonly planned?: PlannedOperator;
  readonly create: LogicFactory;
  /** Sinks: the committer their subtasks' output goes through. */
  readonly committer?: SinkCommitter;
  /** Sinks whose writers write JSON text: see KindFactory's `writesJsonText`. */
  readonly writesJsonText?: boolean;
  /** An operator that places its records itself (a transaction): a router for each producer. */
  readonly router?: (maxParallelism: number) => EdgeRouter;
}

/**
 * `restoredSplits`: what the operator's sources had left in the checkpoint a run restores (its
 * enumerator deals them to the subtasks); undefined on a fresh start. `jobName`: the job's name,
 * for what a kind names after the job (a PostgreSQL source's default slot). `confined`: the job is
 * not trusted, and an operator naming a file outside `jobDir` or an environment variable is
 * refused here, before its kind sees its params (see confinement.ts).
 */
export function prepareOperator(
  planned: PlannedOperator,
  jobDir: string,
  checkpoints: CheckpointSetup | undefined,
  restoredSplits?: readonly ConnectorState[],
  jobName = '',
  confined = false,
): PreparedOperator {
  if (confined) checkConfined(planned.operator, jobDir);
  const factory = findFactory(planned.operator.kind);
  if (factory === undefined) {
    const why =
      findKind(planned.operator.kind)?.available === false
        ? 'is not available yet in this version'
        : 'has no implementation loaded (its kind module was not loaded in this process)';
    throw new JobError(`operator "${planned.id}": kind ${planned.operator.kind} ${why}`, planned.id);
  }
  const resolved = withResolvedParams(planned);
  const context: OperatorContext = { planned: resolved, jobDir, jobName, checkpoints };
  switch (factory.role) {
    case 'source':
      return prepareSource(resolved, factory.createSource(context), restoredSplits);
    case 'sink': {
      const sink = factory.createSink(context);
      const end = new SinkEnd(sink.committer, resolved.parallelism);
      return {
        planned: resolved,
        create: (env) => new SinkWriterLogic(env, sink.createWriter(env), end),
        committer: sink.committer,
        writesJsonText: factory.writesJsonText === true,
      };
    }
    case 'transform': {
      const create = factory.createLogic(context);
      const router = factory.createRouter?.(context);
      return router === undefined ? { planned: resolved, create } : { planned: resolved, create, router };
    }
  }
}

/** The planned operator with its params' `${env:NAME}` replaced (itself when it names none). */
function withResolvedParams(planned: PlannedOperator): PlannedOperator {
  const params = resolveEnvParams(planned.operator.params, planned.id);
  if (params === planned.operator.params) return planned;
  return { ...planned, operator: { ...planned.operator, params } as PlannedOperator['operator'] };
}

/**
 * The inspector's "Test connection": asks the kind's factory whether the server answers and the
 * topic, table or stream exists, with `${env:NAME}` resolved from this process's environment
 * (unless `confined`: a job that is not trusted reads no variable). Never throws: a kind that
 * cannot test, or a variable that is not set or not to be read, is `ok: false` saying so.
 */
export async function testConnection(
  kind: string,
  params: Readonly<Record<string, unknown>>,
  operatorId: string,
  confined = false,
): Promise<ConnectionCheck> {
  await loadFactories([kind]);
  const factory = findFactory(kind);
  if (factory?.testConnection === undefined) {
    return { ok: false, message: `kind ${kind} has no connection to test` };
  }
  let resolved: Readonly<Record<string, unknown>>;
  try {
    if (confined) checkNoEnvironment(operatorId, params);
    resolved = resolveEnvParams(params, operatorId);
  } catch (error) {
    return { ok: false, message: (error as Error).message };
  }
  try {
    return await factory.testConnection(resolved, operatorId);
  } catch (error) {
    // A factory's promise is not to throw; one that does still gets one line, not a stack.
    return { ok: false, message: `operator "${operatorId}": ${describeCause(error)}` };
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
    planned,
    create: (env) =>
      new SourceReaderLogic(env, source, source.createReader(env), assigned[env.subtask] ?? []),
  };
}
