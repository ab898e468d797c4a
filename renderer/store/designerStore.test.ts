import { describe, expect, it } from 'vitest';
import { draftEdges, draftOperators, draftPositions } from '../document/jobDraft';
import { createDesignerStore } from './designerStore';
import { isDirty, problemsOf } from './selectors';

function started() {
  const store = createDesignerStore();
  store.getState().newDocument('t');
  return store;
}

const ids = (store: ReturnType<typeof createDesignerStore>) =>
  draftOperators(store.getState().draft!).map((op) => op.id);

describe('designer store', () => {
  it('makes each action one undo step and redoes it', () => {
    const store = started();
    const s = store.getState;
    const a = s().addOperator('source.jsonl', { x: 0, y: 0 })!;
    const b = s().addOperator('sink.jsonl', { x: 200, y: 0 })!;
    s().connect({ from: a, to: b });
    expect(draftEdges(s().draft!)).toHaveLength(1);
    s().undo();
    expect(draftEdges(s().draft!)).toHaveLength(0);
    expect(ids(store)).toEqual(['source1', 'sink1']);
    s().undo();
    expect(ids(store)).toEqual(['source1']);
    s().redo();
    s().redo();
    expect(draftEdges(s().draft!)).toHaveLength(1);
    expect(problemsOf(s())).toEqual([]);
  });

  it('drops a transaction that validates, and makes each edit of its tables and code one step', () => {
    const store = started();
    const s = store.getState;
    const tx = s().addOperator('transaction', { x: 0, y: 0 })!;
    expect(problemsOf(s())).toEqual([]);
    const params = () => draftOperators(s().draft!)[0]!.params as { tables: string[]; code: string };
    const code = params().code;
    s().updateOperator(tx, { params: { tables: ['accounts', 'holdings'] } }, `${tx}.params.tables`);
    s().updateOperator(tx, { params: { code: `${code}// audited\n` } }, `${tx}.params.code`);
    expect(params()).toEqual({ tables: ['accounts', 'holdings'], code: `${code}// audited\n` });
    s().undo();
    expect(params()).toEqual({ tables: ['accounts', 'holdings'], code });
    s().undo();
    expect(params()).toEqual({ tables: ['rows'], code });
  });

  it('records a whole drag as one step', () => {
    const store = started();
    const s = store.getState;
    const a = s().addOperator('map', { x: 0, y: 0 })!;
    s().beginMove();
    for (let i = 1; i <= 10; i++) s().moveOperators({ [a]: { x: i * 10, y: 0 } });
    s().endMove();
    expect(draftPositions(s().draft!)[a]).toEqual({ x: 100, y: 0 });
    s().undo();
    expect(draftPositions(s().draft!)[a]).toEqual({ x: 0, y: 0 });
    s().redo();
    expect(draftPositions(s().draft!)[a]).toEqual({ x: 100, y: 0 });
  });

  it('folds typing in one field into one step, but not typing in two fields', () => {
    const store = started();
    const s = store.getState;
    const a = s().addOperator('map', { x: 0, y: 0 })!;
    for (const code of ['f', 'fu', 'fun']) s().updateOperator(a, { params: { code } }, `${a}.code`);
    s().updateOperator(a, { parallelism: 2 }, `${a}.parallelism`);
    s().undo();
    expect(draftOperators(s().draft!)[0]?.parallelism).toBe(1);
    expect((draftOperators(s().draft!)[0]!.params as { code: string }).code).toBe('fun');
    s().undo();
    expect((draftOperators(s().draft!)[0]!.params as { code: string }).code).toContain('function map');
  });

  it('carries a renamed operator into its edges, position and selection', () => {
    const store = started();
    const s = store.getState;
    const a = s().addOperator('source.jsonl', { x: 5, y: 6 })!;
    const b = s().addOperator('sink.jsonl', { x: 200, y: 0 })!;
    s().connect({ from: a, to: b });
    s().setSelection({ operators: [a], edges: [] });
    s().updateOperator(a, { id: 'events' });
    expect(draftEdges(s().draft!)[0]).toMatchObject({ from: 'events', to: b });
    expect(draftPositions(s().draft!).events).toEqual({ x: 5, y: 6 });
    expect(s().selection.operators).toEqual(['events']);
  });

  it('deletes operators with their edges', () => {
    const store = started();
    const s = store.getState;
    const a = s().addOperator('source.jsonl', { x: 0, y: 0 })!;
    const b = s().addOperator('sink.jsonl', { x: 200, y: 0 })!;
    s().connect({ from: a, to: b });
    s().setSelection({ operators: [a], edges: [] });
    s().deleteSelection();
    expect(ids(store)).toEqual([b]);
    expect(draftEdges(s().draft!)).toHaveLength(0);
    expect(draftPositions(s().draft!)[a]).toBeUndefined();
  });

  it('pastes copies under fresh ids with their inner edges, offset from the original', () => {
    const store = started();
    const s = store.getState;
    const a = s().addOperator('source.jsonl', { x: 0, y: 0 })!;
    const b = s().addOperator('map', { x: 200, y: 0 })!;
    s().connect({ from: a, to: b });
    s().selectAll();
    s().duplicate();
    expect(ids(store)).toEqual(['source1', 'map1', 'source2', 'map2']);
    expect(draftEdges(s().draft!).map((e) => [e.from, e.to])).toEqual([
      ['source1', 'map1'],
      ['source2', 'map2'],
    ]);
    expect(draftPositions(s().draft!).map2).toEqual({ x: 240, y: 40 });
    expect(s().selection.operators).toEqual(['source2', 'map2']);
    s().undo();
    expect(ids(store)).toEqual(['source1', 'map1']);
  });

  it('turns a cycle-closing edge into a feedback edge in one step', () => {
    const store = started();
    const s = store.getState;
    const src = s().addOperator('source.jsonl', { x: 0, y: 0 })!;
    const p = s().addOperator('process', { x: 200, y: 0 })!;
    s().connect({ from: src, to: p });
    const loop = s().connect({ from: p, to: p, fromPort: 'again' })!;
    expect(problemsOf(s()).some((x) => x.code === 'cycle')).toBe(true);
    s().makeFeedback(loop);
    expect(problemsOf(s()).some((x) => x.code === 'cycle')).toBe(false);
    expect(draftEdges(s().draft!)[1]).toMatchObject({ feedback: true, partition: 'hash', fromPort: 'again' });
    s().undo();
    expect(problemsOf(s()).some((x) => x.code === 'cycle')).toBe(true);
  });

  it('is dirty after an edit and clean again after undoing it or saving', () => {
    const store = started();
    const s = store.getState;
    expect(isDirty(s())).toBe(false);
    s().addOperator('map', { x: 0, y: 0 });
    expect(isDirty(s())).toBe(true);
    s().undo();
    expect(isDirty(s())).toBe(false);
    s().redo();
    s().markSaved('/tmp/x.job.json', s().textToSave());
    expect(isDirty(s())).toBe(false);
  });

  it('opens a file that is not JSON without losing a byte of it', () => {
    const store = createDesignerStore();
    const text = '{ "format": "pipewright.job/1", oops }\n';
    store.getState().loadText('/tmp/bad.job.json', text);
    expect(store.getState().draft).toBeUndefined();
    expect(problemsOf(store.getState())[0]?.code).toBe('malformed-json');
    expect(store.getState().textToSave()).toBe(text);
    expect(isDirty(store.getState())).toBe(false);
  });

  it('opens a foreign job and keeps its unknown fields through edits', () => {
    const store = createDesignerStore();
    store
      .getState()
      .loadText(
        '/tmp/f.job.json',
        JSON.stringify({ format: 'other/2', name: 'f', operators: [], custom: { a: 1 } }),
      );
    expect(problemsOf(store.getState()).length).toBeGreaterThan(0);
    store.getState().addOperator('map', { x: 0, y: 0 });
    expect(JSON.parse(store.getState().textToSave())).toMatchObject({ format: 'other/2', custom: { a: 1 } });
  });

  it('lays out as one step', () => {
    const store = started();
    const s = store.getState;
    const a = s().addOperator('source.jsonl', { x: 500, y: 500 })!;
    const b = s().addOperator('sink.jsonl', { x: 0, y: 0 })!;
    s().connect({ from: a, to: b });
    s().autoLayout();
    const pos = draftPositions(s().draft!);
    expect(pos[a]!.x).toBeLessThan(pos[b]!.x);
    s().undo();
    expect(draftPositions(s().draft!)[a]).toEqual({ x: 500, y: 500 });
  });

  it('keeps one entry per input whose text is not applied, none of it in the undo history', () => {
    const store = started();
    const s = store.getState;
    const field = {
      key: 'x',
      owner: { kind: 'operator', id: 'p1' },
      label: 'Parallelism',
      path: '$.operators[0].parallelism',
      text: 'f',
      reason: '"f" is not a number',
      kept: '1',
    } as const;
    s().setUnappliedField('in1', field);
    s().setUnappliedField('in1', { ...field, text: 'fo' });
    s().setUnappliedField('in2', { ...field, label: 'Id' });
    expect(s().unappliedFields.map((f) => [f.key, f.text, f.label])).toEqual([
      ['in1', 'fo', 'Parallelism'],
      ['in2', 'f', 'Id'],
    ]);
    s().setUnappliedField('in1', undefined);
    expect(s().unappliedFields.map((f) => f.key)).toEqual(['in2']);
    expect(store.temporal.getState().pastStates).toHaveLength(0);
  });

  it('drops the host’s file warnings and the notice with the document they were about', () => {
    const store = started();
    const s = store.getState;
    s().setFileProblems([
      {
        code: 'input-file-missing',
        severity: 'warning',
        message: 'm',
        path: '$.operators[0].params.path',
        ids: ['s'],
        operator: 's',
        param: 'path',
        file: 'a.jsonl',
      },
    ]);
    s().setNotice('Saved without your change');
    s().loadText(
      '/tmp/other.job.json',
      JSON.stringify({ format: 'pipewright.job/1', name: 'o', operators: [] }),
    );
    expect(s().fileProblems).toEqual([]);
    expect(s().notice).toBeUndefined();
  });
});
