// A promise user code rejects and never handles (`Promise.resolve().then(() => { throw e })`)
// surfaces as Node's 'unhandledRejection' long after the call that made it returned: by default
// that kills the whole thread (the CLI with Node's raw dump, the designer's host with it). On a
// run's thread this turns it into the failure of the run, naming the operator and the record.
//
// Which record: a promise is tagged with the call in progress when it is made, and a promise
// made from a tagged one (`.then`, an async function's continuation) inherits the tag, so the
// rejection names the record whose call started the chain. The hook runs for every promise of
// the thread. The tag is a private field stamped on the promise (OriginStamp), not a WeakMap
// entry: measured, 1M async calls that each await once took 150 ms without the hook, 2,000 ms
// with a WeakMap (its ephemerons cost the garbage collector dearly), 225 ms with the stamp;
// NEXMark q4, whose code is async, spent a third of its CPU there. A private field cannot be
// seen or reached from user code, which holds these promises.
import { promiseHooks } from 'node:v8';
import { JobError } from '../graph/jobError.js';
import { describeUserThrow } from '../sandbox/userCode.js';
import type { CallMarker, CallOwner } from './callMarker.js';
import type { Envelope } from './envelope.js';

interface Origin {
  readonly owner: CallOwner;
  readonly envelope: Envelope | undefined;
}

type Listener = (error: JobError) => void;

/**
 * Stamps an object with an origin in a private field: `new OriginStamp(promise, origin)` adds the
 * field to the promise itself (a base class that returns its argument makes it `this`).
 */
class OriginStamp extends (function Target(target: object) {
  return target;
} as unknown as new (
  target: object,
) => object) {
  #origin: Origin;

  private constructor(target: object, origin: Origin) {
    super(target);
    this.#origin = origin;
  }

  static stamp(target: object, origin: Origin): void {
    if (!(#origin in target)) new OriginStamp(target, origin);
  }

  static of(target: object): Origin | undefined {
    return #origin in target ? (target as OriginStamp).#origin : undefined;
  }
}

const listeners = new Set<Listener>();
let installed = false;

/** Runs (JobRun) hear here of a rejection that escaped user code while they are open. */
export function onEscapedRejection(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

const CONTEXT = 'a promise its code made was rejected and nothing handled it';

/** The operator whose code is on the stack of `reason`, from the sourceURL its code is compiled under. */
function operatorOnStack(reason: unknown): string | undefined {
  let stack: unknown;
  try {
    stack = (reason as { stack?: unknown } | null)?.stack;
  } catch {
    return undefined;
  }
  if (typeof stack !== 'string') return undefined;
  const match = /pipewright:\/\/operator\/([^\s:)]+)/.exec(stack);
  if (match === null) return undefined;
  try {
    return decodeURIComponent(match[1]!);
  } catch {
    return undefined;
  }
}

export function escapedRejectionError(reason: unknown, origin: Origin | undefined): JobError {
  if (origin !== undefined) return origin.owner.failure(reason, origin.envelope, CONTEXT);
  const operatorId = operatorOnStack(reason);
  if (operatorId !== undefined) {
    const { message } = describeUserThrow(reason, operatorId);
    const prefix = `operator "${operatorId}": `;
    const detail = message.startsWith(prefix) ? message.slice(prefix.length) : message;
    return new JobError(`operator "${operatorId}" failed: ${CONTEXT}: ${detail}`, operatorId);
  }
  const text = reason instanceof Error ? (reason.stack ?? reason.message) : String(reason);
  return new JobError(`internal error: a promise was rejected and nothing handled it: ${text}`);
}

/**
 * Once per thread that runs jobs (a worker: the CLI's, the designer host's): tags promises with
 * the call `marker` says is in progress, and fails the open runs on a rejection nothing handled.
 */
export function catchEscapedRejections(marker: CallMarker): void {
  if (installed) return;
  installed = true;
  // The call's origin, made once per call rather than per promise.
  let current: Origin | undefined;
  promiseHooks.onInit((promise, parent) => {
    if (marker.running) {
      if (current === undefined || current.owner !== marker.owner || current.envelope !== marker.envelope)
        current = { owner: marker.owner!, envelope: marker.envelope };
      OriginStamp.stamp(promise, current);
    } else if (parent !== undefined) {
      const origin = OriginStamp.of(parent);
      if (origin !== undefined) OriginStamp.stamp(promise, origin);
    }
  });
  process.on('unhandledRejection', (reason, promise) => {
    let origin = OriginStamp.of(promise);
    // A chain the hook did not follow: the operator on the stack, and its record if it is the
    // call still waiting.
    if (
      origin === undefined &&
      marker.owner !== undefined &&
      operatorOnStack(reason) === marker.owner.operator.id
    )
      origin = { owner: marker.owner, envelope: marker.envelope };
    const error = escapedRejectionError(reason, origin);
    if (listeners.size === 0) throw error;
    for (const listener of listeners) listener(error);
  });
}
