import { describe, expect, it } from 'vitest';
import { countText } from '../countText.js';
import { edge, job, mapOp, sink, source } from './jobFixtures.js';
import { MAX_SUBTASKS } from './sizeRule.js';
import { validateJob } from './validateJob.js';

/** A source and a sink at parallelism 1, and a map between them at `parallelism`. */
const wide = (parallelism: number) =>
  job(
    [source('src'), mapOp('m', { parallelism }), sink('out')],
    [edge('e1', 'src', 'm'), edge('e2', 'm', 'out')],
    { settings: { maxParallelism: 32768 } },
  );

describe('how many subtasks a job may have', () => {
  it(`is ${countText(MAX_SUBTASKS)}: its operators' parallelism added up`, () => {
    expect(MAX_SUBTASKS).toBe(20_000);
    expect(validateJob(wide(MAX_SUBTASKS - 2)).problems).toEqual([]);
  });

  it('one more is a problem that says how many the job has and how many it may have', () => {
    expect(validateJob(wide(MAX_SUBTASKS - 1)).problems).toEqual([
      {
        code: 'too-many-subtasks',
        message:
          "the job has 20,001 subtasks (its operators' parallelism added up); a job may have 20,000 at most: each subtask holds its own compiled code and buffers, all in one process's memory",
        path: '$.operators',
        ids: [],
      },
    ]);
  });

  it('counts an operator without parallelism as 1', () => {
    const many = Array.from({ length: MAX_SUBTASKS + 1 }, (_, i) => mapOp(`m${i}`));
    const { problems } = validateJob(job(many));
    expect(problems.map((p) => p.code)).toContain('too-many-subtasks');
  });
});
