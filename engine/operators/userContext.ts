// The `ctx` user code receives. Built once per subtask and hardened: user code cannot replace
// its parts, and nothing on it leads back to the engine's objects (only closures do).

import { findKind } from '../graph/kinds/kindRegistry.js';
import type { SubtaskEnvironment } from '../runtime/operatorLogic.js';
import { recordCopy } from '../runtime/recordCopy.js';
import { describeRecordSource } from '../runtime/recordSource.js';
import type { TimeDomain } from '../runtime/timers.js';
import { ensureLockdown } from '../sandbox/userCode.js';
import { findUserFrame } from '../sandbox/userCodeError.js';
import { checkTimerTime } from '../state/timerKeys.js';

/** ctx.timers: the current key's timers (Flink's TimerService), and the two clocks. */
function userTimers(env: SubtaskEnvironment) {
  const keyed = (what: string, domain: TimeDomain, action: 'register' | 'delete') => (timestamp: unknown) => {
    // Read at the call: the subtask gives its timers to the environment after the logic is made.
    const service = env.timers;
    if (service === undefined) {
      const edges = env.operator.inputs.filter((e) => e.partition !== 'hash').map((e) => `"${e.id}"`);
      throw new Error(
        `${what} needs every input hash-partitioned by a key${edges.length > 0 ? `; edge ${edges.join(', ')} is not` : ' (this operator has no keyed input)'}`,
      );
    }
    if (env.current === undefined && env.state?.currentKey === undefined) {
      throw new Error(`${what} has no key to set a timer for here`);
    }
    const ts = checkTimerTime(what, timestamp);
    if (action === 'register') service.register(domain, ts);
    else service.delete(domain, ts);
  };
  return {
    eventTime: keyed('ctx.timers.eventTime', 'eventTime', 'register'),
    processingTime: keyed('ctx.timers.processingTime', 'processingTime', 'register'),
    deleteEventTime: keyed('ctx.timers.deleteEventTime', 'eventTime', 'delete'),
    deleteProcessingTime: keyed('ctx.timers.deleteProcessingTime', 'processingTime', 'delete'),
    currentWatermark: () => env.watermark,
    currentProcessingTime: () => Date.now(),
  };
}

function stateWithoutKey(env: SubtaskEnvironment) {
  const refuse = () => {
    const edges = env.operator.inputs.filter((e) => e.partition !== 'hash').map((e) => `"${e.id}"`);
    throw new Error(
      `keyed state needs every input hash-partitioned by a key${edges.length > 0 ? `; edge ${edges.join(', ')} is not` : ' (this operator has no keyed input)'}`,
    );
  };
  return { value: refuse, map: refuse, list: refuse };
}

export interface ContextExtras {
  /** Generators: a seeded random number in [0, 1). */
  random?: () => number;
}

/**
 * Words where a record ctx.emit refused was emitted: the line of the user's code that called
 * it, and for a source (whose failures name no input record) the record it was making.
 * Only called when a record is refused: taking a stack costs microseconds.
 */
function emitSite(env: SubtaskEnvironment): () => string {
  const operatorId = env.operator.id;
  const isSource = findKind(env.operator.operator.kind)?.role === 'source';
  return () => {
    const frame = findUserFrame(String(new Error().stack), operatorId);
    const lineage = env.emitter.lineage;
    const making =
      isSource && lineage.source !== undefined
        ? ` (making ${describeRecordSource(lineage.source, lineage.position)})`
        : '';
    return `ctx.emit${frame === undefined ? '' : ` at line ${frame.line} of its code`}${making}`;
  };
}

export function userContext(
  env: SubtaskEnvironment,
  extras: ContextExtras = {},
  timeDomain: () => TimeDomain | undefined = () => undefined,
): object {
  ensureLockdown();
  const emitter = env.emitter;
  const site = emitSite(env);
  const ctx = {
    get key() {
      // In onTimer there is no record: the key is the timer's, which state is scoped to.
      return env.current === undefined ? env.state?.currentKey : env.current.key;
    },
    get timestamp() {
      return env.current === undefined ? env.emitter.lineage.timestamp : env.current.timestamp;
    },
    get watermark() {
      return env.watermark;
    },
    get input() {
      return env.input;
    },
    get timeDomain() {
      return timeDomain();
    },
    operator: env.operator.id,
    subtask: env.subtask,
    parallelism: env.parallelism,
    emit(record: unknown, port?: unknown) {
      if (port !== undefined && typeof port !== 'string')
        throw new TypeError('ctx.emit(record, port): port must be a string');
      if (record === undefined) throw new TypeError('ctx.emit(record): record is undefined');
      // A snapshot taken now: changing the object afterwards changes nothing downstream.
      emitter.emit(recordCopy(record, site), port);
    },
    state: env.state?.api ?? stateWithoutKey(env),
    timers: userTimers(env),
    ...extras,
  };
  return harden(ctx);
}
