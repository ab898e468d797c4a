import { describe, expect, it } from 'vitest';
import { edge, expectNames, job, only, sink, source } from './jobFixtures.js';
import { validateJob } from './validateJob.js';

/** A job source -> window "w" (hash on k) -> sink, the window's params as given. */
function windowJob(params: Record<string, unknown>) {
  return job(
    [source('s'), { id: 'w', kind: 'window', params }, sink('o')],
    [edge('e1', 's', 'w', { partition: 'hash', key: 'k' }), edge('e2', 'w', 'o', { partition: 'forward' })],
  );
}

const problemsOf = (params: Record<string, unknown>) => validateJob(windowJob(params)).problems;

const AGGREGATE_CODE = `function createAccumulator() { return 0; }
function add(acc, r) { return acc + 1; }
function merge(a, b) { return a + b; }
function result(acc) { return acc; }`;

describe('window params', () => {
  it.each([
    { type: 'tumbling', sizeMs: 1000, aggregate: 'count' },
    { type: 'tumbling', sizeMs: 1000, offsetMs: -999, aggregate: 'sum', field: 'a.b' },
    { type: 'sliding', sizeMs: 1000, slideMs: 1000, aggregate: 'avg', field: 'p', allowedLatenessMs: 0 },
    { type: 'sliding', sizeMs: 1000, slideMs: 250, offsetMs: 249, aggregate: 'max', field: 'p' },
    { type: 'session', gapMs: 1, aggregate: 'min', field: 'p', allowedLatenessMs: 5000 },
    { type: 'session', gapMs: 10, aggregate: 'code', code: AGGREGATE_CODE },
    {
      type: 'tumbling',
      sizeMs: 10,
      aggregate: 'code',
      code: AGGREGATE_CODE.replace(/function merge.*\n/, ''),
    },
    // Params of another type are left alone: the designer drops them, a file may keep them.
    { type: 'session', gapMs: 10, sizeMs: 5, slideMs: 50, aggregate: 'count', field: 'p' },
  ])('%j is valid', (params) => {
    expect(problemsOf(params)).toEqual([]);
  });

  it('sizeMs of 0 or less names the operator', () => {
    for (const sizeMs of [0, -5]) {
      const problem = only(problemsOf({ type: 'tumbling', sizeMs, aggregate: 'count' }), 'invalid-value');
      expect(problem).toMatchObject({ path: '$.operators[1].params.sizeMs', ids: ['w'] });
      expectNames(problem, 'w');
      // Reported once, as the bad value it is, not also as missing.
      expect(problemsOf({ type: 'tumbling', sizeMs, aggregate: 'count' })).toHaveLength(1);
    }
  });

  it.each(['tumbling', 'sliding'])('a %s window without sizeMs', (type) => {
    const problem = only(problemsOf({ type, slideMs: 10, aggregate: 'count' }), 'required');
    expect(problem).toEqual({
      code: 'required',
      message: `operator "w": a ${type} window needs params.sizeMs, the length of each window in ms`,
      path: '$.operators[1].params.sizeMs',
      ids: ['w'],
    });
  });

  it('a sliding window without slideMs', () => {
    const problem = only(problemsOf({ type: 'sliding', sizeMs: 10, aggregate: 'count' }), 'required');
    expect(problem).toMatchObject({ path: '$.operators[1].params.slideMs', ids: ['w'] });
  });

  it('a slide larger than its window', () => {
    const problem = only(
      problemsOf({ type: 'sliding', sizeMs: 1000, slideMs: 1001, aggregate: 'count' }),
      'invalid-value',
    );
    expect(problem).toEqual({
      code: 'invalid-value',
      message:
        'operator "w": params.slideMs (1001) is larger than params.sizeMs (1000): records between two windows would be in none',
      path: '$.operators[1].params.slideMs',
      ids: ['w'],
    });
  });

  it('an offset of a whole window or more (Flink: abs(offset) < size, or < slide)', () => {
    expect(
      only(problemsOf({ type: 'tumbling', sizeMs: 100, offsetMs: 100, aggregate: 'count' }), 'invalid-value'),
    ).toMatchObject({ path: '$.operators[1].params.offsetMs', ids: ['w'] });
    expect(
      only(problemsOf({ type: 'tumbling', sizeMs: 100, offsetMs: -100, aggregate: 'count' }), 'invalid-value')
        .message,
    ).toBe('operator "w": params.offsetMs (-100) must be less than params.sizeMs (100) either way');
    expect(
      only(
        problemsOf({ type: 'sliding', sizeMs: 100, slideMs: 10, offsetMs: 10, aggregate: 'count' }),
        'invalid-value',
      ).message,
    ).toContain('params.slideMs (10)');
  });

  it('a session without a gap', () => {
    const problem = only(problemsOf({ type: 'session', aggregate: 'count' }), 'required');
    expect(problem).toEqual({
      code: 'required',
      message: 'operator "w": a session window needs params.gapMs, the quiet time in ms that ends a session',
      path: '$.operators[1].params.gapMs',
      ids: ['w'],
    });
  });

  it.each(['sum', 'min', 'max', 'avg'])('%s without a field', (aggregate) => {
    const problem = only(problemsOf({ type: 'tumbling', sizeMs: 10, aggregate }), 'required');
    expect(problem).toEqual({
      code: 'required',
      message: `operator "w": aggregate "${aggregate}" needs params.field, the record field to ${aggregate}`,
      path: '$.operators[1].params.field',
      ids: ['w'],
    });
  });

  it('aggregate "code" without code', () => {
    const problem = only(problemsOf({ type: 'tumbling', sizeMs: 10, aggregate: 'code' }), 'required');
    expect(problem).toMatchObject({ path: '$.operators[1].params.code', ids: ['w'] });
  });

  it('an aggregate in code lacking a function names each one missing', () => {
    const code = 'function createAccumulator() { return 0; }\nfunction result(acc) { return acc; }';
    const problems = problemsOf({ type: 'session', gapMs: 5, aggregate: 'code', code });
    expect(problems.map((p) => p.message)).toEqual([
      'operator "w": params.code must define a function named add',
      'operator "w": params.code must define a function named merge (session windows merge)',
    ]);
    expect(
      problems.every((p) => p.code === 'missing-function' && p.path === '$.operators[1].params.code'),
    ).toBe(true);
  });

  it('an aggregate in code that does not parse is a syntax error only', () => {
    const problems = problemsOf({ type: 'tumbling', sizeMs: 5, aggregate: 'code', code: 'function add( {' });
    expect(problems.map((p) => p.code)).toEqual(['syntax-error']);
  });

  it('code beside a built-in aggregate is a problem: it would never run', () => {
    const problem = only(
      problemsOf({ type: 'tumbling', sizeMs: 5, aggregate: 'count', code: AGGREGATE_CODE }),
      'invalid-value',
    );
    expect(problem.message).toBe(
      'operator "w": params.code is used only with aggregate "code" (this window\'s aggregate is "count")',
    );
  });
});
