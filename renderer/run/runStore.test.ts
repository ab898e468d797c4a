import { describe, expect, it } from 'vitest';
import { checkpointEvent as checkpoint, runInfo as info, stepView as step } from './runFixtures';
import { breakpointsOf, createRunStore, markedStep, OUTPUT_LIMIT } from './runStore';

describe('run store', () => {
  it('keeps the shown steps in order and shows the newest', () => {
    const store = createRunStore();
    store.getState().begin('debug');
    store.getState().applyInfo(info('paused'));
    for (const seq of [1, 2, 3]) store.getState().applyStep(step(seq));
    const s = store.getState();
    expect(s.history.map((h) => h.seq)).toEqual([1, 2, 3]);
    expect(s.shown?.seq).toBe(3);
    expect(s.step?.seq).toBe(3);
  });

  it('shows after a step back exactly the step the engine says is current, and drops what came after', () => {
    const store = createRunStore();
    for (const seq of [1, 2, 3, 4]) store.getState().applyStep(step(seq));
    const second = store.getState().history[1];
    store.getState().steppedBack(step(3));
    store.getState().steppedBack(second);
    expect(store.getState().shown).toBe(second);
    expect(store.getState().history.map((h) => h.seq)).toEqual([1, 2]);
    store.getState().applyStep(step(3, { subtask: 0 }));
    expect(store.getState().history.map((h) => [h.seq, h.subtask])).toEqual([
      [1, 1],
      [2, 2],
      [3, 0],
    ]);
    store.getState().steppedBack(undefined);
    expect(store.getState().history).toEqual([]);
    expect(store.getState().shown).toBeUndefined();
  });

  it('shows after a step back the view recorded when that step was taken', () => {
    const store = createRunStore();
    for (const seq of [1, 2, 3]) store.getState().applyStep(step(seq));
    const recorded = store.getState().history[1];
    store.getState().steppedBack(step(2));
    expect(store.getState().shown).toBe(recorded);
    // A step the history no longer holds (it keeps the last HISTORY_LIMIT) shows as the engine gives it.
    const other = createRunStore();
    const seventh = step(7);
    other.getState().steppedBack(seventh);
    expect(other.getState().shown).toBe(seventh);
    expect(other.getState().history).toEqual([seventh]);
  });

  it('marks the shown step on the canvas only while the run is live', () => {
    const store = createRunStore();
    store.getState().applyInfo(info('paused'));
    store.getState().applyStep(step(1));
    expect(markedStep(store.getState())?.seq).toBe(1);
    store.getState().applyInfo(info('finished'));
    expect(markedStep(store.getState())).toBeUndefined();
    expect(store.getState().shown?.seq).toBe(1);
  });

  it('does not count the same step twice when both the reply and an event bring it', () => {
    const store = createRunStore();
    store.getState().applyStep(step(1));
    store.getState().applyStep(step(1));
    expect(store.getState().history).toHaveLength(1);
  });

  it('shows a step of the history on request, then the current one again', () => {
    const store = createRunStore();
    for (const seq of [1, 2, 3]) store.getState().applyStep(step(seq));
    store.getState().view(1);
    expect(store.getState().shown?.seq).toBe(1);
    store.getState().view(undefined);
    expect(store.getState().shown?.seq).toBe(3);
  });

  it('tints operators and edges only while the run is live', () => {
    const store = createRunStore();
    store.getState().begin('run');
    store.getState().applyInfo(info('running', 'run'));
    const load = { busyTimeMsPerSecond: 30, backPressuredTimeMsPerSecond: 900, idleTimeMsPerSecond: 70 };
    const metrics = {
      runId: 'r1',
      elapsedMs: 1000,
      operators: [
        {
          id: 'a',
          recordsIn: 0,
          recordsOut: 10,
          subtasks: [
            { subtask: 0, recordsIn: 0, recordsOut: 10, queued: 0, keyGroups: [0, 127] as const, ...load },
          ],
        },
      ],
      edges: [{ id: 'e1', from: 'a', backPressuredTimeMsPerSecond: 900 }],
    };
    store.getState().applyMetrics(metrics);
    expect(store.getState().edgeTint.get('e1')?.level).toBe(9);
    expect(store.getState().operatorTint.get('a')?.level).toBe(0);
    expect(store.getState().seriesVersion).toBe(1);
    store.getState().applyInfo(info('finished', 'run'));
    expect(store.getState().edgeTint.size).toBe(0);
    expect(store.getState().operatorTint.size).toBe(0);
    // The last metrics stay for the State panel after the end.
    expect(store.getState().metrics).toBe(metrics);
  });

  it('keeps checkpoints by id, a later event for an id replacing the earlier one', () => {
    const store = createRunStore();
    store.getState().applyCheckpoint(checkpoint(2));
    store.getState().applyCheckpoint(checkpoint(1, 'failed'));
    store.getState().applyCheckpoint(checkpoint(1));
    expect(store.getState().checkpoints.map((c) => [c.id, c.status])).toEqual([
      [1, 'completed'],
      [2, 'completed'],
    ]);
  });

  it('keeps the newest preview records and counts them all, per sink', () => {
    const store = createRunStore();
    store.getState().applyOutput(
      'out',
      Array.from({ length: OUTPUT_LIMIT }, (_, k) => k),
      OUTPUT_LIMIT,
    );
    store.getState().applyOutput('out', ['last'], OUTPUT_LIMIT + 1);
    const { output, outputCount } = store.getState();
    expect(outputCount).toBe(OUTPUT_LIMIT + 1);
    expect(output).toHaveLength(OUTPUT_LIMIT);
    expect(output[output.length - 1]).toEqual({ operator: 'out', index: OUTPUT_LIMIT + 1, record: 'last' });
    // Ten the host did not send came before 'after'.
    store.getState().applyOutput('out', ['after'], OUTPUT_LIMIT + 12);
    expect(store.getState().outputCount).toBe(OUTPUT_LIMIT + 12);
    expect(store.getState().output.at(-1)).toEqual({
      operator: 'out',
      index: OUTPUT_LIMIT + 12,
      record: 'after',
    });
    store.getState().applyOutput('side', ['s1'], 1);
    expect(store.getState().outputCount).toBe(OUTPUT_LIMIT + 13);
  });

  it('drops what a sink showed beyond its new total after a step back, and no other sink’s', () => {
    const store = createRunStore();
    store.getState().applyOutput('a', ['a1', 'a2', 'a3'], 3);
    store.getState().applyOutput('b', ['b1', 'b2'], 2);
    // Stepped back: sink a has received one record, b still two.
    store.getState().applyOutput('a', [], 1);
    const shown = () => store.getState().output.map((o) => `${o.operator}#${o.index}=${o.record}`);
    expect(shown()).toEqual(['a#1=a1', 'b#1=b1', 'b#2=b2']);
    expect(store.getState().outputCount).toBe(3);
    // Going on again, a's second record is the one the run makes now.
    store.getState().applyOutput('a', ['a2 again'], 2);
    expect(shown()).toEqual(['a#1=a1', 'b#1=b1', 'b#2=b2', 'a#2=a2 again']);
    expect(store.getState().outputCount).toBe(4);
  });

  it('keeps breakpoints per document, following a document saved under a path', () => {
    const store = createRunStore();
    const bp = { id: 'bp1', type: 'condition', expression: 'true' } as const;
    store.getState().setBreakpoints([bp]);
    store.getState().renameDocument('/a.job.json');
    expect(breakpointsOf(store.getState())).toEqual([bp]);
    store.getState().switchDocument('/b.job.json');
    expect(breakpointsOf(store.getState())).toEqual([]);
    store.getState().switchDocument('/a.job.json');
    expect(breakpointsOf(store.getState())).toEqual([bp]);
    // Save As: the old file keeps its breakpoints, the new one starts with the same.
    store.getState().renameDocument('/c.job.json');
    expect(store.getState().breakpointsByDocument['/a.job.json']).toEqual([bp]);
    expect(breakpointsOf(store.getState())).toEqual([bp]);
  });

  it('starts a new run from a clean view but keeps the preview switch and the breakpoints', () => {
    const store = createRunStore();
    store.getState().setPreviewSinks(true);
    store.getState().setBreakpoints([{ id: 'bp1', type: 'operator', operator: 'a' }]);
    store.getState().applyStep(step(1));
    store.getState().applyCheckpoint(checkpoint(1));
    store.getState().begin('debug');
    const s = store.getState();
    expect(s).toMatchObject({ status: 'starting', mode: 'debug', previewSinks: true, step: undefined });
    expect(s.checkpoints).toEqual([]);
    expect(breakpointsOf(s)).toHaveLength(1);
  });

  it('marks an ended run’s word outdated when the job is edited, not a live run’s, and a new run starts afresh', () => {
    const store = createRunStore();
    store.getState().jobChanged();
    expect(store.getState().outdated).toBe(false);
    store.getState().begin('run');
    store.getState().applyInfo(info('running', 'run'));
    store.getState().jobChanged();
    expect(store.getState().outdated).toBe(false);
    store.getState().applyInfo({ ...info('failed', 'run'), message: 'operator "p1": boom' });
    store.getState().jobChanged();
    expect(store.getState()).toMatchObject({ status: 'failed', outdated: true });
    store.getState().begin('run');
    expect(store.getState().outdated).toBe(false);
  });
});
