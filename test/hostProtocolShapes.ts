// What the host's answer to a frame must look like: a response with the request's id (-1 for a
// frame with no usable id), holding either an error with a one-line message or, for a valid
// request, a result of that method's shape.
import { MAX_ERROR_CHARS } from '../engine/host/hostConnection.js';
import {
  type HostMethod,
  isRequestMessage,
  type RequestMessage,
  type ResponseMessage,
} from '../engine/protocol/protocol.js';
import type { Frame } from './hostProtocolFrames.js';

const NO_REQUEST_ID = -1;
/** An error names the field and what it should be; it never echoes a whole huge value back. */
const MAX_ERROR_LENGTH = MAX_ERROR_CHARS + 100;
const RUN_STATUSES = new Set(['starting', 'running', 'paused', 'finished', 'failed', 'stopped']);

type Check = (result: unknown) => boolean;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const has =
  (shape: Record<string, (value: unknown) => boolean>): Check =>
  (result) =>
    isObject(result) && Object.entries(shape).every(([key, check]) => check(result[key]));
const isString = (value: unknown): boolean => typeof value === 'string';
const isArray = (value: unknown): boolean => Array.isArray(value);
const isStringArray = (value: unknown): boolean => Array.isArray(value) && value.every(isString);
const runInfo = has({
  runId: isString,
  status: (value) => RUN_STATUSES.has(value as string),
  mode: (value) => value === 'run' || value === 'debug',
  stateDir: isString,
  checkpointDir: isString,
});
/** A step, or nothing (at the end of the input, at the start for a step back). */
const stepOrNothing: Check = (result) =>
  result === undefined ||
  has({ seq: Number.isSafeInteger, operator: isString, kind: isString, emitted: isArray, state: isArray })(
    result,
  );

const RESULT_SHAPES: { readonly [M in HostMethod]: Check } = {
  'host.info': has({
    version: isString,
    transport: isString,
    homeDir: isString,
    startDir: isString,
    sep: isString,
  }),
  'templates.list': isArray,
  'file.read': has({ path: isString, text: isString }),
  'file.write': has({ path: isString }),
  'file.list': has({ dir: isString, entries: isArray }),
  'recent.list': isStringArray,
  'recent.add': isStringArray,
  'job.checkFiles': has({ problems: isArray }),
  'job.copyInputs': has({ copied: isStringArray, kept: isStringArray }),
  'trust.check': has({ trusted: (value) => typeof value === 'boolean' }),
  'trust.grant': (value) => typeof value === 'object' && value !== null && Object.keys(value).length === 0,
  'connection.test': has({
    outcome: (value) => value === 'ok' || value === 'failed' || value === 'none',
    message: isString,
  }),
  'run.start': runInfo,
  'run.pause': runInfo,
  'run.resume': runInfo,
  'run.stop': runInfo,
  'run.step': stepOrNothing,
  'run.stepBack': stepOrNothing,
  'run.setBreakpoints': has({ problems: isArray }),
  'run.checkpoints': isArray,
  'state.page': has({ entries: isArray }),
  'run.trace': has({ inputs: isArray, path: isArray }),
  'state.checkpoints': has({ ids: isArray, retained: Number.isSafeInteger }),
  'state.key': has({ found: isArray }),
  'state.elements': has({ elements: isArray, count: Number.isSafeInteger }),
  'state.compare': has({ states: isArray, keyGroup: Number.isSafeInteger }),
};

function parsed(frame: Frame): unknown {
  if (frame.kind === 'binary') return undefined;
  try {
    return JSON.parse(frame.text);
  } catch {
    return undefined;
  }
}

/** The request a frame holds, if it holds a valid one. */
export function requestOf(frame: Frame): RequestMessage | undefined {
  const request = parsed(frame);
  return isRequestMessage(request) ? request : undefined;
}

/** The id the answer to this frame must carry. */
export function responseIdOf(frame: Frame): number {
  const message = parsed(frame);
  const id = isObject(message) ? message.id : undefined;
  return Number.isSafeInteger(id) ? (id as number) : NO_REQUEST_ID;
}

/** What is wrong with the answer to this frame; undefined when nothing is. */
export function checkResponse(frame: Frame, response: ResponseMessage): string | undefined {
  if (!isObject(response) || response.type !== 'response') return 'the answer is not a response';
  if (response.id !== responseIdOf(frame))
    return `the answer has id ${response.id}, not ${responseIdOf(frame)}`;
  const extra = Object.keys(response).filter((key) => !['type', 'id', 'result', 'error'].includes(key));
  if (extra.length > 0) return `the answer has fields no response has: ${extra.join(', ')}`;
  if ('error' in response) {
    if ('result' in response) return 'the answer has both a result and an error';
    const message = (response.error as { message?: unknown } | undefined)?.message;
    if (!isObject(response.error) || typeof message !== 'string' || message.trim() === '') {
      return 'the error has no message';
    }
    if (/\n\s*at /.test(message) || message.includes('file://'))
      return 'the error message holds a stack trace';
    if (message.length > MAX_ERROR_LENGTH) return `the error message is ${message.length} characters long`;
    return undefined;
  }
  const request = requestOf(frame);
  if (request === undefined) return 'a result for a frame that is no valid request';
  if (!RESULT_SHAPES[request.method](response.result)) {
    return `the result is not of the shape of ${request.method}'s`;
  }
  return undefined;
}
