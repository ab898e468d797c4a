// What went wrong in a user's code, said in terms of their code: the operator, the line of
// `params.code`, the message they threw, and, when the sandbox said no, what was refused and why.
// Never an engine stack trace: that is noise to someone who wrote a 5-line `process`.

/** The line of the compiled source where the user's code starts (line 1 is the wrapper's; see userCode.ts). */
export const USER_CODE_FIRST_LINE = 2;

/** The script name V8 gives frames of an operator's code, so a stack trace names the operator. */
export function sourceUrlOf(operatorId: string): string {
  // SES reads the sourceURL back with a pattern that stops at whitespace and '*'.
  return `pipewright://operator/${encodeURIComponent(operatorId).replaceAll('*', '%2A')}`;
}

export type UserCodeErrorKind =
  /** The code does not parse. */
  | 'syntax'
  /** The code parses but does not define a function the operator kind needs. */
  | 'missing-function'
  /** The code reached for something the sandbox withholds (require, process, the clock, ...). */
  | 'forbidden'
  /** The code threw (or a promise it returned rejected). */
  | 'threw';

export interface UserCodeErrorInit {
  readonly operatorId: string;
  readonly kind: UserCodeErrorKind;
  /** What happened, without the operator or the line: the user's message or our explanation. */
  readonly reason: string;
  readonly line?: number | undefined;
  readonly column?: number | undefined;
  readonly cause?: unknown;
}

export class UserCodeError extends Error {
  override readonly name = 'UserCodeError';
  readonly operatorId: string;
  readonly kind: UserCodeErrorKind;
  readonly reason: string;
  /** 1-based line in the operator's `params.code`, when known. */
  readonly line?: number;
  /** 1-based column on that line, when known. */
  readonly column?: number;

  constructor(init: UserCodeErrorInit) {
    super(
      formatMessage(init.operatorId, init.kind, init.line, init.reason),
      init.cause === undefined ? undefined : { cause: init.cause },
    );
    this.operatorId = init.operatorId;
    this.kind = init.kind;
    this.reason = init.reason;
    if (init.line !== undefined) this.line = init.line;
    if (init.column !== undefined) this.column = init.column;
  }

  /** Wraps a value thrown by user code, described as describeUserThrow describes it. */
  static fromThrow(thrown: unknown, operatorId: string): UserCodeError {
    if (safe(() => thrown instanceof UserCodeError, false)) return thrown as UserCodeError;
    const d = describeUserThrow(thrown, operatorId);
    return new UserCodeError({
      operatorId,
      kind: d.forbidden ? 'forbidden' : 'threw',
      reason: d.message,
      line: d.line,
      column: d.column,
      cause: thrown,
    });
  }
}

export interface UserThrowDescription {
  /**
   * What was thrown, without the operator or the line: the error's message, led by its name
   * unless that is plain "Error" (`TypeError: Cannot read properties of undefined (reading 'a')`),
   * String(value) or JSON for a non-Error, and for a refusal of the sandbox our explanation
   * (`code may not use require (no ambient authority: only ctx and standard JavaScript built-ins)`).
   */
  readonly message: string;
  /** 1-based line in the operator's code of the innermost frame of that code, when the stack has one. */
  readonly line?: number;
  readonly column?: number;
  /** True when the throw is the sandbox refusing something, not the user's own logic failing. */
  readonly forbidden: boolean;
}

/**
 * Describes a value thrown while running an operator's code (synchronously, or as the
 * rejection of the promise an async function returned). Never throws, whatever was thrown.
 * UserCodeError.fromThrow makes the whole sentence, operator and line included.
 */
export function describeUserThrow(thrown: unknown, operatorId: string): UserThrowDescription {
  const isError = safe(() => thrown instanceof Error, false);
  if (!isError) return { message: describeValue(thrown), forbidden: false };
  const err = thrown as Error;
  const name = safeString(safe(() => err.name, 'Error'));
  const raw = safeString(safe(() => err.message, ''));
  const stack = safe(() => err.stack, undefined);
  const where = typeof stack === 'string' ? findUserFrame(stack, operatorId) : undefined;
  const denial = explainDenial(name, raw);
  const message =
    denial ?? (raw === '' ? name : name === 'Error' ? raw : `${name}: ${frozenHint(name, raw)}`);
  const d: UserThrowDescription = { message, forbidden: denial !== undefined };
  return where === undefined ? d : { ...d, line: where.line, column: where.column };
}

/**
 * The sentence of a UserCodeError:
 * `operator "x": syntax error at line 3 of its code: Unexpected token ')'`,
 * `operator "x" threw at line 3 of its code: TypeError: ...`,
 * `operator "x", line 2 of its code: code may not use require (...)`,
 * `operator "x": params.code must define a function named process`.
 */
