// The validator's reading of user code, and its agreement with what the sandbox does to the same
// code at run time (real SES: lockdown() freezes this test process, vitest forks one per file).
import { describe, expect, it } from 'vitest';
import { compileUserCode, ensureLockdown, UserCodeError } from '../sandbox/userCode.js';
import { explainDenial } from '../sandbox/userCodeError.js';
import { DENIALS, readCode } from './codeParse.js';

ensureLockdown();

const faultsOf = (code: string) => readCode(code).faults;

/** What the sandbox says when it compiles the code for a process operator, or undefined. */
function runtimeRefusal(code: string): UserCodeError | undefined {
  try {
    compileUserCode({ code, operatorId: 'p', functionNames: ['process'], required: ['process'] });
    return undefined;
  } catch (error) {
    if (!(error instanceof UserCodeError)) throw error;
    return error;
  }
}

describe('syntax errors', () => {
  it("report the parser's message at the token the user typed, not one of a wrapper", () => {
    // The case of issue 11: an editor auto-closed a brace and the code ends in a stray one.
    const code = [
      'function process(r, ctx) {',
      '  if (r.ok) {',
      '    ctx.emit(r);',
      '  }',
      '}',
      '',
      '}',
    ].join('\n');
    expect(faultsOf(code)).toEqual([{ kind: 'syntax', reason: "Unexpected token '}'", line: 7, column: 1 }]);
  });

  it.each([
    ['function process(r, ctx) {\n  ctx.emit(r;\n}', "Unexpected token ';'", 2, 13],
    ['function process(r, ctx) {\n  const s = "abc;\n}', 'Unterminated string constant', 2, 13],
    [
      'function process(r, ctx) {\n  ctx.emit(r);\n',
      'Unexpected end of code (is a bracket not closed?)',
      2,
      15,
    ],
    ['const x = 1;\nconst x = 2;\nfunction process() {}', "Identifier 'x' has already been declared", 2, 7],
  ])('%j: %s at line %i, column %i', (code, reason, line, column) => {
    expect(faultsOf(code)).toEqual([{ kind: 'syntax', reason, line, column }]);
  });

  it('parse the code as the body of a strict-mode function, as the sandbox runs it', () => {
    for (const good of [
      'return;',
      'async function process(r, ctx) { await ctx.emit(r); }',
      'function process() { return new.target; }',
      'const process = function* () { yield 1; };',
    ]) {
      expect(faultsOf(good), good).toEqual([]);
    }
    for (const bad of ['await x;\nfunction process() {}', 'with (r) {}', 'var n = 010;', 'let let = 1;']) {
      expect(
        faultsOf(bad).map((f) => f.kind),
        bad,
      ).toEqual(['syntax']);
    }
  });
});

describe('what the sandbox refuses', () => {
  it('a require call, at its line and column', () => {
    const code = 'function process(r, ctx) {\n  const fs = require("fs");\n}';
    expect(faultsOf(code)).toEqual([{ kind: 'forbidden', reason: DENIALS.require, line: 2, column: 14 }]);
  });

  it('not a require the code defines itself, nor the word in a string or comment', () => {
    expect(faultsOf('function require(x) { return x; }\nfunction process() { require(1); }')).toEqual([]);
    expect(faultsOf('// require("fs")\nfunction process() { return "require(x)"; }')).toEqual([]);
  });

  it('an import statement, an import expression, and the texts SES refuses even in a comment', () => {
    expect(faultsOf('import fs from "fs";\nfunction process() {}')).toEqual([
      { kind: 'forbidden', reason: DENIALS.importStatement, line: 1, column: 1 },
    ]);
    expect(faultsOf('function process() {\n  return import("fs");\n}')).toEqual([
      { kind: 'forbidden', reason: DENIALS.importText, line: 2, column: 10 },
    ]);
    expect(faultsOf('// import("x") is refused here too\nfunction process() {}')).toEqual([
      { kind: 'forbidden', reason: DENIALS.importText, line: 1, column: 4 },
    ]);
    expect(faultsOf('function process(r) { return eval("r"); }')).toEqual([
      { kind: 'forbidden', reason: DENIALS.evalText, line: 1, column: 30 },
    ]);
    expect(faultsOf('function process(r) {\n  while (r.n-->0) {}\n}')).toEqual([
      { kind: 'forbidden', reason: DENIALS.htmlComment, line: 2, column: 13 },
    ]);
  });

  it('every fault at once, in the order of the text', () => {
    const code = 'const fs = require("fs"); // and eval(x)\nfunction process() {';
    expect(faultsOf(code).map((f) => [f.kind, f.line])).toEqual([
      ['forbidden', 1],
      ['syntax', 2],
    ]);
  });

  it('is worded as the sandbox words the same refusal at run time', () => {
    expect(DENIALS.require).toBe(explainDenial('ReferenceError', 'require is not defined'));
    expect(DENIALS.importText).toBe(explainDenial('SyntaxError', 'Cannot use import statement'));
    expect(DENIALS.importText.startsWith(DENIALS.importStatement)).toBe(true);
    expect(DENIALS.evalText).toBe(explainDenial('SyntaxError', 'x (SES_EVAL_REJECTED)'));
    expect(DENIALS.htmlComment).toBe(explainDenial('SyntaxError', 'x (SES_HTML_COMMENT_REJECTED)'));
  });
});

