// A promise user code rejects and never handles (`Promise.resolve().then(() => { throw e })`)
// surfaces as Node's 'unhandledRejection' long after the call that made it returned: by default
// that kills the whole thread (the CLI with Node's raw dump, the designer's host with it). On a
// run's thread this turns it into the failure of the run, naming the operator and the record.
//
// Which record: a promise is tagged with the call in progress when it is made, and a promise
// made from a tagged one (`.then`, an async function's continuation) inherits the tag, so the
// rejection names the record whose call started the chain. The hook runs for every promise of
// the thread; measured on the reference machine, 1M `await null` took 104 ms without it and
// 267 ms with it (~160 ns per promise). Synchronous user code makes no promises and pays
// nothing; the engine's own hot path is synchronous too.
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
  const origins = new WeakMap<Promise<unknown>, Origin>();
  promiseHooks.onInit((promise, parent) => {
    if (marker.running) {
      origins.set(promise, { owner: marker.owner!, envelope: marker.envelope });
    } else if (parent !== undefined) {
      const origin = origins.get(parent);
      if (origin !== undefined) origins.set(promise, origin);
    }
  });
  process.on('unhandledRejection', (reason, promise) => {
    let origin = origins.get(promise);
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
