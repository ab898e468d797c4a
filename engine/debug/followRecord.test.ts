// A debug run follows a record: a source makes one record per step, and the record goes through
// the operators after it before the source makes the next, so the second Step of every example
// job is that record arriving at the operator after the source. "Run to next operator"
// (continue('nextOperator')) stops at the first record step of another operator than the
// current step's. And what the examples write in a debug run, against `pipewright run`.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  debugSession,
  exampleInputs,
  exampleJob,
  jobFolder,
  plainRun,
  readLines,
  stepToEnd,
} from '../../test/debugJobs.js';
import type { StepView } from '../protocol/runProtocol.js';

const EXAMPLES = ['word-count', 'owner-has-items', 'bar-state'] as const;

const takesRecord = (view: StepView) => view.kind === 'record' || view.kind === 'produce';

/** A view as continue() or step() shows it, without the breakpoint that may have stopped there. */
function plain(view: StepView | undefined): StepView | undefined {
  if (view === undefined) return undefined;
  const { breakpoint: _, ...rest } = view;
  return rest;
}

describe('in a debug run of each example job', () => {
  for (const name of EXAMPLES) {
    it(`${name}: the second Step is the first record arriving at the operator after the source`, async () => {
      const { job, dir } = await exampleJob(name);
      const source = job.operators.find((op) => op.kind.startsWith('source.'))!;
      const edge = job.edges.find((e) => e.from === source.id)!;
      const session = await debugSession(job, dir);
      const first = await session.step();
      expect(first).toMatchObject({ seq: 1, operator: source.id, kind: 'produce' });
      const second = await session.step();
      expect(second).toMatchObject({
        seq: 2,
        operator: edge.to,
        kind: 'record',
        record: first!.record,
        edge: { id: edge.id, fromSubtask: 0, feedback: false },
      });
      // The source makes its next record only once nothing below it is left to do.
      const views = [first!, second!];
      for (let view = await session.step(); view?.kind !== 'produce'; view = await session.step()) {
        expect(view).toBeDefined();
        views.push(view!);
      }
      const trace = views.filter((v) => v.operator !== source.id && v.kind === 'record');
      expect(trace.length).toBeGreaterThanOrEqual(2);
      for (const view of trace) expect(session.trace(view.seq, 0).inputs[0]!.position).toBe(0);
      await session.close();
    });
  }
});

describe('Run to next operator', () => {
  for (const name of EXAMPLES) {
    it(`${name}: stops at the first record step of another operator than the current step's`, async () => {
      const { job, dir } = await exampleJob(name);
      const reference = await debugSession(job, dir);
      const views = await stepToEnd(reference);
      await reference.close();
      const session = await debugSession(job, await jobFolder(await exampleInputs(name)));
      let stops = 0;
      for (let round = 0; ; round++) {
        const at = session.position;
        const current = at === 0 ? undefined : views[at - 1]!.operator;
        const expected = views.slice(at).find((v) => takesRecord(v) && v.operator !== current);
        const view = await session.continue('nextOperator');
        expect(plain(view)).toEqual(expected);
        if (view === undefined) break;
        expect(round).toBeLessThan(views.length);
        if (view.seq > at + 1) stops++;
        // A plain Step now and then, so that the runs start from every kind of step.
        if (round % 3 === 2) expect(await session.step()).toEqual(views[view.seq]);
      }
      expect(session.ended).toBe(true);
      // It ran over several steps at a time somewhere (an operator taking more than one record
      // in a row, a barrier, an end of input), not only one step as Step does.
      expect(stops).toBeGreaterThan(0);
      await session.close();
    });
  }

  it('stops earlier at a breakpoint hit on the way, and at the end of the job', async () => {
    const { job, dir } = await exampleJob('word-count');
    const reference = await debugSession(job, dir);
    const views = await stepToEnd(reference);
    await reference.close();
    // A count step right after another count step: a run to the next operator from the first
    // passes the second, unless a breakpoint stops it there.
    const at = views.findIndex(
      (v, i) => i > 0 && v.operator === 'count' && views[i - 1]!.operator === 'count',
    );
    expect(at).toBeGreaterThan(0);
    const target = views[at]!;
    const session = await debugSession(job, await jobFolder(await exampleInputs('word-count')), {
      breakpoints: [
        {
          id: 'word',
          type: 'condition',
          operator: 'count',
          expression: `r.word === ${JSON.stringify((target.record as { word: string }).word)} && ctx.subtask === ${target.subtask}`,
        },
      ],
    });
    while (session.position < at) await session.step();
    const stopped = await session.continue('nextOperator');
    expect(stopped?.breakpoint).toBe('word');
    expect(stopped?.seq).toBe(at + 1);
    expect(plain(stopped)).toEqual(target);
    // No other operator takes a record after the last one: the run goes to the end.
    session.setBreakpoints([]);
    const lastRecord = views.findLastIndex(takesRecord);
    while (session.position < lastRecord + 1) await session.step();
    expect(await session.continue('nextOperator')).toBeUndefined();
    expect(session.ended).toBe(true);
    await session.close();
  });
});

describe("a debug run's output against `pipewright run`'s", () => {
  /** Lines by the value of `key`, each key's in the order written. */
  const byKey = (lines: readonly string[], key: string) => {
    const groups = new Map<unknown, string[]>();
    for (const line of lines) {
      const k = (JSON.parse(line) as Record<string, unknown>)[key];
      groups.set(k, [...(groups.get(k) ?? []), line]);
    }
    return groups;
  };

  for (const [name, file, key] of [
    ['word-count', 'word-counts.jsonl', 'word'],
    ['bar-state', 'bar-events-out.jsonl', 'barId'],
  ] as const) {
    it(`${name}: the same records, each ${key}'s in the same order`, async () => {
      const { job, dir } = await exampleJob(name, { checkpointIntervalMs: 0 });
      await plainRun(job, dir);
      const expected = await readLines(join(dir, 'out', file));
      const debugDir = await jobFolder(await exampleInputs(name));
      const session = await debugSession(job, debugDir, { previewSinks: false });
      await stepToEnd(session);
      await session.close();
      const written = await readLines(join(debugDir, 'out', file));
      expect([...written].sort()).toEqual([...expected].sort());
      expect(byKey(written, key)).toEqual(byKey(expected, key));
    });
  }
});
