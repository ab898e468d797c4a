import { describe, expect, it } from 'vitest';
import { OPERATOR_KINDS } from '../schema.js';
import { edge, expectNames, job, only, processOp, sink, source } from './jobFixtures.js';
import { validateJob } from './validateJob.js';

describe('schema problems, in words', () => {
  it('a missing parameter names the operator and the field, without zod jargon', () => {
    const { problems } = validateJob(job([{ id: 'owners', kind: 'process', params: {} }]));
    const problem = only(problems, 'required');
    expect(problem).toEqual({
      code: 'required',
      message: 'operator "owners": params.code is required (a string)',
      path: '$.operators[0].params.code',
      ids: ['owners'],
    });
  });

  it('a wrong type says what was expected and what was found', () => {
    const { problems } = validateJob(job([source('s', { parallelism: '4' })]));
    const problem = only(problems, 'wrong-type');
    expect(problem).toMatchObject({ path: '$.operators[0].parallelism', ids: ['s'] });
    expect(problem.message).toBe('operator "s": parallelism must be a number, not "4"');
  });

  it('an out-of-range value gives the limit and the value', () => {
    const { problems } = validateJob(job([source('s', { parallelism: 0 })]));
    expect(only(problems, 'invalid-value')).toMatchObject({
      path: '$.operators[0].parallelism',
      message: 'operator "s": parallelism must be at least 1 (got 0)',
    });
  });

  it('an unknown field is reported with a suggestion', () => {
    const { problems } = validateJob(job([source('s', { parallelsm: 2 })], [], { setings: {} }));
    const fields = problems.filter((p) => p.code === 'unknown-field');
    expect(fields.map((p) => p.path)).toEqual(['$.operators[0].parallelsm', '$.setings']);
    expect(fields[0]!.message).toBe(
      'operator "s": parallelsm is not a known field (did you mean "parallelism"?)',
    );
    expect(fields[0]!.ids).toEqual(['s']);
    expect(fields[1]!.message).toContain('did you mean "settings"?');
  });

  it('an unknown kind lists the known kinds', () => {
    const { problems } = validateJob(job([{ id: 'x', kind: 'reduce', params: {} }]));
    const problem = only(problems, 'unknown-kind');
    expect(problem.path).toBe('$.operators[0].kind');
    expect(problem.ids).toEqual(['x']);
    expectNames(problem, 'x', 'reduce');
    for (const kind of OPERATOR_KINDS) expect(problem.message).toContain(kind);
  });

  it('an operator of unknown kind still has its id and parallelism checked', () => {
    const { problems } = validateJob(job([{ id: 'bad id', kind: 'reduce', parallelism: -1, params: {} }]));
    expect(problems.map((p) => [p.code, p.path])).toEqual([
      ['invalid-value', '$.operators[0].id'],
      ['unknown-kind', '$.operators[0].kind'],
      ['invalid-value', '$.operators[0].parallelism'],
    ]);
  });

  it('a bad element inside a key names its position', () => {
    const { problems } = validateJob(
      job([source('s'), processOp('p')], [edge('e1', 's', 'p', { partition: 'hash', key: ['owner', 3] })]),
    );
    expect(only(problems, 'wrong-type')).toMatchObject({
      path: '$.edges[0].key[1]',
      ids: ['e1'],
      message: 'edge "e1": key[1] must be a string, not 3',
    });
  });

  it('a bad enum value lists the choices', () => {
    const { problems } = validateJob(
      job([source('s'), sink('o')], [edge('e1', 's', 'o', { partition: 'shuffle' })]),
    );
    const problem = only(problems, 'invalid-value');
    expect(problem.path).toBe('$.edges[0].partition');
    expect(problem.message).toContain('"forward", "rebalance", "hash", "broadcast"');
    expectNames(problem, 'e1', 'shuffle');
  });

  it('no message contains zod wording', () => {
    const { problems } = validateJob(
      job(
        [
          { id: 'a', kind: 'process', params: {} },
          { id: 'b', kind: 'nope' },
          'text',
          { id: 'c', kind: 'window', params: { type: 'x', aggregate: 'count', sizeMs: 1.5 } },
        ],
        [
          { id: 'e1', from: 'a', to: 'b', partition: 'hash', key: [] },
          { id: 'e2', key: 5 },
        ],
        {
          name: '',
          settings: { maxParallelism: 99999, extra: true },
          editor: { positions: { a: { x: 'q' } } },
        },
      ),
    );
    expect(problems.length).toBeGreaterThan(10);
    for (const problem of problems) {
      expect(problem.message).not.toMatch(
        /Invalid input|received|expected string|>=|discriminator|Unrecognized/,
      );
    }
  });
});
