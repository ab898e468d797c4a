// Checks of the run and state rows' params. They come from a peer the host does not trust, so
// every field is checked for its type and bounds before a run, a file or a store is touched, and
// a refusal says which field is wrong and what it should be.
import { isAbsolute } from 'node:path';
import { isAbsoluteOrUri } from '../../graph/savepointNames.js';
import type { HostMethod, ParamsOf } from '../../protocol/protocol.js';
import type { Breakpoint, CompareSide, FlinkTarget, RunStartParams } from '../../protocol/runProtocol.js';
import { encodeKey } from '../../state/stateKeys.js';

type Raw = Readonly<Record<string, unknown>>;

/** A page of state is for reading on a screen; more than this per request only ties up the host. */
export const MAX_PAGE_LIMIT = 1000;
const MAX_PREFIX = 1000;
/** A cursor is a key this host handed out: a key text, a state name and a tag, as JSON. */
const MAX_CURSOR = 64 * 1024;
/** A key as JSON: keys come from records, but one this long is no key a person looks up. */
const MAX_KEY = 64 * 1024;
const MAX_BREAKPOINTS = 1000;
const MAX_EXPRESSION = 10_000;
const MAX_ID = 200;

function refuse(method: HostMethod, key: string, what: string): never {
  throw new Error(`${method}: params.${key} ${what}`);
}

function string(method: HostMethod, raw: Raw, key: string, max = Number.POSITIVE_INFINITY): string {
  const value = raw[key];
  if (typeof value !== 'string') refuse(method, key, 'must be a string');
  if (value.length > max) refuse(method, key, `must be at most ${max} characters`);
  return value;
}

function optionalString(method: HostMethod, raw: Raw, key: string, max: number): string | undefined {
  return raw[key] === undefined ? undefined : string(method, raw, key, max);
}

function absolutePath(method: HostMethod, raw: Raw, key: string): string {
  const value = string(method, raw, key, 4096);
  if (!isAbsolute(value)) refuse(method, key, `must be an absolute path (got "${value.slice(0, 200)}")`);
  return value;
}

function integer(method: HostMethod, raw: Raw, key: string, min: number, max: number): number {
  const value = raw[key];
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
    refuse(method, key, `must be an integer from ${min} to ${max}`);
  }
  return value;
}

function runId(method: HostMethod, raw: Raw): string {
  return string(method, raw, 'runId', MAX_ID);
}

export function runIdParams(method: HostMethod) {
  return (raw: Raw): { runId: string } => ({ runId: runId(method, raw) });
}

function breakpoint(method: HostMethod, value: unknown, index: number): Breakpoint {
  const at = `breakpoints[${index}]`;
  if (typeof value !== 'object' || value === null) refuse(method, at, 'must be an object');
  const b = value as Raw;
  const id = string(method, b, 'id', MAX_ID);
  const field = (key: string, max = MAX_ID) => string(method, b, key, max);
  const operator = () => {
    const name = optionalString(method, b, 'operator', MAX_ID);
    return name === undefined ? {} : { operator: name };
  };
  switch (b.type) {
    case 'operator':
      return { id, type: 'operator', operator: field('operator') };
    case 'condition':
      return { id, type: 'condition', ...operator(), expression: field('expression', MAX_EXPRESSION) };
    case 'stateKey':
      return { id, type: 'stateKey', ...operator(), key: field('key', MAX_EXPRESSION) };
    case 'timer': {
      const key = optionalString(method, b, 'key', MAX_EXPRESSION);
      return { id, type: 'timer', ...operator(), ...(key === undefined ? {} : { key }) };
    }
    case 'watermark':
      return { id, type: 'watermark', ...operator() };
    case 'row':
      return { id, type: 'row', ...operator(), table: field('table'), key: field('key', MAX_EXPRESSION) };
    default:
      return refuse(
        method,
        `${at}.type`,
        'must be "operator", "condition", "stateKey", "timer", "watermark" or "row"',
      );
  }
}

function breakpoints(method: HostMethod, raw: Raw): Breakpoint[] {
  const list = raw.breakpoints;
  if (!Array.isArray(list)) refuse(method, 'breakpoints', 'must be an array');
  if (list.length > MAX_BREAKPOINTS) refuse(method, 'breakpoints', `must hold at most ${MAX_BREAKPOINTS}`);
  return list.map((value, index) => breakpoint(method, value, index));
}

