// Compiles an operator's `params.code` into functions that run without ambient authority.
//
// node:vm alone is no sandbox: any host object handed in leads back to the host's Function
// constructor (`ctx.emit.constructor.constructor('return process')()`). Under SES the
// intrinsics are shared but frozen and every Function constructor reachable from an object
// is inert, and a Compartment's global object holds only standard built-ins. So the code
// can use what it is given (its arguments, which the engine hardens) and JavaScript itself,
// nothing else: no require, import, process, file system, network or timers.
//
// Determinism: inside a Compartment, SES 2.3 makes Math.random() throw a TypeError ("secure
// mode %SharedMath%.random() throws"), and Date.now(), Date() and new Date() with no
// argument throw too (new Date(ms) and Date.parse still work). describeUserThrow words
// these; a generator gets a seeded ctx.random() instead. Intl, WeakRef,
// FinalizationRegistry, SharedArrayBuffer and Atomics are absent. Still host-dependent:
// Date's local-time methods (getHours, toString) follow the host's time zone.
//
// The code runs in strict mode. It is a script whose top level runs once, at compile time;
// its top-level variables live as long as the compiled functions and are not checkpointed
// state.
import { Script } from 'node:vm';
import { ensureLockdown } from './lockdown.js';
import {
  explainDenial,
  findUserFrame,
  sourceUrlOf,
  USER_CODE_FIRST_LINE,
  UserCodeError,
  WITHHELD_GLOBALS,
} from './userCodeError.js';

export { ensureLockdown, hardenForUser } from './lockdown.js';
export type { UserCodeErrorKind, UserThrowDescription } from './userCodeError.js';
export { describeUserThrow, UserCodeError } from './userCodeError.js';

/** A function defined by user code. Call it with JSON data and hardened host objects only. */
export type UserFunction = (...args: unknown[]) => unknown;

export type UserLogLevel = 'debug' | 'log' | 'info' | 'warn' | 'error';

/**
 * Receives what user code writes with console.log and friends, already formatted to one
 * string (objects as JSON). Called synchronously from the user's call; whatever it throws is
 * dropped, so no host error reaches user code.
 */
export type UserLogSink = (level: UserLogLevel, text: string) => void;

export interface CompileUserCodeOptions<N extends string, R extends N> {
  /** The operator's `params.code`: a script that defines functions. */
  readonly code: string;
  /** Named in every error and in the stack frames of the code (`pipewright://operator/<id>`). */
  readonly operatorId: string;
  /** Every function the operator kind looks for, e.g. ['process', 'onTimer']. */
  readonly functionNames: readonly N[];
  /** Those of them the code must define, e.g. ['process']. */
  readonly required: readonly R[];
  /**
   * Where console output goes. User code always has a `console` (debug, log, info, warn,
   * error) so that a job with debugging lines still runs headless; without a sink its
   * output is dropped.
   */
  readonly log?: UserLogSink | undefined;
}

export type CompiledUserCode<N extends string, R extends N> = Readonly<
  { [K in R]: UserFunction } & { [K in Exclude<N, R>]?: UserFunction }
>;

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * Evaluates `code` in a fresh Compartment and returns the functions it defines among
 * `functionNames` (`function process(r, ctx) {}`, `const process = (r, ctx) => ...` and
 * `async function` alike). Throws UserCodeError when the code does not parse, reaches for
 * something withheld at its top level, throws there, or lacks a required function.
 */
