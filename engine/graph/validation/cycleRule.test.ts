import { describe, expect, it } from 'vitest';
import { edge, expectNames, job, mapOp, only, processOp, source } from './jobFixtures.js';
import { validateJob } from './validateJob.js';

describe('cycle rule', () => {
  it('a cycle without a feedback edge names its operators in order, and its edges', () => {
    const { problems } = validateJob(
      job(
        [source('s'), mapOp('A'), mapOp('B'), mapOp('C')],
        [edge('e0', 's', 'A'), edge('e1', 'A', 'B'), edge('e3', 'C', 'A'), edge('e2', 'B', 'C')],
      ),
    );
    const problem = only(problems, 'cycle');
    expect(problem.path).toBe('$.edges[1]');
    expect(problem.ids).toEqual(['A', 'B', 'C', 'e1', 'e2', 'e3']);
    expect(problem.message).toContain('"A" -> "B" -> "C" -> "A"');
    expectNames(problem, 'e1', 'e2', 'e3');
  });

  it('reports each independent cycle, and a self-loop', () => {
    const { problems } = validateJob(
      job(
        [mapOp('a'), mapOp('b'), mapOp('c'), mapOp('d')],
        [edge('e1', 'a', 'b'), edge('e2', 'b', 'a'), edge('e3', 'c', 'd'), edge('e4', 'd', 'd')],
      ),
    );
    const cycles = problems.filter((p) => p.code === 'cycle');
    expect(cycles.map((p) => p.ids)).toEqual([
      ['a', 'b', 'e1', 'e2'],
      ['d', 'e4'],
    ]);
    expect(cycles[1]!.message).toContain('"d" -> "d"');
  });

  it('a cycle through a feedback edge is allowed', () => {
    const { problems } = validateJob(
      job(
        [source('s'), processOp('a'), processOp('b')],
        [
          edge('e1', 's', 'a', { partition: 'hash', key: 'k' }),
          edge('e2', 'a', 'b', { partition: 'hash', key: 'k' }),
          edge('e3', 'b', 'a', { partition: 'hash', key: 'k', feedback: true }),
        ],
      ),
    );
    expect(problems).toEqual([]);
  });

  it('a feedback edge does not excuse a second loop that avoids it', () => {
    const { problems } = validateJob(
      job(
        [mapOp('a'), mapOp('b'), mapOp('c')],
        [
          edge('e1', 'a', 'b'),
          edge('e2', 'b', 'a', { partition: 'hash', key: 'k', feedback: true }),
          edge('e3', 'b', 'c'),
          edge('e4', 'c', 'b'),
        ],
      ),
    );
    expect(only(problems, 'cycle').ids).toEqual(['b', 'c', 'e3', 'e4']);
  });
});