export function runStartParams(raw: Raw): RunStartParams {
  const method = 'run.start';
  const mode = raw.mode;
  if (mode !== 'run' && mode !== 'debug') refuse(method, 'mode', 'must be "run" or "debug"');
  if (typeof raw.previewSinks !== 'boolean') refuse(method, 'previewSinks', 'must be true or false');
  const restore = raw.restore;
  if (
    restore !== undefined &&
    restore !== 'latest' &&
    !(Number.isSafeInteger(restore) && (restore as number) > 0)
  ) {
    refuse(method, 'restore', 'must be "latest" or a checkpoint id (a positive integer)');
  }
  if (raw.trusted !== undefined && typeof raw.trusted !== 'boolean')
    refuse(method, 'trusted', 'must be true or false');
  const flink = raw.flink === undefined ? undefined : flinkTarget(raw.flink);
  return {
    text: string(method, raw, 'text'),
    path: absolutePath(method, raw, 'path'),
    mode,
    previewSinks: raw.previewSinks,
    ...(restore === undefined ? {} : { restore: restore as 'latest' | number }),
    ...(raw.breakpoints === undefined ? {} : { breakpoints: breakpoints(method, raw) }),
    ...(raw.trusted === true ? { trusted: true } : {}),
    ...(flink === undefined ? {} : { flink }),
  };
}

/** Where Run on Flink… sends the job: an http(s) address, and a parallelism the runner takes. */
function flinkTarget(value: unknown): FlinkTarget {
  const method = 'run.start';
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    refuse(method, 'flink', 'must be an object {cluster, parallelism?, fromSavepoint?}');
  const raw = value as Raw;
  const cluster = string(method, raw, 'cluster', 2048).trim();
  let url: URL | undefined;
  try {
    url = new URL(cluster);
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:'))
    refuse(
      method,
      'flink.cluster',
      `must be the cluster's REST address, http://HOST:PORT (got "${cluster.slice(0, 200)}")`,
    );
  const fromSavepoint =
    raw.fromSavepoint === undefined ? undefined : string(method, raw, 'fromSavepoint', 4096);
  // A path relative to the host's folder would mean nothing to the user: absolute, or a URI.
  if (fromSavepoint !== undefined && !isAbsoluteOrUri(fromSavepoint))
    refuse(
      method,
      'flink.fromSavepoint',
      `must be an absolute path or a URI (got "${fromSavepoint.slice(0, 200)}")`,
    );
  return {
    cluster,
    ...(raw.parallelism === undefined ? {} : { parallelism: integer(method, raw, 'parallelism', 1, 32768) }),
    ...(fromSavepoint === undefined ? {} : { fromSavepoint }),
  };
}

export function resumeParams(raw: Raw): ParamsOf<'run.resume'> {
  const method = 'run.resume';
  const until = raw.until;
  if (until !== undefined && until !== 'breakpoint' && until !== 'nextOperator') {
    refuse(method, 'until', 'must be "breakpoint" or "nextOperator"');
  }
  return { runId: runId(method, raw), ...(until === undefined ? {} : { until }) };
}

export function setBreakpointsParams(raw: Raw): ParamsOf<'run.setBreakpoints'> {
  return { runId: runId('run.setBreakpoints', raw), breakpoints: breakpoints('run.setBreakpoints', raw) };
}

export function checkpointsParams(raw: Raw): ParamsOf<'run.checkpoints'> {
  return { path: absolutePath('run.checkpoints', raw, 'path'), text: string('run.checkpoints', raw, 'text') };
}

export function statePageParams(raw: Raw): ParamsOf<'state.page'> {
  const method = 'state.page';
  const prefix = optionalString(method, raw, 'prefix', MAX_PREFIX);
  const after = optionalString(method, raw, 'after', MAX_CURSOR);
  return {
    runId: runId(method, raw),
    operator: string(method, raw, 'operator', MAX_ID),
    subtask: integer(method, raw, 'subtask', 0, 32767),
    limit: integer(method, raw, 'limit', 1, MAX_PAGE_LIMIT),
    ...(prefix === undefined || prefix === '' ? {} : { prefix }),
    ...(after === undefined ? {} : { after }),
    ...(raw.checkpointId === undefined
      ? {}
      : { checkpointId: integer(method, raw, 'checkpointId', 1, Number.MAX_SAFE_INTEGER) }),
    ...(raw.sizes === true ? { sizes: true } : {}),
  };
}

/** The record of a step a trace is of: one it emitted, by index, or the one it took. */
function emittedParam(value: unknown): number | 'received' {
  if (value === 'received') return value;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    refuse('run.trace', 'emitted', 'must be "received" or an index from 0 (a record the step emitted)');
  }
  return value;
}

