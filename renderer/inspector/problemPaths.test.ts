import { describe, expect, it } from 'vitest';
import { type Problem, validateJob } from '../../engine/graph/index.js';
import { elementPath, inlineMessage, isUnder, otherProblems, problemsAt } from './problemPaths';

const problem = (path: string, ids: string[] = [], message = 'm'): Problem => ({
  code: 'x',
  message,
  path,
  ids,
});

describe('isUnder', () => {
  it('matches the path itself and what lies inside it, not siblings sharing a prefix', () => {
    expect(isUnder('$.operators[1]', '$.operators[1]')).toBe(true);
    expect(isUnder('$.operators[1].params.code', '$.operators[1]')).toBe(true);
    expect(isUnder('$.operators[1].params.tables[0]', '$.operators[1].params.tables')).toBe(true);
    expect(isUnder('$.operators[12]', '$.operators[1]')).toBe(false);
    expect(isUnder('$.settings.maxParallelismX', '$.settings.maxParallelism')).toBe(false);
  });
});

describe('problems of a form', () => {
  const job = {
    format: 'pipewright.job/1',
    name: 'j',
    operators: [
      { id: 'src', kind: 'source.jsonl', params: { path: '' } },
      {
        id: 'gen',
        kind: 'source.generator',
        params: { code: 'function generate(i) { return i; }', count: -1 },
      },
      { id: 'm', kind: 'map', params: { code: 'function map(r) { return r; }' } },
    ],
    edges: [{ id: 'e1', from: 'gen', to: 'm', partition: 'hash' }],
  };
  const { problems } = validateJob(job);

  it('finds the validator problem of each field by its path', () => {
    expect(problemsAt(problems, ['operators', 0, 'params', 'path']).map(inlineMessage)).toEqual([
      'params.path must not be empty',
    ]);
    expect(problemsAt(problems, ['operators', 1, 'params', 'count']).map((p) => p.code)).toEqual([
      'invalid-value',
    ]);
    expect(problemsAt(problems, ['edges', 0, 'key']).map((p) => p.code)).toEqual(['missing-key']);
  });

  it('lists what concerns an operator but sits on no field of its form', () => {
    const shown = new Set(problemsAt(problems, ['operators', 1, 'params', 'count']));
    const rest = otherProblems(problems, 'gen', ['operators', 1], shown);
    expect(rest).toEqual([]);
    const all = otherProblems(
      [problem('$.edges[0].partition', ['e1', 'm']), problem('$.operators[2].params.code', ['m'])],
      'm',
      ['operators', 2],
      new Set(),
    );
    expect(all).toHaveLength(2);
  });
});

describe('inlineMessage', () => {
  it('drops the subject the form already names', () => {
    expect(
      inlineMessage(problem('$', [], 'operator "a\\"b": params.code must define a function named map')),
    ).toBe('params.code must define a function named map');
    expect(inlineMessage(problem('$', [], 'edge "e1" is hash-partitioned but has no key'))).toBe(
      'edge "e1" is hash-partitioned but has no key',
    );
  });
});

describe('elementPath', () => {
  it('counts elements as the file has them, the malformed ones included', () => {
    const draft = { operators: [{ id: 'a' }, 'junk', { id: 'b' }, { id: 'b' }], edges: [] };
    expect(elementPath(draft, 'operators', 'b')).toEqual(['operators', 2]);
    expect(elementPath(draft, 'operators', 'zz')).toBeUndefined();
    expect(elementPath({ edges: 3 }, 'edges', 'e1')).toBeUndefined();
  });
});
