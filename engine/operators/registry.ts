// From a planned operator to the logic each of its subtasks runs. Work that belongs to the
// operator as a whole (compiling its code, the sink's shared target) happens once here.
import type { PlannedOperator } from '../graph/plan.js';
import type { OperatorLogic, SubtaskEnvironment } from '../runtime/operatorLogic.js';
import { JsonlSinkLogic, SinkTarget } from './sinkJsonl.js';
import { GeneratorSourceLogic } from './sourceGenerator.js';
import { JsonlSourceLogic } from './sourceJsonl.js';
import { compileOperatorFunction, userFunctionLogics } from './userFunctions.js';

export type LogicFactory = (env: SubtaskEnvironment) => OperatorLogic;

export function logicFactory(planned: PlannedOperator, jobDir: string): LogicFactory {
  const operator = planned.operator;
  switch (operator.kind) {
    case 'source.jsonl':
      return (env) => new JsonlSourceLogic(env, operator.params);
    case 'source.generator': {
      const generate = compileOperatorFunction(operator);
      return (env) => new GeneratorSourceLogic(env, operator.params, generate);
    }
    case 'map':
    case 'filter':
    case 'flatMap':
    case 'process': {
      const fn = compileOperatorFunction(operator);
      const Logic = userFunctionLogics[operator.kind];
      return (env) => new Logic(env, fn);
    }
    case 'sink.jsonl': {
      const target = new SinkTarget(jobDir, operator.params, planned.parallelism);
      return (env) => new JsonlSinkLogic(env, target);
    }
    case 'window':
    case 'transaction':
      throw new Error(
        `operator "${operator.id}": kind ${operator.kind} is not available yet in this version`,
      );
  }
}