describe('agreement with the sandbox', () => {
  // Each of these the runtime refuses when it compiles the code; the validator must find each.
  it.each([
    'function process(r, ctx) {\n  ctx.emit(r;\n}',
    'function process(r, ctx) {\n  ctx.emit(r);\n}\n}',
    'const fs = require("fs");\nfunction process() {}',
    'import fs from "fs";\nfunction process() {}',
    'function process() {}\n// import("x")',
    'function process(r) { return eval("r"); }',
    'function process(r) { while (r.n-->0) {} }',
    'await 1;\nfunction process() {}',
    'with (Math) {}\nfunction process() {}',
    'let let = 1;\nfunction process() {}',
  ])('%j is refused by both', (code) => {
    const refusal = runtimeRefusal(code);
    expect(refusal?.kind === 'syntax' || refusal?.kind === 'forbidden', String(refusal)).toBe(true);
    const faults = faultsOf(code);
    expect(faults.length).toBeGreaterThan(0);
    // The same refusal in the same words, up to the note on what else the sandbox refuses.
    const gist = (reason: string) => reason.split(' (')[0];
    if (refusal?.kind === 'forbidden')
      expect(faults.map((f) => gist(f.reason))).toContain(gist(refusal.reason));
  });

  it.each([
    'function process(r, ctx) { ctx.emit(r); }',
    'async function process(r, ctx) { ctx.emit(await r); }',
    'class Counter {\n  n = 0;\n  static #made = 0;\n}\nfunction process(r, ctx) { ctx.emit({ n: new Counter().n }); }',
    'const process = (r, ctx) => ctx.emit(r, `side`);',
    "'use strict';\nlet n = 0;\nfunction process(r, ctx) { n++; ctx.emit({ ...r, n }); }",
  ])('%j is accepted by both', (code) => {
    expect(runtimeRefusal(code)).toBeUndefined();
    expect(faultsOf(code)).toEqual([]);
  });
});

describe('the syntax tree', () => {
  it('names the functions the code defines at its top level only', () => {
    const { defines } = readCode(
      'function process() {}\nconst onTimer = () => {};\nfunction outer() { function inner() {} }\n{ var hoisted; }',
    ).tree!;
    expect([...defines].sort()).toEqual(['hoisted', 'onTimer', 'outer', 'process']);
  });

  it('sees keyed state in calls, not in comments or strings', () => {
    const uses = (code: string) => readCode(code).tree!.usesKeyedState;
    expect(uses('function process(r, ctx) { ctx.state.value("n").set(1); }')).toBe(true);
    expect(uses('function process(r, ctx) { ctx.timers.eventTime(1); }')).toBe(true);
    expect(uses('// ctx.state.value("n")\nfunction process(r, ctx) { ctx.emit("ctx.timers.x"); }')).toBe(
      false,
    );
  });

  it('reads code nested thousands deep, and calls nothing a syntax error that it cannot parse for depth', () => {
    const statements = readCode(`function process(r, ctx) { ${'if (r) '.repeat(2500)}ctx.emit(r, "deep"); }`);
    expect(statements.faults).toEqual([]);
    expect(statements.tree?.defines).toEqual(new Set(['process']));
    expect(statements.tree?.ports.ports).toEqual(new Set(['out', 'deep']));
    // Deeper than acorn's own recursion goes, though V8 runs it: unknown, not wrong.
    const brackets = readCode(`const x = ${'('.repeat(5000)}1${')'.repeat(5000)};\nfunction process() {}`);
    expect(brackets).toEqual({ faults: [] });
  });

  it('is read once per code text', () => {
    const code = 'function process(r, ctx) { ctx.emit(r, "cached"); }';
    expect(readCode(code)).toBe(readCode(code));
  });
});