export function formatMessage(
  operatorId: string,
  kind: UserCodeErrorKind,
  line: number | undefined,
  reason: string,
): string {
  const op = `operator "${operatorId}"`;
  const at = line === undefined ? '' : ` at line ${line} of its code`;
  switch (kind) {
    case 'syntax':
      return `${op}: syntax error${at}: ${reason}`;
    case 'threw':
      return `${op} threw${at}: ${reason}`;
    default:
      return `${op}${line === undefined ? '' : `, line ${line} of its code`}: ${reason}`;
  }
}

/**
 * The innermost frame of the operator's code in a stack as userStackTrace writes it
 * (`    at helper (owners:3:11)`), as a line and column of the user's code.
 */
export function findUserFrame(
  stack: string,
  operatorId: string,
): { line: number; column: number } | undefined {
  const m = new RegExp(`^ {4}at (?:.* \\()?${escapeRegExp(operatorId)}:(\\d+):(\\d+)\\)?$`, 'm').exec(stack);
  return m === null ? undefined : { line: Number(m[1]), column: Number(m[2]) };
}

/** The methods of a V8 call site that SES hands Error.prepareStackTrace, as far as they are used here. */
export interface CallSiteFacet {
  getScriptNameOrSourceURL(): unknown;
  getFunctionName(): unknown;
  getLineNumber(): unknown;
  getColumnNumber(): unknown;
  isAsync(): unknown;
  toString(): string;
}

const OPERATOR_URL = sourceUrlOf('');

/**
 * The stack text of every error in the process, installed as Error.prepareStackTrace once it
 * is locked down. An error that passed through an operator's code lists only the frames of
 * that code, at the user's own lines (`    at helper (owners:3:11)`): user code can read
 * `error.stack` (of its own errors and of those ctx throws at it) and log, throw or emit it,
 * and the engine's frames there are install paths (file:///…/dist/engine/runtime/subtask.js)
 * nobody who wrote a `process` function can act on. Other errors keep every frame.
 */
export function userStackTrace(error: unknown, callSites: readonly CallSiteFacet[]): string {
  const head = safe(
    () => String(error),
    () => 'Error',
  );
  const frames = callSites.map(userFrame);
  if (frames.every((frame) => frame === undefined)) {
    return head + callSites.map((site) => `\n    at ${safe(() => String(site), '?')}`).join('');
  }
  return head + frames.map((frame) => (frame === undefined ? '' : `\n    at ${frame}`)).join('');
}

/**
 * Makes userStackTrace the stack format of every error in the realm for good. `realmError` is
 * the realm's own Error, which lockdown() replaces on globalThis but leaves unfrozen. SES lets
 * any code holding a host error set a realm-wide Error.prepareStackTrace through its constructor
 * (`e.constructor.prepareStackTrace = ...`), so one operator's code could rewrite every stack,
 * other operators' and the engine's included. Assignments are ignored rather than refused: test
 * runners set it for a moment and put it back.
 */
export function pinUserStackTrace(realmError: ErrorConstructor): void {
  Object.defineProperty(realmError, 'prepareStackTrace', {
    get: () => userStackTrace,
    set: () => {},
    enumerable: false,
    configurable: false,
  });
}

/** `helper (owners:3:11)` for a frame of an operator's code, else undefined (a wrapper frame too). */
function userFrame(site: CallSiteFacet): string | undefined {
  return safe(() => {
    const url = site.getScriptNameOrSourceURL();
    if (typeof url !== 'string' || !url.startsWith(OPERATOR_URL)) return undefined;
    const line = Number(site.getLineNumber()) - USER_CODE_FIRST_LINE + 1;
    if (!(line >= 1)) return undefined;
    const where = `${decodeURIComponent(url.slice(OPERATOR_URL.length))}:${line}:${Number(site.getColumnNumber())}`;
    // V8 names the anonymous functions of evaluated code "eval" (strict code cannot use the name).
    const name = site.getFunctionName();
    const named = typeof name === 'string' && name !== '' && name !== 'eval';
    return `${site.isAsync() === true ? 'async ' : ''}${named ? `${name} (${where})` : where}`;
  }, undefined);
}

const NO_AUTHORITY = 'no ambient authority: only ctx and standard JavaScript built-ins';

