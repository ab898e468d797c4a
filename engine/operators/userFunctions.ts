// map, filter, flatMap and process: user functions over records. The code is compiled once per
// subtask, each in a Compartment of its own, and called with that subtask's ctx.
import { KINDS } from '../graph/operatorKinds.js';
import type { Operator } from '../graph/schema.js';
import type { Envelope } from '../runtime/envelope.js';
import { BaseLogic, type SubtaskEnvironment } from '../runtime/operatorLogic.js';
import { recordCopy } from '../runtime/recordCopy.js';
import type { FiredTimer } from '../runtime/timers.js';
import { compileUserCode } from '../sandbox/userCode.js';
import type { KindFactory } from './kindFactory.js';
import { userContext } from './userContext.js';

// biome-ignore lint/complexity/noBannedTypes: user code is any function
type UserFunction = Function;

/** The kind's function, and for `process` the optional `onTimer`. */
interface OperatorFunctions {
  readonly main: UserFunction;
  readonly onTimer: UserFunction | undefined;
}

export function compileOperatorFunctions(operator: Operator): OperatorFunctions {
  const name = KINDS[operator.kind].functionName;
  const code = 'code' in operator.params ? operator.params.code : undefined;
  if (name === undefined || code === undefined) {
    throw new Error(`operator "${operator.id}": kind ${operator.kind} runs no user code`);
  }
  const functionNames = operator.kind === 'process' ? [name, 'onTimer'] : [name];
  const functions: Readonly<Record<string, UserFunction | undefined>> = compileUserCode({
    code,
    operatorId: operator.id,
    functionNames,
    required: [name],
  });
  return { main: functions[name]!, onTimer: functions.onTimer };
}

export function compileOperatorFunction(operator: Operator): UserFunction {
  return compileOperatorFunctions(operator).main;
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
  const functions = compileEverySubtask(operator, parallelism);
  return (subtask) => functions(subtask).main;
}

function compileEverySubtask(
  operator: Operator,
  parallelism: number,
): (subtask: number) => OperatorFunctions {
  const functions = Array.from({ length: parallelism }, () => compileOperatorFunctions(operator));
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
  protected readonly fn: UserFunction;
  /** The timer firing now (ctx.timeDomain), if any. */
  protected readonly firing: { timer: FiredTimer | undefined } = { timer: undefined };
  constructor(
    env: SubtaskEnvironment,
    protected readonly functions: OperatorFunctions,
  ) {
    super(env);
    this.fn = functions.main;
    const firing = this.firing;
    this.ctx = userContext(env, {}, () => firing.timer?.domain);
  }

  override process(envelope: Envelope): void | Promise<void> {
    // Called as a plain function, never `this.fn(...)`: a method call would hand user code this
    // logic as its `this`, and through it env (resolved params, checkpoint files, the emitter).
    const fn = this.fn;
    const result = fn(envelope.value, this.ctx);
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

  /** onTimer(timestamp, ctx): a timer without the function to take it just goes. */
  onTimer(timer: FiredTimer): void | Promise<void> {
    const onTimer = this.functions.onTimer;
    if (onTimer === undefined) return;
    this.firing.timer = timer;
    let result: unknown;
    try {
      result = onTimer(timer.timestamp, this.ctx);
    } finally {
      if (!isThenable(result)) this.firing.timer = undefined;
    }
    if (isThenable(result)) {
      return Promise.resolve(result).then(
        () => {
          this.firing.timer = undefined;
        },
        (error) => {
          this.firing.timer = undefined;
          throw error;
        },
      );
    }
  }
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
    const fn = compileEverySubtask(operator, planned.parallelism);
    const Logic = userFunctionLogics[operator.kind as keyof typeof userFunctionLogics];
    return (env) => new Logic(env, fn(env.subtask));
  },
};
