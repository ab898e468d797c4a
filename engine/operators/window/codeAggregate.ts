// An aggregate written in the operator's code (params.code), as Flink's AggregateFunction:
// createAccumulator(), add(acc, record), merge(a, b) (needed by session windows, which merge)
// and result(acc). Compiled in the sandbox like every user function; each call's answer is
// checked here, so a wrong one fails naming the function rather than surfacing later as a state
// or sink error.
import { recordCopy } from '../../runtime/recordCopy.js';
import { compileUserCode, type UserFunction } from '../../sandbox/userCode.js';
import type { WindowAggregate } from './windowAggregate.js';

export const AGGREGATE_FUNCTIONS = ['createAccumulator', 'add', 'merge', 'result'] as const;

export type AggregateFunctionName = (typeof AGGREGATE_FUNCTIONS)[number];

/** The functions the code must define: merge only where windows merge (sessions). */
export function requiredAggregateFunctions(windowType: string): AggregateFunctionName[] {
  return windowType === 'session'
    ? [...AGGREGATE_FUNCTIONS]
    : AGGREGATE_FUNCTIONS.filter((name) => name !== 'merge');
}

function isThenable(value: unknown): boolean {
  return (
    value !== null &&
    (typeof value === 'object' || typeof value === 'function') &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

/** An accumulator a function returned: JSON, copied (the code may keep and change its object). */
function accumulator(name: AggregateFunctionName, value: unknown): unknown {
  if (value === undefined) {
    throw new TypeError(`${name} must return the accumulator (it returned undefined)`);
  }
  if (isThenable(value)) {
    throw new TypeError(
      `${name} must return the accumulator itself, not a Promise (aggregates cannot be async)`,
    );
  }
  try {
    return recordCopy(value, () => `${name} returned an accumulator JSON cannot hold`);
  } catch (error) {
    // recordCopy names the value "record"; here it is the accumulator.
    throw new TypeError((error as Error).message.replace(': record', ': accumulator'));
  }
}

/** Compiles the code of a window operator into its aggregate (throws UserCodeError). */
export function compileCodeAggregate(options: {
  readonly code: string;
  readonly operatorId: string;
  readonly windowType: string;
}): WindowAggregate {
  const required = requiredAggregateFunctions(options.windowType);
  const fns = compileUserCode<AggregateFunctionName>({
    code: options.code,
    operatorId: options.operatorId,
    functionNames: AGGREGATE_FUNCTIONS,
    required,
  });
  const call = (name: AggregateFunctionName): UserFunction => {
    const fn = fns[name];
    if (fn === undefined) throw new TypeError(`the code defines no function named ${name}`);
    return fn;
  };
  const create = call('createAccumulator');
  const add = call('add');
  const result = call('result');
  return {
    createAccumulator: () => accumulator('createAccumulator', create()),
    add: (acc, record) => accumulator('add', add(acc, record)),
    merge: (a, b) => accumulator('merge', call('merge')(a, b)),
    result: (acc) => {
      const value = result(acc);
      if (isThenable(value)) throw new TypeError('result must return the value, not a Promise');
      return value;
    },
  };
}
