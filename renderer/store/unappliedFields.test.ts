import { describe, expect, it } from 'vitest';
import { savedWithoutNotice, type UnappliedField, unappliedProblem } from './unappliedFields';

const parallelism: UnappliedField = {
  key: 'a',
  owner: { kind: 'operator', id: 'p1' },
  label: 'Parallelism',
  path: '$.operators[1].parallelism',
  text: 'four',
  reason: '"four" is not a number',
  kept: '1',
};

const maxParallelism: UnappliedField = {
  key: 'b',
  owner: { kind: 'job' },
  label: 'Max parallelism',
  path: '$.settings.maxParallelism',
  text: 'lots',
  reason: '"lots" is not a number',
  kept: '',
};

describe('a field whose text is not applied', () => {
  it('is a problem naming the operator, the field, the text and what the job keeps', () => {
    expect(unappliedProblem(parallelism)).toEqual({
      code: 'field-not-applied',
      message: 'operator "p1": Parallelism "four" is not applied: "four" is not a number. The job keeps 1.',
      path: '$.operators[1].parallelism',
      ids: ['p1'],
    });
  });

  it('of the job form names no element', () => {
    const problem = unappliedProblem(maxParallelism);
    expect(problem.message).toBe(
      'Max parallelism "lots" is not applied: "lots" is not a number. The job keeps no value.',
    );
    expect(problem.ids).toEqual([]);
  });

  it('makes a save say what it left out', () => {
    expect(savedWithoutNotice([])).toBeUndefined();
    expect(savedWithoutNotice([parallelism])).toBe(
      'Saved without your change to Parallelism of operator "p1": "four" is not a number. The file keeps 1.',
    );
    expect(savedWithoutNotice([parallelism, maxParallelism, { ...parallelism, label: 'Id' }])).toBe(
      'Saved without your changes to Parallelism of operator "p1", Max parallelism of the job and Id of operator "p1": they are no values (see the Problems panel), so the file keeps the old ones.',
    );
  });
});
