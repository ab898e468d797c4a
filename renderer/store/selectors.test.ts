import { describe, expect, it } from 'vitest';
import { connect, moveOperators } from '../document/draftEdits';
import type { JobDraft } from '../document/jobDraft';
import { createDesignerStore } from './designerStore';
import { isDirty, problemsOf } from './selectors';

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

describe('isDirty', () => {
  // As a person or another tool writes a job: its own key order and indentation, no final
  // newline, and no editor positions (the canvas lays it out).
  const handwritten = [
    '{',
    '    "name": "handwritten",',
    '    "format": "pipewright.job/1",',
    '    "operators": [',
    '        { "kind": "map", "id": "a", "params": { "code": "function map(r) { return r; }" } },',
    '        { "kind": "map", "id": "b", "params": { "code": "function map(r) { return r; }" } }',
    '    ],',
    '    "edges": [ { "partition": "forward", "from": "a", "to": "b", "id": "e1" } ]',
    '}',
  ].join('\n');

  it('opens a job written in another layout, without positions, unmodified and with nothing to undo', () => {
    const store = createDesignerStore();
    store.getState().loadText('/jobs/handwritten.job.json', handwritten);
    expect(isDirty(store.getState())).toBe(false);
    expect(store.temporal.getState().pastStates).toHaveLength(0);
  });

  it('is modified after an edit and unmodified again after undoing it', () => {
    const store = createDesignerStore();
    const s = store.getState;
    s().loadText('/jobs/handwritten.job.json', handwritten);
    s().moveOperators({ a: { x: 40, y: 0 } });
    expect(isDirty(s())).toBe(true);
    s().undo();
    expect(isDirty(s())).toBe(false);
  });

  it('keeps a template opened as new, and a file that is no job but was edited, modified', () => {
    const store = createDesignerStore();
    store.getState().loadText('/templates/t.job.json', handwritten, { asNew: true });
    expect(isDirty(store.getState())).toBe(true);
    const text = { open: true, draft: undefined, savedText: '[1, 2]' };
    expect(isDirty({ ...text, rawText: '[1, 2]' })).toBe(false);
    expect(isDirty({ ...text, rawText: '[1,2]' })).toBe(true);
  });
});
