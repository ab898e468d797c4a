import { describe, expect, it } from 'vitest';
import { moveOperators } from '../document/draftEdits';
import type { JobDraft } from '../document/jobDraft';
import { flowModel, flowModelOf } from './flowModel';

const job = (operators: unknown, edges: unknown = []): JobDraft =>
  ({ format: 'pipewright.job/1', name: 'j', operators, edges }) as JobDraft;

describe('flow model', () => {
  it('uses operator and edge ids as React Flow ids when they are unique and safe', () => {
    const model = flowModel(
      job(
        [
          { id: 'a', kind: 'source.jsonl', params: { path: 'x' } },
          { id: 'b', kind: 'sink.jsonl', params: { path: 'y' } },
        ],
        [{ id: 'e1', from: 'a', to: 'b', partition: 'forward' }],
      ),
    );
    expect(model.operators.map((o) => [o.nodeId, o.opId, o.pinned])).toEqual([
      ['a', 'a', false],
      ['b', 'b', false],
    ]);
    expect(model.edges.map((e) => [e.edgeId, e.docId, e.source, e.target, e.sourceHandle])).toEqual([
      ['e1', 'e1', 'a', 'b', 'out'],
    ]);
  });

  it('draws every operator of a foreign file under a unique id, and pins those without an id of their own', () => {
    const model = flowModel(
      job([
        { id: 'a', kind: 'map' },
        { id: 'a', kind: 'filter' },
        { kind: 'map' },
        { id: 7 },
        { id: 'x"y', kind: 'map' },
        'not an object',
        null,
      ]),
    );
    expect(model.operators.map((o) => [o.nodeId, o.opId, o.pinned])).toEqual([
      ['a', 'a', false],
      ['~op1', 'a', true],
      ['~op2', undefined, true],
      ['~op3', undefined, true],
      ['~op4', 'x"y', false],
    ]);
    expect(new Set(model.operators.map((o) => o.nodeId)).size).toBe(5);
    expect(model.nodeOf.get('a')).toBe('a');
    expect(model.nodeOf.get('x"y')).toBe('~op4');
  });

  it('leaves out edges whose ends cannot be found and gives repeated edge ids unique React Flow ids', () => {
    const model = flowModel(
      job(
        [
          { id: 'a', kind: 'map' },
          { id: 'b', kind: 'map' },
        ],
        [
          { id: 'e1', from: 'a', to: 'b', partition: 'forward' },
          { id: 'e1', from: 'b', to: 'a', partition: 'forward' },
          { id: 'e2', from: 'a', to: 'nowhere', partition: 'forward' },
          { id: 'e3', from: 'a' },
          { from: 'a', to: 'b', fromPort: 'side' },
          42,
        ],
      ),
    );
    expect(model.edges.map((e) => [e.edgeId, e.docId, e.sourceHandle])).toEqual([
      ['e1', 'e1', 'out'],
      ['~edge1', 'e1', 'out'],
      ['~edge4', undefined, 'side'],
    ]);
  });

  it('does not throw on drafts that are not job-shaped at all', () => {
    for (const draft of [job(undefined, undefined), job({}, 'x'), job([[]], [[]]), job(null, null)]) {
      expect(flowModel(draft).operators.length).toBe(0);
    }
  });

  it('is reused while only positions change', () => {
    const draft = job([{ id: 'a', kind: 'map' }]);
    const moved = moveOperators(draft, { a: { x: 10, y: 20 } });
    expect(flowModelOf(moved)).toBe(flowModelOf(draft));
    expect(flowModelOf(job([{ id: 'a', kind: 'map' }]))).not.toBe(flowModelOf(draft));
  });
});
