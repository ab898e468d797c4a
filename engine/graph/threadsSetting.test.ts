// settings.threads (issue 13): a whole number of threads, 1 or more, or absent (the number of
// cores, chosen at run time); anything else is a problem naming the field.
import { describe, expect, it } from 'vitest';
import { only, pipeline } from './validation/jobFixtures.js';
import { validateJob } from './validation/validateJob.js';

const withThreads = (threads: unknown) => validateJob({ ...pipeline(), settings: { threads } });

describe('settings.threads', () => {
  it('is absent unless given: the run picks the number of cores', () => {
    const result = validateJob(pipeline());
    expect(result.problems).toEqual([]);
    expect(result.job!.settings.threads).toBeUndefined();
  });

  it.each([1, 2, 64])('takes %i', (threads) => {
    const result = withThreads(threads);
    expect(result.problems).toEqual([]);
    expect(result.job!.settings.threads).toBe(threads);
  });

  it.each([
    [0, 'invalid-value', 'settings.threads must be at least 1 (got 0)'],
    [-1, 'invalid-value', 'settings.threads must be at least 1 (got -1)'],
    [1.5, 'wrong-type', 'settings.threads must be a whole number, not 1.5'],
    ['2', 'wrong-type', 'settings.threads must be a number, not "2"'],
  ])('refuses %j with one problem naming the field', (threads, code, message) => {
    const result = withThreads(threads);
    expect(result.job).toBeUndefined();
    const problem = only(result.problems, code);
    expect(problem).toMatchObject({ message, path: '$.settings.threads' });
    expect(result.problems).toHaveLength(1);
  });
});
