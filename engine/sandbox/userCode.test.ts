// Runs real SES: lockdown() freezes this test process's intrinsics (vitest forks one per file).
import { execFileSync } from 'node:child_process';
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import {
  compileUserCode,
  describeUserThrow,
  ensureLockdown,
  hardenForUser,
  UserCodeError,
  type UserFunction,
} from './userCode.js';

ensureLockdown();

function compile(code: string, names: string[] = ['process'], operatorId = 'op') {
  return compileUserCode({ code, operatorId, functionNames: names, required: names.slice(0, 1) });
}

function compileError(code: string, names?: string[], operatorId = 'op'): UserCodeError {
  try {
    compile(code, names, operatorId);
  } catch (err) {
    expect(err).toBeInstanceOf(UserCodeError);
    return err as UserCodeError;
  }
  throw new Error('expected the code not to compile');
}

function thrownBy(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected a throw');
}

function makeCtx() {
  const emitted: unknown[] = [];
  const ctx = hardenForUser({
    key: 'k1',
    emit(record: unknown, port = 'out') {
      emitted.push([port, record]);
    },
    fail() {
      throw new Error('host failure');
    },
  });
  return { ctx, emitted };
}

describe('compileUserCode', () => {
  it('returns the functions the code defines, and they run', () => {
    const fns = compile(
      'function process(record, ctx) {\n  ctx.emit({ doubled: record.n * 2, key: ctx.key });\n}\nfunction onTimer() {}',
      ['process', 'onTimer', 'absent'],
    );
    const { ctx, emitted } = makeCtx();
    fns.process!({ n: 21 }, ctx);
    expect(emitted).toEqual([['out', { doubled: 42, key: 'k1' }]]);
    expect(typeof fns.onTimer).toBe('function');
    expect('absent' in fns).toBe(false);
  });

  it('accepts const arrow functions and top-level helpers', () => {
    const fns = compile('const rate = 3;\nconst times = (x) => x * rate;\nconst map = (r) => times(r);', [
      'map',
    ]);
    expect(fns.map!(5)).toBe(15);
  });

  it('runs async functions', async () => {
    const fns = compile(
      'async function process(record, ctx) {\n  await null;\n  ctx.emit(record + 1);\n  return "done";\n}',
    );
    const { ctx, emitted } = makeCtx();
    await expect(fns.process!(1, ctx)).resolves.toBe('done');
    expect(emitted).toEqual([['out', 2]]);
  });

  it('types the required functions as present', () => {
    const fns = compileUserCode({
      code: 'function keys(r) { return [["acct", r.from]]; }\nfunction transact(r, tx) {}',
      operatorId: 'tx',
      functionNames: ['keys', 'transact'],
      required: ['keys', 'transact'],
    });
    const keys: UserFunction = fns.keys;
    expect(keys({ from: 'a' })).toEqual([['acct', 'a']]);
  });

  it('gives each compilation its own global scope', () => {
    const a = compile('globalThis.shared = 1; function process() { return globalThis.shared; }');
    const b = compile('function process() { return globalThis.shared; }');
    expect(a.process!()).toBe(1);
    expect(b.process!()).toBeUndefined();
  });

  it('lets the code shadow a built-in', () => {
    const fns = compile(
      'const JSON = { stringify: () => "mine" };\nfunction process() { return JSON.stringify(1); }',
    );
    expect(fns.process!()).toBe('mine');
  });

  it('refuses code without a required function, naming the operator', () => {
    const err = compileError('function proccess(record, ctx) {}', ['process'], 'owners');
    expect(err.kind).toBe('missing-function');
    expect(err.operatorId).toBe('owners');
    expect(err.message).toBe('operator "owners": params.code must define a function named process');
    // A value that is not a function does not count.
    expect(compileError('const process = 42;').kind).toBe('missing-function');
    const both = (() => {
      try {
        compileUserCode({
          code: '',
          operatorId: 't',
          functionNames: ['keys', 'transact'],
          required: ['keys', 'transact'],
        });
      } catch (err) {
        return err as UserCodeError;
      }
      throw new Error('expected a throw');
    })();
    expect(both.message).toBe('operator "t": params.code must define functions named keys and transact');
  });

  it('reports a syntax error with its line in the user code and V8 message', () => {
    const err = compileError(
      'function process(record, ctx) {\n  const x = 1;\n  foo( ));\n}',
      ['process'],
      'x',
    );
    expect(err.kind).toBe('syntax');
    expect(err.line).toBe(3);
    expect(err.column).toBe(9);
    expect(err.message).toBe('operator "x": syntax error at line 3 of its code: Unexpected token \')\'');
  });

  it('reports a syntax error on the first line and strict-mode-only errors', () => {
    expect(compileError('function process( {').line).toBe(1);
    const strict = compileError('function process(r) {\n  with (r) {}\n}');
    expect(strict.line).toBe(2);
    expect(strict.reason).toMatch(/Strict mode/);
  });

  it('keeps the line of an unclosed block inside the user code', () => {
    const err = compileError('function process(r) {\n  if (r) {\n    return 1;\n}');
    expect(err.kind).toBe('syntax');
    expect(err.line).toBeGreaterThanOrEqual(1);
    expect(err.line).toBeLessThanOrEqual(4);
  });

  it('reports a throw at the top level of the code as a compile error with its line', () => {
    const err = compileError('const table = JSON.parse("{");\nfunction process() {}');
    expect(err.kind).toBe('threw');
    expect(err.line).toBe(1);
    expect(err.message).toMatch(/^operator "op" threw at line 1 of its code: SyntaxError: /);
  });

  it('gives user code a console that writes through the host sink, and only strings', () => {
    const lines: [string, string][] = [];
    const fns = compileUserCode({
      code: 'function process(r) {\n  console.log("got", r, 3, [1, { a: null }]);\n  console.warn(new TypeError("careful"));\n}',
      operatorId: 'dbg',
      functionNames: ['process'],
      required: ['process'],
      log: (level, text) => lines.push([level, text]),
    });
    fns.process!({ id: 7 });
    expect(lines).toEqual([
      ['log', 'got {"id":7} 3 [1,{"a":null}]'],
      ['warn', 'TypeError: careful'],
    ]);
    // Without a sink, console output is dropped rather than failing the job.
    expect(compile('function process() { console.log("x"); return 1; }').process!()).toBe(1);
    // A failing sink never hands its host error to user code.
    const quiet = compileUserCode({
      code: 'function process() { try { console.log("x"); return "ok"; } catch (e) { return e; } }',
      operatorId: 'dbg',
      functionNames: ['process'],
      required: ['process'],
      log: () => {
        throw new Error('host sink broke');
      },
    });
    expect(quiet.process!()).toBe('ok');
  });
});

