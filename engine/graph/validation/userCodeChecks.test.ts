import { describe, expect, it } from 'vitest';
import { edge, job, only, processOp, sink, source } from './jobFixtures.js';
import { scanEmittedPorts } from './userCodeChecks.js';
import { validateJob } from './validateJob.js';

describe('user code, parsed before a run', () => {
  it("a syntax error names the operator, the line and column in its code, and the parser's message", () => {
    const code = 'function process(r, ctx) {\n  ctx.emit(r);\n}\n}';
    const { problems } = validateJob(job([source('s'), processOp('p1', code)], [edge('e1', 's', 'p1')]));
    expect(problems).toEqual([
      {
        code: 'syntax-error',
        message: 'operator "p1": syntax error at line 4, column 1 of its code: Unexpected token \'}\'',
        path: '$.operators[1].params.code',
        ids: ['p1'],
        codeLine: 4,
        codeColumn: 1,
      },
    ]);
  });

  it("a require call is refused with the sandbox's reason", () => {
    const code = 'const fs = require("fs");\nfunction map(r) { return r; }';
    const problem = only(
      validateJob(job([{ id: 'm', kind: 'map', params: { code } }])).problems,
      'forbidden-in-code',
    );
    expect(problem).toEqual({
      code: 'forbidden-in-code',
      message:
        'operator "m": line 1, column 12 of its code: code may not use require (no ambient authority: only ctx and standard JavaScript built-ins)',
      path: '$.operators[0].params.code',
      ids: ['m'],
      codeLine: 1,
      codeColumn: 12,
    });
  });

  it('checks the code of every kind that runs code', () => {
    const ops = [
      { id: 'g', kind: 'source.generator', params: { code: 'function generate(i) { return i' } },
      { id: 'f', kind: 'filter', params: { code: 'function filter(r) { return r.a = ; }' } },
      { id: 'fm', kind: 'flatMap', params: { code: 'import x from "y"; function flatMap(r) {}' } },
    ];
    expect(validateJob(job(ops)).problems.map((p) => [p.code, p.ids[0]])).toEqual([
      ['syntax-error', 'g'],
      ['syntax-error', 'f'],
      ['forbidden-in-code', 'fm'],
    ]);
  });

  it('code that does not parse gets only its syntax error: no guesses about its functions or ports', () => {
    const code = 'function proces(r, ctx) {\n  ctx.emit(r, "side")\n  if (\n}';
    const { problems } = validateJob(
      job(
        [source('s'), processOp('p', code), sink('out')],
        [edge('e1', 's', 'p', { partition: 'forward' }), edge('e2', 'p', 'out', { fromPort: 'other' })],
      ),
    );
    expect(problems.map((p) => p.code)).toEqual(['syntax-error']);
  });

  it('keyed state named only in a comment or string does not make an operator keyed', () => {
    const code =
      '// was: ctx.state.value("n")\nfunction process(r, ctx) { ctx.emit({ note: "ctx.timers.x" }); }';
    const { problems } = validateJob(job([source('s'), processOp('p', code)], [edge('e1', 's', 'p')]));
    expect(problems).toEqual([]);
  });
});

describe('scanEmittedPorts', () => {
  it('scanEmittedPorts reads literal ports and notices dynamic ones', () => {
    const literal = scanEmittedPorts(
      `// ctx.emit(r, dynamicInAComment)
       const s = "ctx.emit(r, dynamicInAString)";
       const re = /emit\\(r, x\\)/;
       ctx.emit({ a: [1, 2], b: \`\${x, y}\` }, "first");
       tx.emit(r, 'second');
       ctx.emit?.(r, \`third\`);
       ctx.emit(r);`,
    );
    expect(literal).toEqual({ ports: new Set(['out', 'first', 'second', 'third']), dynamic: false });
    for (const code of [
      'ctx.emit(r, port)',
      'ctx.emit(r, `p${i}`)',
      'xs.forEach(ctx.emit)',
      'ctx.emit.call(null, r, "x")',
      'ctx["emit"](r, "x")',
      'ctx.emit(...args)',
      'const { emit: send } = ctx',
    ]) {
      expect(scanEmittedPorts(code).dynamic, code).toBe(true);
    }
    expect(scanEmittedPorts('const { emit } = ctx; emit(r, "q")')).toEqual({
      ports: new Set(['out', 'q']),
      dynamic: false,
    });
  });
});
