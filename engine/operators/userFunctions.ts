// map, filter, flatMap and process: user functions over records. The code is compiled once per
// subtask, each in a Compartment of its own, and called with that subtask's ctx.
import { KINDS } from '../graph/operatorKinds.js';
import type { Operator } from '../graph/schema.js';
import type { Envelope } from '../runtime/envelope.js';
import { BaseLogic, type SubtaskEnvironment } from '../runtime/operatorLogic.js';
import { recordCopy } from '../runtime/recordCopy.js';
import { compileUserCode } from '../sandbox/userCode.js';
import type { KindFactory } from './kindFactory.js';
import { userContext } from './userContext.js';

// biome-ignore lint/complexity/noBannedTypes: user code is any function
type UserFunction = Function;

export function compileOperatorFunction(operator: Operator): UserFunction {
  const name = KINDS[operator.kind].functionName;
  if (name === undefined || !('code' in operator.params)) {
    throw new Error(`operator "${operator.id}": kind ${operator.kind} runs no user code`);
  }
  const functions = compileUserCode({
    code: operator.params.code,
    operatorId: operator.id,
    functionNames: [name],
    required: [name],
  });
  return functions[name]!;
}

/**
 * The operator's function for each of its subtasks, all compiled now (so an error in the code
 * stops the job before anything is opened). A top-level variable of the code is then one
 * subtask's, as a field of a Flink function instance is: subtask 0 never sees what subtask 1
 * wrote there. It is still not in checkpoints (a cache at most). A compiled copy costs 0.5-0.9 ms
 * and ~10 KiB of heap (measured on a busy 2-core machine), once per subtask and run.
 */
export function compileSubtaskFunctions(
  operator: Operator,
  parallelism: number,
): (subtask: number) => UserFunction {
  const functions = Array.from({ length: parallelism }, () => compileOperatorFunction(operator));
  return (subtask) => {
    const fn = functions[subtask];
    if (fn === undefined) throw new Error(`operator "${operator.id}" has no subtask ${subtask}`);
    return fn;
  };
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    value !== null &&
    (typeof value === 'object' || typeof value === 'function') &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

abstract class UserFunctionLogic extends BaseLogic {
  protected readonly ctx: object;
  constructor(
    env: SubtaskEnvironment,
    protected readonly fn: UserFunction,
  ) {
    super(env);
    this.ctx = userContext(env);
  }

  override process(envelope: Envelope): void | Promise<void> {
    const result = this.fn(envelope.value, this.ctx);
    if (isThenable(result)) return Promise.resolve(result).then((value) => this.handle(envelope, value));
    this.handle(envelope, result);
  }

  protected abstract handle(envelope: Envelope, result: unknown): void;

  /** Nothing of its own between two records: its state is keyed state. */
  progress(): undefined {
    return undefined;
  }

  restoreProgress(): void {}
}

const mapReturned = () => 'the record map returned';
const filterPassed = () => 'the record filter passed on';

class ProcessLogic extends UserFunctionLogic {
  protected handle(): void {}
}

class MapLogic extends UserFunctionLogic {
  protected handle(_envelope: Envelope, result: unknown): void {
    // Returning nothing drops the record, as a Node-RED function returning null does.
    if (result !== undefined && result !== null) this.env.emitter.emit(recordCopy(result, mapReturned));
  }
}

class FilterLogic extends UserFunctionLogic {
  protected handle(envelope: Envelope, result: unknown): void {
    // A copy: the filter may have changed the record, or may keep it and change it later.
    if (result) this.env.emitter.emit(recordCopy(envelope.value, filterPassed));
  }
}

class FlatMapLogic extends UserFunctionLogic {
  protected handle(_envelope: Envelope, result: unknown): void {
    if (result === undefined || result === null) return;
    if (typeof result !== 'object' || !(Symbol.iterator in result)) {
      throw new TypeError(
        'flatMap must return an array (or other iterable) of records, or emit them with ctx.emit',
      );
    }
    let i = 0;
    const element = () => `element ${i} of what flatMap returned`;
    for (const record of result as Iterable<unknown>) {
      this.env.emitter.emit(recordCopy(record, element));
      i++;
    }
  }
}

export const userFunctionLogics = {
  map: MapLogic,
  filter: FilterLogic,
  flatMap: FlatMapLogic,
  process: ProcessLogic,
} as const;

/** map, filter, flatMap and process: the function compiled once per subtask, called per record. */
export const userFunctionFactory: KindFactory = {
  role: 'transform',
  createLogic: ({ planned }) => {
    const operator = planned.operator;
    const fn = compileSubtaskFunctions(operator, planned.parallelism);
    const Logic = userFunctionLogics[operator.kind as keyof typeof userFunctionLogics];
    return (env) => new Logic(env, fn(env.subtask));
  },
};
