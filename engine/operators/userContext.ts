// The `ctx` user code receives. Built once per subtask and hardened: user code cannot replace
// its parts, and nothing on it leads back to the engine's objects (only closures do).

import { findKind } from '../graph/kinds/kindRegistry.js';
import type { SubtaskEnvironment } from '../runtime/operatorLogic.js';
import { recordCopy } from '../runtime/recordCopy.js';
import { describeRecordSource } from '../runtime/recordSource.js';
import { ensureLockdown } from '../sandbox/userCode.js';
import { findUserFrame } from '../sandbox/userCodeError.js';

const notYet = (what: string) => () => {
  throw new Error(
    `${what} is not yet supported in this version of Pipewright (event-time timers arrive with windows)`,
  );
};

const timers = {
  eventTime: notYet('ctx.timers.eventTime'),
  processingTime: notYet('ctx.timers.processingTime'),
  deleteEventTime: notYet('ctx.timers.deleteEventTime'),
  deleteProcessingTime: notYet('ctx.timers.deleteProcessingTime'),
};

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

export function userContext(env: SubtaskEnvironment, extras: ContextExtras = {}): object {
  ensureLockdown();
  const emitter = env.emitter;
  const site = emitSite(env);
  const ctx = {
    get key() {
      return env.current?.key;
    },
    get timestamp() {
      return env.current?.timestamp;
    },
    get watermark() {
      return undefined;
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
    timers,
    ...extras,
  };
  return harden(ctx);
}