export function compileUserCode<N extends string, R extends N = N>(
  options: CompileUserCodeOptions<N, R>,
): CompiledUserCode<N, R> {
  const { code, operatorId, functionNames, required, log } = options;
  const names = [...new Set<string>([...functionNames, ...required])];
  for (const name of names) {
    if (!IDENTIFIER.test(name))
      throw new TypeError(`compileUserCode: ${JSON.stringify(name)} is not an identifier`);
  }
  if (typeof code !== 'string') {
    throw new UserCodeError({ operatorId, kind: 'missing-function', reason: 'params.code must be a string' });
  }
  ensureLockdown();

  const compartment = new Compartment({ __options__: true, name: sourceUrlOf(operatorId) });
  const global = compartment.globalThis;
  Object.defineProperty(global, 'console', {
    value: makeConsole(log),
    writable: true,
    enumerable: false,
    configurable: true,
  });

  const source = wrap(code, names, global, sourceUrlOf(operatorId));
  poisonWithheldGlobals(global, names);
  let exported: unknown;
  try {
    exported = compartment.evaluate(source);
  } catch (err) {
    throw compileError(err, source, code, operatorId);
  }

  const found: Record<string, UserFunction> = {};
  try {
    for (const name of names) {
      const fn = (exported as Record<string, unknown> | undefined)?.[name];
      // A name the code does not declare resolves to the global of that name, not to user code.
      if (typeof fn === 'function' && fn !== global[name]) found[name] = fn as UserFunction;
    }
  } catch (err) {
    // Only reachable when the code closed the wrapper itself and returned something exotic.
    throw UserCodeError.fromThrow(err, operatorId);
  }
  const missing = required.filter((name) => found[name] === undefined);
  if (missing.length > 0) {
    const what =
      missing.length === 1 ? `a function named ${missing[0]}` : `functions named ${missing.join(' and ')}`;
    throw new UserCodeError({
      operatorId,
      kind: 'missing-function',
      reason: `params.code must define ${what}`,
    });
  }
  return Object.freeze(found) as CompiledUserCode<N, R>;
}

/**
 * Line 1 is ours, the user's code starts on line 2 (USER_CODE_FIRST_LINE), so lines map by a
 * constant and columns not at all. The code is the body of an inner function, so its
 * declarations stay local and any of them, even `const Math = ...`, shadows ours.
 *
 * The outer function binds the standard globals as constants: SES resolves a free
 * variable through `with` scopes and a proxy, which costs ~250 ns each time user code
 * says `Math` or `JSON` (measured), against a few ns for a closure variable.
 */
function wrap(
  code: string,
  names: readonly string[],
  global: Record<PropertyKey, unknown>,
  url: string,
): string {
  const builtins = Object.getOwnPropertyNames(global).filter(
    (g) => IDENTIFIER.test(g) && !UNBOUND_GLOBALS.has(g) && !names.includes(g),
  );
  const exports = names.map((n) => `${n}:typeof ${n}==='function'?${n}:undefined`).join(',');
  return (
    `(function(){'use strict';const {${builtins.join(',')}}=globalThis;return (function(){\n` +
    `${code}\n` +
    `;return {${exports}};})();})()\n` +
    `//# sourceURL=${url}\n`
  );
}

/**
 * SES resolves a global a Compartment lacks to undefined, not to a ReferenceError, so
 * `process.exit()` would fail as "Cannot read properties of undefined (reading 'exit')",
 * naming nothing. A getter on each host global a user is likely to reach for throws
 * ReferenceError "process is not defined" instead, which describeUserThrow rewords.
 * (`typeof process` throws too; other unknown names still read as undefined.)
 */
function poisonWithheldGlobals(global: Record<PropertyKey, unknown>, names: readonly string[]): void {
  for (const name of WITHHELD_GLOBALS) {
    if (names.includes(name) || Object.hasOwn(global, name)) continue;
    Object.defineProperty(global, name, { get: poisonFor(name), enumerable: false, configurable: true });
  }
}

const poisons = new Map<string, () => never>();

function poisonFor(name: string): () => never {
  let poison = poisons.get(name);
  if (poison === undefined) {
    poison = harden(() => {
      throw new ReferenceError(`${name} is not defined`);
    });
    poisons.set(name, poison);
  }
  return poison;
}

// `eval` must stay the real binding (SES's own optimizer skips it too); `undefined`, `NaN`
// and `Infinity` are immutable already; the rest cannot be bound in strict code.
const UNBOUND_GLOBALS = new Set([
  'eval',
  'undefined',
  'NaN',
  'Infinity',
  'globalThis',
  'arguments',
  'await',
  'implements',
  'interface',
  'let',
  'package',
  'private',
  'protected',
  'public',
  'static',
  'yield',
]);

