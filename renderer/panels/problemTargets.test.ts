import { describe, expect, it } from 'vitest';
import { parseJobText, validateJob } from '../../engine/graph/index.js';
import { makeFeedback, updateEdge } from '../document/draftEdits';
import type { JobDraft } from '../document/jobDraft';
import { feedbackCandidates, messageWithoutPosition, problemTarget, textPosition } from './problemTargets';

const code = (fn: string) => `function ${fn}(record, ctx) { return record; }`;

// a -> b -> c -> b: the cycle b -> c -> b has no feedback edge.
const looped: JobDraft = {
  format: 'pipewright.job/1',
  name: 'loop',
  operators: [
    { id: 'a', kind: 'source.jsonl', params: { path: 'in.jsonl' } },
    { id: 'b', kind: 'map', params: { code: code('map') } },
    { id: 'c', kind: 'filter', params: { code: code('filter') } },
  ],
  edges: [
    { id: 'e1', from: 'a', to: 'b', partition: 'forward' },
    { id: 'e2', from: 'b', to: 'c', partition: 'forward' },
    { id: 'e3', from: 'c', to: 'b', partition: 'forward' },
  ],
};

describe('problemTarget', () => {
  it('points a cycle at its first operator', () => {
    const [cycle] = validateJob(looped).problems;
    expect(cycle?.code).toBe('cycle');
    expect(problemTarget(looped, cycle!)).toEqual({ kind: 'operator', id: 'b' });
  });

  it('points an edge problem at the edge', () => {
    const draft = updateEdge(looped, 'e1', { partition: 'hash' });
    const missing = validateJob(draft).problems.find((p) => p.code === 'missing-key')!;
    expect(problemTarget(draft, missing)).toEqual({ kind: 'edge', id: 'e1' });
  });

  it('skips ids the draft does not hold (an edge to an unknown operator)', () => {
    const draft: JobDraft = {
      ...looped,
      edges: [{ id: 'e9', from: 'ghost', to: 'b', partition: 'forward' }],
    };
    const unknown = validateJob(draft).problems.find((p) => p.code === 'unknown-operator')!;
    expect(unknown.ids).toEqual(['e9', 'ghost']);
    expect(problemTarget(draft, unknown)).toEqual({ kind: 'edge', id: 'e9' });
    expect(problemTarget(undefined, unknown)).toBeUndefined();
  });
});

describe('feedbackCandidates', () => {
  it('offers each edge of the cycle, and making one a feedback edge leaves only its key to give', () => {
    const [cycle] = validateJob(looped).problems;
    expect(feedbackCandidates(looped, cycle!)).toEqual(['e2', 'e3']);
    const fixed = makeFeedback(looped, 'e3');
    const after = validateJob(fixed).problems;
    expect(after.map((p) => [p.code, p.ids])).toEqual([['missing-key', ['e3']]]);
    expect(validateJob(updateEdge(fixed, 'e3', { key: 'id' })).problems).toEqual([]);
  });

  it('offers nothing for other problems', () => {
    const draft = updateEdge(looped, 'e1', { partition: 'hash' });
    const missing = validateJob(draft).problems.find((p) => p.code === 'missing-key')!;
    expect(feedbackCandidates(draft, missing)).toEqual([]);
  });
});

describe('textPosition', () => {
  it('says where malformed JSON breaks', () => {
    const [problem] = parseJobText('{\n  "format": 1,\n}').problems;
    expect(textPosition(problem!)).toBe('line 3, column 1');
    expect(problem!.message).toMatch(/\(line 3, column 1\)$/);
    expect(messageWithoutPosition(problem!)).toBe(
      'the file is not valid JSON: a trailing comma before "}" is not allowed in JSON',
    );
    expect(textPosition({ code: 'x', message: '', path: '$', ids: [] })).toBeUndefined();
  });
});
