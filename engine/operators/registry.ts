// From a planned operator to the logic each of its subtasks runs. Work that belongs to the
// operator as a whole (the sink's shared target) happens once here. User code is compiled here
// too, before anything is opened, but once per subtask: each subtask gets its own Compartment,
// so the code's top-level variables are that subtask's alone (see compileSubtaskFunctions).
import type { CheckpointStorage } from '../checkpoint/checkpointStorage.js';
import type { PlannedOperator } from '../graph/plan.js';
import type { OperatorLogic, SubtaskEnvironment } from '../runtime/operatorLogic.js';
import { JsonlSinkLogic, SinkTarget } from './sinkJsonl.js';
import { GeneratorSourceLogic } from './sourceGenerator.js';
import { JsonlSourceLogic } from './sourceJsonl.js';
import { compileSubtaskFunctions, userFunctionLogics } from './userFunctions.js';

export type LogicFactory = (env: SubtaskEnvironment) => OperatorLogic;

/** Checkpointing, as the factories need it: where files go and the next checkpoint's id. */
export interface CheckpointSetup {
  readonly storage: CheckpointStorage;
  readonly firstId: number;
}

export interface PreparedOperator {
  readonly create: LogicFactory;
  /** Sinks: the target their subtasks share. */
  readonly sink?: SinkTarget;
}

export function prepareOperator(
  planned: PlannedOperator,
  jobDir: string,
  checkpoints: CheckpointSetup | undefined,
): PreparedOperator {
  const operator = planned.operator;
  switch (operator.kind) {
    case 'source.jsonl':
      return { create: (env) => new JsonlSourceLogic(env, operator.params) };
    case 'source.generator': {
      const generate = compileSubtaskFunctions(operator, planned.parallelism);
      return { create: (env) => new GeneratorSourceLogic(env, operator.params, generate(env.subtask)) };
    }
    case 'map':
    case 'filter':
    case 'flatMap':
    case 'process': {
      const fn = compileSubtaskFunctions(operator, planned.parallelism);
      const Logic = userFunctionLogics[operator.kind];
      return { create: (env) => new Logic(env, fn(env.subtask)) };
    }
    case 'sink.jsonl': {
      const sink = new SinkTarget(
        operator.id,
        jobDir,
        operator.params,
        planned.parallelism,
        checkpoints?.storage,
      );
      return { create: (env) => new JsonlSinkLogic(env, sink, checkpoints?.firstId ?? 0), sink };
    }
    case 'window':
    case 'transaction':
      throw new Error(
        `operator "${operator.id}": kind ${operator.kind} is not available yet in this version`,
      );
  }
}