export function traceParams(raw: Raw): ParamsOf<'run.trace'> {
  const method = 'run.trace';
  return {
    runId: runId(method, raw),
    step: integer(method, raw, 'step', 1, Number.MAX_SAFE_INTEGER),
    emitted: emittedParam(raw.emitted),
  };
}

function optionalCheckpoint(method: HostMethod, raw: Raw): { checkpointId?: number } {
  return raw.checkpointId === undefined
    ? {}
    : { checkpointId: integer(method, raw, 'checkpointId', 1, Number.MAX_SAFE_INTEGER) };
}

/** A key as `ctx.key` shows it: any JSON value but undefined. */
function jsonKey(method: HostMethod, raw: Raw): unknown {
  const key = raw.key;
  let text: string | undefined;
  try {
    text = key === undefined ? undefined : encodeKey(key);
  } catch {
    text = undefined;
  }
  if (text === undefined) refuse(method, 'key', 'must be a key as ctx.key shows it (a JSON value)');
  if (text.length > MAX_KEY) refuse(method, 'key', `must be at most ${MAX_KEY} characters as JSON`);
  return key;
}

function stateType<T extends string>(method: HostMethod, raw: Raw, types: readonly T[]): T {
  const type = raw.type;
  if (!types.includes(type as T))
    refuse(method, 'type', `must be ${types.map((t) => `"${t}"`).join(' or ')}`);
  return type as T;
}

function side(method: HostMethod, raw: Raw, key: string): CompareSide {
  if (raw[key] === 'live') return 'live';
  const id = raw[key];
  if (!Number.isSafeInteger(id) || (id as number) < 1) {
    refuse(method, key, 'must be "live" or a checkpoint id (a positive integer)');
  }
  return id as number;
}

export function stateKeyParams(raw: Raw): ParamsOf<'state.key'> {
  const method = 'state.key';
  return {
    runId: runId(method, raw),
    operator: string(method, raw, 'operator', MAX_ID),
    key: string(method, raw, 'key', MAX_PREFIX),
    ...optionalCheckpoint(method, raw),
  };
}

export function stateElementsParams(raw: Raw): ParamsOf<'state.elements'> {
  const method = 'state.elements';
  const after = optionalString(method, raw, 'after', MAX_CURSOR);
  return {
    runId: runId(method, raw),
    operator: string(method, raw, 'operator', MAX_ID),
    key: jsonKey(method, raw),
    state: string(method, raw, 'state', MAX_ID),
    type: stateType(method, raw, ['map', 'list'] as const),
    limit: integer(method, raw, 'limit', 1, MAX_PAGE_LIMIT),
    ...(after === undefined ? {} : { after }),
    ...optionalCheckpoint(method, raw),
  };
}

export function stateCompareParams(raw: Raw): ParamsOf<'state.compare'> {
  const method = 'state.compare';
  const state = optionalString(method, raw, 'state', MAX_ID);
  const after = optionalString(method, raw, 'after', MAX_CURSOR);
  if (after !== undefined && state === undefined) refuse(method, 'state', 'must be given with params.after');
  return {
    runId: runId(method, raw),
    operator: string(method, raw, 'operator', MAX_ID),
    key: jsonKey(method, raw),
    from: side(method, raw, 'from'),
    to: side(method, raw, 'to'),
    limit: integer(method, raw, 'limit', 1, MAX_PAGE_LIMIT),
    ...(state === undefined
      ? {}
      : { state, type: stateType(method, raw, ['value', 'map', 'list'] as const) }),
    ...(after === undefined ? {} : { after }),
  };
}