function compileError(err: unknown, source: string, code: string, operatorId: string): UserCodeError {
  const url = sourceUrlOf(operatorId);
  // A SyntaxError raised while running the top level (JSON.parse, say) has a frame in the code.
  if (!(err instanceof SyntaxError) || findUserFrame(String(err.stack), operatorId) !== undefined) {
    return UserCodeError.fromThrow(err, operatorId);
  }

  const userLines = code.split(/\r\n|[\n\r\u2028\u2029]/).length;
  const clamp = (line: number) => Math.min(Math.max(line - USER_CODE_FIRST_LINE + 1, 1), userLines);
  const sesRejection = /:(\d+)\. \(SES_\w+_REJECTED\)$/.exec(err.message);
  if (sesRejection !== null) {
    const line = clamp(Number(sesRejection[1]));
    const reason = explainDenial('SyntaxError', err.message) ?? err.message;
    return new UserCodeError({ operatorId, kind: 'forbidden', reason, line, cause: err });
  }

  // V8 gives an eval's SyntaxError no position; compiling the same source (never running it)
  // as a vm.Script does, in Node's "file:line / source / caret" header of the stack.
  const located = locateSyntaxError(source, url);
  const message = located?.message ?? err.message;
  const line = located === undefined ? undefined : clamp(located.line);
  const column =
    located !== undefined && line === located.line - USER_CODE_FIRST_LINE + 1 ? located.column : undefined;
  const denial = explainDenial('SyntaxError', message);
  if (denial !== undefined) {
    return new UserCodeError({ operatorId, kind: 'forbidden', reason: denial, line, column, cause: err });
  }
  return new UserCodeError({ operatorId, kind: 'syntax', reason: message, line, column, cause: err });
}

function locateSyntaxError(
  source: string,
  url: string,
): { line: number; column: number | undefined; message: string } | undefined {
  try {
    new Script(source, { filename: url });
  } catch (err) {
    if (!(err instanceof SyntaxError) || typeof err.stack !== 'string') return undefined;
    const [head = '', , caret = ''] = err.stack.split('\n');
    if (!head.startsWith(`${url}:`)) return undefined;
    const line = Number(head.slice(url.length + 1));
    if (!Number.isInteger(line)) return undefined;
    const at = caret.indexOf('^');
    return { line, column: at >= 0 ? at + 1 : undefined, message: err.message };
  }
  return undefined;
}

const MAX_LOG_TEXT = 64 * 1024;

function makeConsole(sink: UserLogSink | undefined): unknown {
  const method =
    (level: UserLogLevel) =>
    (...args: unknown[]): void => {
      if (sink === undefined) return;
      let text: string;
      try {
        text = args.map(formatLogArg).join(' ');
      } catch {
        text = '[unprintable value]';
      }
      if (text.length > MAX_LOG_TEXT) text = `${text.slice(0, MAX_LOG_TEXT)}…`;
      try {
        sink(level, text);
      } catch {
        // A host error must not reach user code: it would hand it a host object.
      }
    };
  return harden({
    debug: method('debug'),
    log: method('log'),
    info: method('info'),
    warn: method('warn'),
    error: method('error'),
  });
}

function formatLogArg(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return value;
    case 'function':
      return `[Function ${value.name || '(anonymous)'}]`;
    case 'object': {
      if (value === null) return 'null';
      if (value instanceof Error) return `${value.name}: ${value.message}`;
      const seen = new WeakSet<object>();
      const json = JSON.stringify(value, (_key, v: unknown) => {
        if (typeof v === 'bigint') return `${v}n`;
        if (typeof v === 'object' && v !== null) {
          if (seen.has(v)) return '[Circular]';
          seen.add(v);
        }
        return v;
      });
      return json ?? String(value);
    }
    default:
      return String(value);
  }
}
