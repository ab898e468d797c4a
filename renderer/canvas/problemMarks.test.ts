import { describe, expect, it } from 'vitest';
import type { Problem } from '../../engine/graph/index.js';
import { problemMarks } from './problemMarks';

const problem = (code: string, message: string, ids: string[]): Problem => ({
  code,
  message,
  path: '$',
  ids,
});

describe('problem marks', () => {
  it('keeps the first message naming each id and collects the ids on cycles', () => {
    const problems = [
      problem('missing-key', 'edge "e1" needs a key', ['e1', 'b']),
      problem('cycle', 'cycle without a feedback edge: a -> b -> a', ['a', 'b', 'e1', 'e2']),
    ];
    const marks = problemMarks(problems);
    expect(marks.messages.get('e1')).toBe('edge "e1" needs a key');
    expect(marks.messages.get('a')).toMatch(/^cycle/);
    expect([...marks.cycleIds]).toEqual(['a', 'b', 'e1', 'e2']);
    expect(problemMarks(problems)).toBe(marks);
  });
});