describe('describeUserThrow', () => {
  it('gives the message and the line of the throw', () => {
    const fns = compile(
      'function helper(v) {\n  if (v > 1) {\n    throw new Error("too big: " + v);\n  }\n}\nfunction process(r) {\n  helper(r);\n}',
      ['process'],
      'owners',
    );
    const d = describeUserThrow(
      thrownBy(() => fns.process!(5)),
      'owners',
    );
    expect(d).toEqual({ message: 'too big: 5', line: 3, column: 11, forbidden: false });
  });

  it('names the error type of a runtime TypeError', () => {
    const fns = compile('function process(r) {\n  return r.a.b;\n}');
    const d = describeUserThrow(
      thrownBy(() => fns.process!({})),
      'op',
    );
    expect(d.message).toMatch(/^TypeError: Cannot read properties of undefined/);
    expect(d.line).toBe(2);
  });

  it('finds the line of a rejection from an async function', async () => {
    const fns = compile('async function process(r) {\n  await null;\n\n  throw new RangeError("late");\n}');
    const err = await (fns.process!(1) as Promise<unknown>).catch((e: unknown) => e);
    expect(describeUserThrow(err, 'op')).toMatchObject({ message: 'RangeError: late', line: 4 });
  });

  it('describes non-Error values and never throws', () => {
    const fns = compile(
      'function process(kind) {\n  if (kind === 1) throw "plain";\n  if (kind === 2) throw { code: 7 };\n  throw { get message() { throw 1; }, toString() { throw 2; } };\n}',
    );
    expect(
      describeUserThrow(
        thrownBy(() => fns.process!(1)),
        'op',
      ),
    ).toEqual({ message: 'plain', forbidden: false });
    expect(
      describeUserThrow(
        thrownBy(() => fns.process!(2)),
        'op',
      ).message,
    ).toBe('{"code":7}');
    expect(() =>
      describeUserThrow(
        thrownBy(() => fns.process!(3)),
        'op',
      ),
    ).not.toThrow();
    const hostile = new Proxy(
      {},
      {
        getPrototypeOf() {
          throw new Error('trap');
        },
      },
    );
    expect(() => describeUserThrow(hostile, 'op')).not.toThrow();
  });

  it("does not mistake another operator's frames for this one's", () => {
    const fns = compile('function process() {\n  throw new Error("x");\n}', ['process'], 'op1');
    const err = thrownBy(() => fns.process!());
    expect(describeUserThrow(err, 'op1').line).toBe(2);
    expect(describeUserThrow(err, 'op10').line).toBeUndefined();
  });

  it('UserCodeError.fromThrow makes one readable sentence', () => {
    const fns = compile('function process() {\n  null.x;\n}', ['process'], 'owners');
    const err = UserCodeError.fromThrow(
      thrownBy(() => fns.process!()),
      'owners',
    );
    expect(err.message).toMatch(
      /^operator "owners" threw at line 2 of its code: TypeError: Cannot read properties of null/,
    );
    expect(err.kind).toBe('threw');
    expect(err.line).toBe(2);
  });
});