// Node, browser and other hosts' globals a user may reach for. A Compartment simply does
// not have them, so using one is a ReferenceError we reword.
const HOST_GLOBALS: Readonly<Record<string, string>> = {
  require: '',
  module: '',
  exports: '',
  __dirname: '',
  __filename: '',
  process: '',
  Buffer: '',
  global: '',
  fetch: '',
  XMLHttpRequest: '',
  WebSocket: '',
  crypto: '',
  window: '',
  self: '',
  document: '',
  navigator: '',
  importScripts: '',
  Deno: '',
  Bun: '',
  setTimeout: '; for timers use ctx.timers.eventTime or ctx.timers.processingTime',
  setInterval: '; for timers use ctx.timers.eventTime or ctx.timers.processingTime',
  setImmediate: '; for timers use ctx.timers.eventTime or ctx.timers.processingTime',
  clearTimeout: '; for timers use ctx.timers',
  clearInterval: '; for timers use ctx.timers',
  clearImmediate: '; for timers use ctx.timers',
  queueMicrotask: '; use Promise.resolve().then(...)',
  performance: '; results must be deterministic, use ctx.timestamp',
};

// Standard globals SES leaves out of a Compartment: they are nondeterministic or can observe
// garbage collection and other operators.
const WITHHELD_BUILTINS = new Set([
  'Intl',
  'SharedArrayBuffer',
  'Atomics',
  'WeakRef',
  'FinalizationRegistry',
  'WebAssembly',
  'structuredClone',
]);

/** Globals user code may reach for and does not get: their use is reported as a refusal. */
export const WITHHELD_GLOBALS: readonly string[] = [...Object.keys(HOST_GLOBALS), ...WITHHELD_BUILTINS];

/** Our explanation when an error is the sandbox refusing something, else undefined. */
export function explainDenial(name: string, message: string): string | undefined {
  if (name === 'ReferenceError') {
    const m = /^(\S+) is not defined$/.exec(message);
    const id = m?.[1];
    if (id !== undefined) {
      if (Object.hasOwn(HOST_GLOBALS, id))
        return `code may not use ${id} (${NO_AUTHORITY}${HOST_GLOBALS[id]})`;
      if (WITHHELD_BUILTINS.has(id)) {
        return `${id} is not available to operator code (it would make results nondeterministic)`;
      }
    }
    return undefined;
  }
  if (name === 'TypeError') {
    // What a withheld global gives where it is not poisoned (a child Compartment): undefined.
    const id = /^(\S+) is not a function$/.exec(message)?.[1];
    if (id !== undefined && Object.hasOwn(HOST_GLOBALS, id)) {
      return `code may not use ${id} (${NO_AUTHORITY}${HOST_GLOBALS[id]})`;
    }
    if (message === 'Function.prototype.constructor is not a valid constructor.') {
      return `code may not compile source text with the Function constructor (${NO_AUTHORITY})`;
    }
    if (/^secure mode %SharedMath%\.random\(\)/.test(message)) {
      return 'code may not use Math.random(): results must be deterministic (a generator gets a seeded ctx.random())';
    }
    if (/^secure mode .*%SharedDate%/.test(message)) {
      return 'code may not read the clock (Date.now(), new Date() or Date()): results must be deterministic; use ctx.timestamp or ctx.watermark';
    }
    return undefined;
  }
  if (name === 'SyntaxError') {
    if (message.includes('SES_IMPORT_REJECTED') || message.startsWith('Cannot use import statement')) {
      return `code may not use import (${NO_AUTHORITY}); the sandbox refuses the text "import(" even in a string or comment`;
    }
    if (message.includes('SES_EVAL_REJECTED')) {
      return 'code may not call eval(...) directly; the sandbox refuses the text "eval(" even in a string or comment';
    }
    if (message.includes('SES_HTML_COMMENT_REJECTED')) {
      return 'code may not contain "<!--" or "-->", even in a string or comment (write "a-- > 0", not "a-->0")';
    }
  }
  return undefined;
}

function frozenHint(name: string, message: string): string {
  const frozen =
    name === 'TypeError' &&
    /object is not extensible|read[- ]only property|Cannot (?:add|assign to|define|delete|redefine) property/.test(
      message,
    );
  return frozen ? `${message} (built-ins and ctx are frozen)` : message;
}

function describeValue(value: unknown): string {
  if (typeof value === 'string') return truncate(value);
  if (typeof value !== 'object' || value === null) return safeString(value);
  const json = safe(() => JSON.stringify(value), undefined);
  return truncate(typeof json === 'string' ? json : safeString(value));
}

function safeString(value: unknown): string {
  if (typeof value === 'string') return truncate(value);
  return truncate(
    safe(
      () => String(value),
      () => Object.prototype.toString.call(value),
    ),
  );
}

function truncate(s: string): string {
  return s.length <= 2000 ? s : `${s.slice(0, 2000)}…`;
}

// Anything read from a thrown value may be a user getter or proxy trap that throws in turn.
function safe<T, F>(read: () => T, fallback: F | (() => F)): T | F {
  try {
    return read();
  } catch {
    try {
      return typeof fallback === 'function' ? (fallback as () => F)() : fallback;
    } catch {
      return '[unprintable value]' as F;
    }
  }
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
