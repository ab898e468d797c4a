import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { registerKind } from '../kinds/kindRegistry.js';
import { edge, expectNames, job, mapOp, only, processOp, sink, source } from './jobFixtures.js';
import { validateJob } from './validateJob.js';

describe('operator rules', () => {
  it('duplicate operator id', () => {
    const { problems } = validateJob(job([source('a'), mapOp('a')]));
    const problem = only(problems, 'duplicate-operator-id');
    expect(problem).toMatchObject({ path: '$.operators[1].id', ids: ['a'] });
    expectNames(problem, 'a');
  });

  it('duplicate edge id', () => {
    const { problems } = validateJob(
      job([source('s'), mapOp('m'), sink('o')], [edge('e1', 's', 'm'), edge('e1', 'm', 'o')]),
    );
    const problem = only(problems, 'duplicate-edge-id');
    expect(problem).toMatchObject({ path: '$.edges[1].id', ids: ['e1'] });
    expectNames(problem, 'e1');
  });

  it('parallelism above settings.maxParallelism', () => {
    const { problems } = validateJob(
      job([source('s'), mapOp('m', { parallelism: 16 })], [], { settings: { maxParallelism: 8 } }),
    );
    const problem = only(problems, 'parallelism-above-max');
    expect(problem).toMatchObject({ path: '$.operators[1].parallelism', ids: ['m'] });
    expectNames(problem, 'm');
    expect(problem.message).toContain('16');
    expect(problem.message).toContain('8');
  });

  it('parallelism above the default maxParallelism of 128', () => {
    const { problems } = validateJob(job([mapOp('m', { parallelism: 129 })]));
    expect(only(problems, 'parallelism-above-max').message).toContain('128');
  });

  it('a kind this version cannot run yet is a problem naming the operator', () => {
    // Every built-in kind runs: a kind a package declares ahead of its runtime stands in.
    const remove = registerKind({
      kind: 'sink.testLater',
      role: 'sink',
      params: z.strictObject({}),
      ports: { inputs: true, outputs: [] },
      keyedInput: 'never',
      available: false,
      designer: {
        label: 'Later',
        group: 'sink',
        description: 'Not yet.',
        idBase: 'later',
        defaultParams: {},
        icon: 'M2 2h12v12H2z',
      },
    });
    try {
      const { problems } = validateJob(job([{ id: 'w1', kind: 'sink.testLater', params: {} }]));
      expect(problems).toEqual([
        {
          code: 'not-yet-available',
          message: 'operator "w1": kind "sink.testLater" is not available yet in this version of Pipewright',
          path: '$.operators[0].kind',
          ids: ['w1'],
        },
      ]);
    } finally {
      remove();
    }
  });

  it('user code must define the function its kind calls', () => {
    const { problems } = validateJob(job([processOp('owners', 'function handle(record, ctx) {}')]));
    expect(only(problems, 'missing-function')).toEqual({
      code: 'missing-function',
      message: 'operator "owners": params.code must define a function named process',
      path: '$.operators[0].params.code',
      ids: ['owners'],
    });
  });

  it.each([
    'function process(r, ctx) {}',
    'async function process(r, ctx) {}',
    'const process = (r, ctx) => {};',
    'process = async function (r, ctx) {};',
    '// helper\nlet process\nprocess = (r) => r',
  ])('accepts %j as defining process', (code) => {
    expect(validateJob(job([processOp('p', code)])).problems).toEqual([]);
  });

  it.each([
    '// function process(r, ctx) {}',
    'ctx.process = (r) => r',
    'const x = "function process"',
    'if (process == null) {}',
    '',
  ])('does not take %j as defining process', (code) => {
    expect(validateJob(job([processOp('p', code)])).problems.map((p) => p.code)).toEqual([
      'missing-function',
    ]);
  });

  it('checks the function name of every kind that runs user code', () => {
    const ops = [
      { id: 'g', kind: 'source.generator', params: { code: 'function gen(i) {}' } },
      { id: 'm', kind: 'map', params: { code: 'function mapper(r) {}' } },
      { id: 'f', kind: 'filter', params: { code: 'function map(r) {}' } },
      { id: 'fm', kind: 'flatMap', params: { code: 'function flat(r) {}' } },
      { id: 't', kind: 'transaction', params: { tables: ['x'], code: 'function transact(r, tx) {}' } },
    ];
    const missing = validateJob(job(ops))
      .problems.filter((p) => p.code === 'missing-function')
      .map((p) => [p.ids[0], p.message.split(' ').pop()]);
    expect(missing).toEqual([
      ['g', 'generate'],
      ['m', 'map'],
      ['f', 'filter'],
      ['fm', 'flatMap'],
      ['t', 'keys'],
    ]);
  });
});
