import { describe, expect, it } from 'vitest';
import { connect, moveOperators } from '../document/draftEdits';
import type { JobDraft } from '../document/jobDraft';
import { problemsOf } from './selectors';

const draft = {
  format: 'pipewright.job/1',
  name: 'j',
  operators: [
    { id: 'a', kind: 'map', params: { code: 'function map(r) { return r; }' } },
    { id: 'b', kind: 'map', params: { code: 'function map(r) { return r; }' } },
  ],
  edges: [{ id: 'e1', from: 'a', to: 'b', partition: 'forward' }],
} as JobDraft;

describe('problemsOf', () => {
  it('reuses the problems while only positions change (a drag validates nothing)', () => {
    const withCycle = connect(draft, { from: 'b', to: 'a' }).draft;
    const problems = problemsOf({ draft: withCycle, parseProblems: [] });
    expect(problems.map((p) => p.code)).toEqual(['cycle']);
    const moved = moveOperators(withCycle, { a: { x: 10, y: 10 } });
    expect(problemsOf({ draft: moved, parseProblems: [] })).toBe(problems);
    expect(problemsOf({ draft: moveOperators(moved, { b: { x: 0, y: 90 } }), parseProblems: [] })).toBe(
      problems,
    );
  });

  it('validates again when anything but the editor changes, or when a problem is about the editor', () => {
    const first = problemsOf({ draft, parseProblems: [] });
    expect(problemsOf({ draft: { ...draft, name: 'k' }, parseProblems: [] })).not.toBe(first);
    const broken = { ...draft, editor: { positions: { a: { x: 'left' } } } } as unknown as JobDraft;
    const problems = problemsOf({ draft: broken, parseProblems: [] });
    expect(problems.some((p) => p.path.startsWith('$.editor'))).toBe(true);
    const fixed = moveOperators(broken, { a: { x: 0, y: 0 } });
    expect(problemsOf({ draft: fixed, parseProblems: [] })).toEqual([]);
  });
});
