import { describe, expect, it } from 'vitest';
import { edge, job, sink, source } from './jobFixtures.js';
import { MAX_NESTING } from './nestingRule.js';
import { validateJob, validateJobText } from './validateJob.js';

/** `{"a": {"a": ... 1}}`, `depth` objects deep, as text (a deep value built in JS is as deep). */
const nestedText = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

function jobWithParam(value: string): string {
  const document = job([source('src'), sink('out')], [edge('e1', 'src', 'out')]);
  const text = JSON.stringify(document);
  // The deep value goes in as text: JSON.stringify itself would recurse through it.
  return text.replace('"params":{"path":"src.jsonl"}', `"params":{"path":"src.jsonl","x":${value}}`);
}

describe('how deep a job file nests', () => {
  it('params nested 3,000 deep give one problem naming the operator and the param, not a RangeError', () => {
    const { job: valid, problems } = validateJobText(jobWithParam(nestedText(3000)));
    expect(valid).toBeUndefined();
    expect(problems).toEqual([
      {
        code: 'nested-too-deep',
        message: `operator "src": params.x nests objects and arrays too deep: a job file may nest them ${MAX_NESTING} levels at most`,
        path: '$.operators[0].params.x',
        ids: ['src'],
      },
    ]);
  });

  it('even nested far deeper (arrays), one problem', () => {
    const depth = 200_000;
    const text = jobWithParam(`${'['.repeat(depth)}${']'.repeat(depth)}`);
    expect(validateJobText(text).problems.map((p) => p.code)).toEqual(['nested-too-deep']);
  });

  it('outside an operator, names the field', () => {
    const document = job([source('src'), sink('out')], [edge('e1', 'src', 'out')]);
    let settings: Record<string, unknown> = {};
    const root = settings;
    for (let i = 0; i < MAX_NESTING + 5; i++) {
      const inner: Record<string, unknown> = {};
      settings.a = inner;
      settings = inner;
    }
    const { problems } = validateJob({ ...document, settings: root });
    expect(problems).toHaveLength(1);
    expect(problems[0]!.message).toBe(
      `settings nests objects and arrays too deep: a job file may nest them ${MAX_NESTING} levels at most`,
    );
    expect(problems[0]!.path).toBe('$.settings');
  });

  it(`lets params nest ${MAX_NESTING} levels (the document's own levels included)`, () => {
    // root > operators > [0] > params > x: four levels above x's own.
    const { problems } = validateJobText(jobWithParam(nestedText(MAX_NESTING - 4)));
    expect(problems.map((p) => p.code)).not.toContain('nested-too-deep');
    expect(validateJobText(jobWithParam(nestedText(MAX_NESTING - 3))).problems.map((p) => p.code)).toEqual([
      'nested-too-deep',
    ]);
  });
});
