import { describe, expect, it } from 'vitest';
import { validateJob } from '../../engine/graph/index.js';
import { connect, moveOperators, updateOperator } from '../document/draftEdits';
import { draftPositions, type JobDraft } from '../document/jobDraft';
import { CARD_LINE, cardHandles, cardSize, PORT_ROW, type Size } from './cardGeometry';
import { buildEdges, buildNodes } from './flowElements';
import { flowModelOf } from './flowModel';
import { generatedJob } from './generatedJob';
import { problemMarks } from './problemMarks';

function nodesOf(
  draft: JobDraft,
  previous = new Map(),
  selected: string[] = [],
  measured = new Map<string, Size>(),
) {
  const model = flowModelOf(draft);
  const positions = new Map(
    Object.entries(draftPositions(draft)).map(([id, p]) => [model.nodeOf.get(id)!, p]),
  );
  const marks = problemMarks(validateJob(draft).problems);
  return buildNodes({ model, positions, selected: new Set(selected), marks, measured }, previous);
}

describe('flow elements', () => {
  const job = generatedJob(500);

  it('builds a valid generated job of 500 operators with nothing marked', () => {
    expect(validateJob(job).problems).toEqual([]);
    const nodes = nodesOf(job);
    expect(nodes.size).toBe(500);
    expect([...nodes.values()].every((n) => n.data.problem === undefined)).toBe(true);
  });

  it('reuses every node object but the one moved', () => {
    const before = nodesOf(job);
    const moved = moveOperators(job, { src3: { x: 7, y: 9 } });
    const after = nodesOf(moved, before);
    const changed = [...after.values()].filter((n) => before.get(n.id) !== n).map((n) => n.id);
    expect(changed).toEqual(['src3']);
    expect(after.get('src3')!.position).toEqual({ x: 7, y: 9 });
    expect(after.get('src3')!.data).toBe(before.get('src3')!.data);
  });

  it('renews a node when its selection, size, ports or problems change', () => {
    const before = nodesOf(job);
    expect(nodesOf(job, before, ['src0']).get('src0')).not.toBe(before.get('src0'));
    const measured = new Map([['src0', { width: 180, height: 70 }]]);
    expect(nodesOf(job, before, [], measured).get('src0')!.measured).toEqual({ width: 180, height: 70 });
    const code = 'function map(r, ctx) { ctx.emit(r, "odd"); return r; }';
    const edited = updateOperator(job, 'p0_map0', { params: { code } });
    const after = nodesOf(edited, before);
    expect(after.get('p0_map0')!.data.ports.outputs.map((p) => p.port)).toEqual(['out', 'odd']);
    expect(after.get('p0_map1')).toBe(before.get('p0_map1'));
  });

  it('gives each node its card size until React Flow measures another', () => {
    const nodes = nodesOf(job);
    const source = nodes.get('src0')!;
    expect(source.measured).toEqual(cardSize(source.data.ports));
    const code = 'function map(r, ctx) { ctx.emit(r, "odd"); return r; }';
    const twoRows = nodesOf(updateOperator(job, 'p0_map0', { params: { code } }), nodes).get('p0_map0')!;
    expect(twoRows.measured).toEqual({ width: 180, height: cardSize(source.data.ports).height + PORT_ROW });
  });

  it("draws a transaction's tables on a line of its own, which makes the card taller", () => {
    const tx = { id: 'ledger', kind: 'transaction', params: { tables: ['accounts', 'holdings'], code: '' } };
    const withTx = { ...job, operators: [...(job.operators as unknown[]), tx] } as JobDraft;
    const before = nodesOf(withTx);
    const node = before.get('ledger')!;
    expect(node.data.line).toBe('tables: accounts, holdings');
    expect(before.get('src0')!.data.line).toBeUndefined();
    const plain = cardSize(node.data.ports);
    expect(node.measured).toEqual({ width: plain.width, height: plain.height + CARD_LINE });
    // The handles sit on the port rows ("out", "aborted"), at the bottom of the taller card.
    expect(node.handles!.map((h) => [h.id, h.y])).toEqual(
      cardHandles(node.data.ports).map((h) => [h.id, h.y + CARD_LINE]),
    );
    expect(node.handles!.map((h) => h.id)).toEqual(['in', 'out', 'aborted']);
    const renamed = nodesOf(updateOperator(withTx, 'ledger', { params: { tables: ['accounts'] } }), before);
    expect(renamed.get('ledger')!.data.line).toBe('tables: accounts');
    expect(renamed.get('src0')).toBe(before.get('src0'));
    // A file being edited may hold anything in tables: no line rather than a wrong one.
    const odd = nodesOf(updateOperator(withTx, 'ledger', { params: { tables: 'accounts' } }));
    expect(odd.get('ledger')!.data.line).toBeUndefined();
  });

  it('names each node for assistive technology and marks the invalid ones', () => {
    const made = connect(job, { from: 'out0', to: 'out1' });
    const nodes = nodesOf(made.draft);
    expect(nodes.get('p0_process2')!.ariaLabel).toBe('Operator p0_process2, Process, parallelism 2');
    const sink = nodes.get('out0')!;
    expect(sink.data.problem).toMatch(/sink/);
    expect(sink.domAttributes).toEqual({ 'aria-invalid': true });
  });

  it('draws edges with partition labels, feedback edges as their own type, and offers to break a new cycle', () => {
    const made = connect(job, { from: 'p0_flatMap3', to: 'p0_map0' });
    const model = flowModelOf(made.draft);
    const marks = problemMarks(validateJob(made.draft).problems);
    const edges = buildEdges({ model, selected: new Set([made.id]), marks }, new Map());
    const feedback = edges.get('fb0')!;
    expect(feedback.type).toBe('feedback');
    expect(feedback.data!.label).toBe('retry → hash(key)');
    expect(feedback.ariaLabel).toBe('Edge fb0 from p0_process2 to p0_process2, hash(key), feedback');
    const closing = edges.get(made.id)!;
    expect(closing.data!.offerFeedback).toBe(true);
    expect(closing.data!.problem).toMatch(/cycle/);
    const again = buildEdges({ model, selected: new Set(), marks }, edges);
    expect(again.get(made.id)!.data!.offerFeedback).toBe(false);
    expect(again.get('e0_1')).toBe(edges.get('e0_1'));
  });

  it('gives the edges of a two-operator cycle a lane each, and renews an edge whose lane changed', () => {
    const made = connect(job, { from: 'p0_filter1', to: 'p0_map0' });
    const model = flowModelOf(made.draft);
    const marks = problemMarks(validateJob(made.draft).problems);
    const before = buildEdges({ model: flowModelOf(job), selected: new Set(), marks }, new Map());
    const edges = buildEdges({ model, selected: new Set(), marks }, before);
    const forward = [...edges.values()].find((e) => e.source === 'p0_map0' && e.target === 'p0_filter1')!;
    expect(forward.data!.lane).toEqual({ index: 0, count: 2 });
    expect(edges.get(made.id)!.data!.lane).toEqual({ index: 1, count: 2 });
    expect(forward).not.toBe(before.get(forward.id));
    expect(edges.get('e0_1')!.data!.lane).toEqual({ index: 0, count: 1 });
    expect(edges.get('e0_1')).toBe(before.get('e0_1'));
  });
});