describe('what the sandbox refuses, and how it says so', () => {
  // Named so that `process` in the body means the global, as it does in a map or filter.
  function refusal(body: string, operatorId = 'x') {
    const fns = compile(`function handle(record, ctx) {\n  ${body};\n}`, ['handle'], operatorId);
    const { ctx } = makeCtx();
    return describeUserThrow(
      thrownBy(() => fns.handle!({}, ctx)),
      operatorId,
    );
  }

  it('require, process, module and timers are not there', () => {
    expect(refusal("require('fs')")).toEqual({
      message: 'code may not use require (no ambient authority: only ctx and standard JavaScript built-ins)',
      line: 2,
      column: 3,
      forbidden: true,
    });
    expect(refusal('process.exit(1)').message).toMatch(/^code may not use process \(no ambient authority/);
    expect(refusal('module.exports = 1').message).toMatch(/^code may not use module/);
    expect(refusal('setTimeout(() => {}, 1)').message).toMatch(/code may not use setTimeout .*ctx\.timers/);
    expect(refusal('new Intl.NumberFormat()').message).toMatch(/^Intl is not available/);
    const err = UserCodeError.fromThrow(
      thrownBy(() => compile('function map() {\n  require("fs");\n}', ['map'], 'x').map!()),
      'x',
    );
    expect(err.kind).toBe('forbidden');
    expect(err.message).toBe(
      'operator "x", line 2 of its code: code may not use require (no ambient authority: only ctx and standard JavaScript built-ins)',
    );
  });

  it('Math.random and the clock are refused for determinism', () => {
    expect(refusal('Math.random()')).toMatchObject({ forbidden: true, line: 2 });
    expect(refusal('Math.random()').message).toMatch(
      /^code may not use Math\.random\(\): results must be deterministic/,
    );
    expect(refusal('Date.now()').message).toMatch(/^code may not read the clock/);
    expect(refusal('new Date()').message).toMatch(/^code may not read the clock/);
    expect(refusal('Date()').message).toMatch(/^code may not read the clock/);
    // A given instant is fine.
    expect(compile('function process() { return new Date(0).toISOString(); }').process!()).toBe(
      '1970-01-01T00:00:00.000Z',
    );
  });

  it('the Function constructor is inert', () => {
    expect(refusal('(function(){}).constructor("return 1")()').message).toMatch(
      /^code may not compile source text with the Function constructor/,
    );
  });

  it('import() and direct eval are refused when compiling, with the line', () => {
    const imp = compileError('function process() {\n  return import("fs");\n}');
    expect(imp.kind).toBe('forbidden');
    expect(imp.line).toBe(2);
    expect(imp.message).toMatch(/^operator "op", line 2 of its code: code may not use import/);
    const stat = compileError('import fs from "fs";\nfunction process() {}');
    expect(stat.kind).toBe('forbidden');
    expect(stat.line).toBe(1);
    const ev = compileError('\n\nfunction process() { return eval("process"); }');
    expect(ev.kind).toBe('forbidden');
    expect(ev.line).toBe(3);
    expect(ev.reason).toMatch(/eval/);
    expect(compileError('function process(a) { return a-->0; }').reason).toMatch(/"-->"/);
  });

  it('writes to frozen built-ins say why they fail', () => {
    expect(refusal('Object.prototype.polluted = 1').message).toMatch(/built-ins and ctx are frozen/);
    expect(refusal('ctx.emit = null').message).toMatch(/built-ins and ctx are frozen/);
  });
});

// Each attempt runs as the body of user code with a hardened ctx, host-made data and a host
// error within reach. It must throw or come back without any host power: not the host's
// process, globalThis, require or Function, and no write to the host global.
describe('escape attempts', () => {
  const attempts: Record<string, string> = {
    'ctx.emit.constructor.constructor': "ctx.emit.constructor.constructor('return process')()",
    'ctx.emit.constructor': "ctx.emit.constructor('return process')()",
    'function literal constructor': "(function(){}).constructor('return process')()",
    'arrow constructor': "(() => 1).constructor('return globalThis')()",
    require: "require('fs')",
    'process.exit': 'process.exit(3)',
    'globalThis.process': 'globalThis.process',
    'globalThis.require': 'globalThis.require',
    'indirect eval of process': "(0, eval)('process')",
    'indirect eval of globalThis': "(0, eval)('globalThis')",
    'new Function this': "new Function('return this')()",
    'new Function globalThis': "new Function('return globalThis')()",
    'Function via Reflect': "Reflect.construct(Function, ['return process'])()",
    'async function constructor': "Object.getPrototypeOf(async function(){}).constructor('return process')()",
    'generator function constructor':
      "Object.getPrototypeOf(function*(){}).constructor('return process')().next().value",
    'async generator constructor': "Object.getPrototypeOf(async function*(){}).constructor('return process')",
    'ctx.emit.call.constructor': "ctx.emit.call.constructor('return process')()",
    'ctx.emit.bind.constructor': "ctx.emit.bind(null).constructor('return process')()",
    'ctx prototype': "Object.getPrototypeOf(ctx).constructor.constructor('return process')()",
    'host array': "record.list.constructor.constructor('return process')()",
    'host array method': "record.list.map.constructor('return process')()",
    'host object': "record.constructor.constructor('return process')()",
    'host object __proto__': "record.__proto__.constructor.constructor('return process')()",
    'host error':
      "(() => { try { ctx.fail(); } catch (e) { return e.constructor.constructor('return process')(); } })()",
    'host error prototype chain':
      "(() => { try { ctx.fail(); } catch (e) { return Object.getPrototypeOf(Object.getPrototypeOf(e)).constructor.constructor('return process')(); } })()",
    'host error stack call sites':
      "(() => { try { ctx.fail(); } catch (e) { e.constructor.prepareStackTrace = (_, sites) => sites; const s = new Error('probe').stack; return typeof s === 'string' ? undefined : s; } })()",
    'Error.prepareStackTrace call sites':
      "(() => { Error.prepareStackTrace = (_, sites) => sites.map((c) => c.getThis && c.getThis()); const s = new Error('probe').stack; return typeof s === 'string' ? undefined : s; })()",
    'Error.captureStackTrace':
      '(() => { const o = {}; Error.captureStackTrace(o); return typeof o.stack === "string" ? undefined : o.stack; })()',
    'caller of host function': 'ctx.emit.caller',
    'arguments.callee.caller': '(function () { return arguments.callee.caller; })()',
    'child compartment':
      'new Compartment().evaluate(\'typeof process === "undefined" ? undefined : process\')',
    'child compartment with our global':
      "new Compartment({ __options__: true, globals: globalThis }).evaluate('process')",
    'write the host global': "(0, eval)('globalThis.__pwned = 1'), Function('globalThis.__pwned = 1')()",
    'pollute Object.prototype': "(Object.prototype.polluted = 'yes')",
    'pollute through host object': "(record.__proto__.polluted = 'yes')",
    'pollute Array.prototype': '(Array.prototype.includes = () => true)',
    'pollute Function.prototype': "(Function.prototype.call = () => 'pwned')",
    'redefine JSON.parse': "(JSON.parse = () => 'pwned')",
    'defineProperty on Object.prototype':
      "Object.defineProperty(Object.prototype, 'polluted', { value: 'yes' })",
    'Symbol.species': '(Array[Symbol.species] = null)',
    'mutate ctx': "(ctx.emit = () => 'pwned')",
    'host process by name': 'typeof process === "undefined" ? undefined : process',
    'dynamic import via Function': 'Function(\'return import("fs")\')()',
    // Spelled apart so that only the run-time check, not the compile-time text scan, can stop it.
    'dynamic import built at run time': "Function('return imp' + 'ort(\"fs\")')()",
    'import via child compartment': "new Compartment().evaluate('imp' + 'ort(\"fs\")')",
    'withheld-global getter':
      "Object.getOwnPropertyDescriptor(globalThis, 'process').get.constructor('return process')()",
    'console method': "console.log.constructor('return process')()",
    harden: "harden.constructor('return process')()",
    'toString of a host function': "ctx.emit.toString.constructor('return process')()",
    'lockdown again': 'lockdown()',
  };

  const hostPowers: unknown[] = [process, globalThis, Function, process.exit, process.dlopen];

  function run(body: string): { value?: unknown; threw?: unknown } {
    const fns = compile(
      `function handle(record, ctx) {\n  try {\n    return { value: (${body}) };\n  } catch (e) {\n    return { threw: e };\n  }\n}`,
      ['handle'],
      'attacker',
    );
    const { ctx } = makeCtx();
    return fns.handle!({ list: [1, 2], nested: { a: 1 } }, ctx) as { value?: unknown; threw?: unknown };
  }

  // Reads descriptors, not values: a getter of the sandbox's would throw and hide a real find.
  function reachedHost(value: unknown): boolean {
    if (hostPowers.includes(value)) return true;
    if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return false;
    return ['process', 'require', 'exit', 'binding', 'mainModule'].some((key) => {
      const d = Object.getOwnPropertyDescriptor(value, key);
      return (
        d !== undefined && 'value' in d && (hostPowers.includes(d.value) || typeof d.value === 'function')
      );
    });
  }

  for (const [name, body] of Object.entries(attempts)) {
    it(`${name}: throws or yields nothing of the host`, () => {
      let outcome: { value?: unknown; threw?: unknown };
      try {
        outcome = run(body);
      } catch (err) {
        // The attempt could not even compile (import-like text, say): as good as a throw.
        expect(err).toBeInstanceOf(UserCodeError);
        return;
      }
      if (!('threw' in outcome)) {
        expect(reachedHost(outcome.value), `${name} returned ${String(outcome.value)}`).toBe(false);
        expect(outcome.value === undefined || typeof outcome.value !== 'function').toBe(true);
      }
      expect((globalThis as Record<string, unknown>).__pwned).toBeUndefined();
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expect(Object.hasOwn(Object.prototype, 'polluted')).toBe(false);
      expect([1].includes(2)).toBe(false);
      expect(JSON.parse('1')).toBe(1);
      expect(Array.prototype.map.call([1], (x: number) => x + 1)).toEqual([2]);
    });
  }

  it('the host keeps its own stacks after user code touched prepareStackTrace', () => {
    run(attempts['host error stack call sites']!);
    run(attempts['Error.prepareStackTrace call sites']!);
    const stack = new Error('host probe').stack;
    expect(typeof stack).toBe('string');
    expect(stack).toMatch(/^Error: host probe/);
  });

  // Lockdown tamed this process's Function constructors, so node:vm is safe from this path
  // here too. A fresh Node, not locked down, shows the attempt is a real escape.
  it('control: without SES, node:vm is escaped by the first attempt', () => {
    const script = [
      "const vm = require('node:vm');",
      'const ctx = { emit() {} };',
      `const reached = vm.runInNewContext(${JSON.stringify(attempts['ctx.emit.constructor.constructor'])}, { ctx });`,
      'console.log(reached === process);',
    ].join('\n');
    expect(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' }).trim()).toBe('true');
  });

  it('and in this locked-down process the same path in node:vm is inert', () => {
    const { ctx } = makeCtx();
    expect(() => vm.runInNewContext("ctx.emit.constructor.constructor('return process')()", { ctx })).toThrow(
      /not a valid constructor/,
    );
  });
});
