// Record traces: an output record names the input record it descends from (source operator,
// subtask, position, record) and the path it took (operator, subtask, step, state keys touched),
// also round a feedback loop and after stepping back.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { debugSession, exampleJob, fn, jobFolder, makeJob, sink, stepToEnd } from '../../test/debugJobs.js';
import type { StepView } from '../protocol/runProtocol.js';
import { RecordTrace, type StepLineage, TRACE_STEPS } from './recordTrace.js';

const LINES = [
  { k: 'a', v: 1 },
  { k: 'b', v: 2 },
  { k: 'a', v: 3 },
  { k: 'c', v: 4 },
  { k: 'a', v: 5 },
];
const TEXT = LINES.map((line) => `${JSON.stringify(line)}\n`).join('');
const offsetOf = (index: number) =>
  LINES.slice(0, index).reduce((n, line) => n + JSON.stringify(line).length + 1, 0);

const countJob = () =>
  makeJob(
    'count',
    [
      { id: 'events', kind: 'source.jsonl', params: { path: 'events.jsonl' } },
      fn('double', 'map', 'function map(r) { return { k: r.k, v: r.v * 2 }; }', 2),
      fn(
        'sum',
        'process',
        'function process(r, ctx) { const s = ctx.state.value("sum"); const sum = (s.get() ?? 0) + r.v; s.set(sum); ctx.emit({ k: r.k, sum }); }',
        2,
      ),
      sink('out', 'out.jsonl'),
    ],
    [
      { id: 'e1', from: 'events', to: 'double', partition: 'rebalance' },
      { id: 'e2', from: 'double', to: 'sum', partition: 'hash', key: 'k' },
      { id: 'e3', from: 'sum', to: 'out', partition: 'rebalance' },
    ],
  );

const find = (views: StepView[], operator: string, test: (record: Record<string, unknown>) => boolean) =>
  views.find(
    (v) =>
      v.operator === operator &&
      v.kind !== 'barrier' &&
      v.kind !== 'end' &&
      test(v.record as Record<string, unknown>),
  )!;

describe('record trace', () => {
  it('of an output record: its input line and every hop, with the state keys each touched and who wrote what it read', async () => {
    const session = await debugSession(countJob(), await jobFolder({ 'events.jsonl': TEXT }));
    const views = await stepToEnd(session);
    // The third line, {k: "a", v: 3}: doubled to 6, summed with the first a (2) to 8.
    const read = find(views, 'events', (r) => r.v === 3);
    const doubled = find(views, 'double', (r) => r.v === 3);
    const summed = find(views, 'sum', (r) => r.v === 6);
    const written = find(views, 'out', (r) => r.k === 'a' && r.sum === 8);
    expect(summed.emitted).toEqual([{ port: 'out', record: { k: 'a', sum: 8 }, edges: ['e3'] }]);
    // Named by its line in the file, as a person looks for it (the position is its byte offset).
    const input = {
      operator: 'events',
      subtask: 0,
      position: offsetOf(2),
      where: 'events.jsonl line 3',
      record: { k: 'a', v: 3 },
    };
    // The 2 it added 6 to was written by the first line's record, {k: "a", v: 1}.
    const firstSum = find(views, 'sum', (r) => r.v === 2);
    const stateFrom = [
      {
        state: 'sum',
        key: 'a',
        step: firstSum.seq,
        operator: 'sum',
        subtask: firstSum.subtask,
        input: {
          operator: 'events',
          subtask: 0,
          position: 0,
          where: 'events.jsonl line 1',
          record: { k: 'a', v: 1 },
        },
      },
    ];
    const path = [
      { operator: 'events', subtask: 0, step: read.seq, stateKeys: [] },
      { operator: 'double', subtask: doubled.subtask, step: doubled.seq, stateKeys: [] },
      { operator: 'sum', subtask: summed.subtask, step: summed.seq, stateKeys: ['a'], stateFrom },
      { operator: 'out', subtask: 0, step: written.seq, stateKeys: [] },
    ];
    expect(session.trace(written.seq, 0)).toEqual({ inputs: [input], path });
    // The same record as `sum` emitted it, and the input as the source made it.
    expect(session.trace(summed.seq, 0)).toEqual({ inputs: [input], path: path.slice(0, 3) });
    expect(session.trace(read.seq, 0)).toEqual({ inputs: [input], path: path.slice(0, 1) });
    expect(() => session.trace(summed.seq, 1)).toThrow(/emitted 1 record\(s\); there is no output 1/);
    // The record a step took, at any operator: the path up to the step that took it.
    expect(session.trace(doubled.seq, 'received')).toEqual({ inputs: [input], path: path.slice(0, 2) });
    expect(session.trace(summed.seq, 'received')).toEqual({ inputs: [input], path: path.slice(0, 3) });
    expect(session.trace(written.seq, 'received')).toEqual({ inputs: [input], path });
    expect(() => session.trace(read.seq, 'received')).toThrow(
      `step ${read.seq} (operator "events") took no record to trace; it emitted 1`,
    );
    expect(() => session.trace(views.length + 5, 0)).toThrow(/no step/);
    await session.close();
  });

  it('after stepping back, of records the replay made again', async () => {
    const session = await debugSession(countJob(), await jobFolder({ 'events.jsonl': TEXT }));
    const views = await stepToEnd(session);
    const written = find(views, 'out', (r) => r.sum === 18);
    const before = session.trace(written.seq, 0);
    expect(before.inputs).toEqual([
      {
        operator: 'events',
        subtask: 0,
        position: offsetOf(4),
        where: 'events.jsonl line 5',
        record: { k: 'a', v: 5 },
      },
    ]);
    while (session.position > written.seq - 3) await session.stepBack();
    while (session.position < written.seq) await session.step();
    expect(session.trace(written.seq, 0)).toEqual(before);
    await session.close();
  });

  it('round a feedback edge: the move that sent the item round the loop, and both hops through the operator', async () => {
    const { job, dir } = await exampleJob('owner-has-items');
    const events = await readFile(join(dir, 'events.jsonl'), 'utf8');
    const session = await debugSession(job, dir);
    const views = await stepToEnd(session);
    // An "owned" record with `from` comes of a transfer that went round the feedback edge.
    const written = views.find(
      (v) =>
        v.operator === 'out' && v.kind === 'record' && (v.record as { from?: string }).from !== undefined,
    )!;
    const owned = written.record as { owner: string; item: string; from: string; seq: number };
    const trace = session.trace(written.seq, 0);
    const lines = events.split('\n');
    const line = lines.findIndex((l) => l.length > 0 && (JSON.parse(l) as { seq: number }).seq === owned.seq);
    const position = lines.slice(0, line).reduce((n, l) => n + Buffer.byteLength(l) + 1, 0);
    expect(trace.inputs).toEqual([
      {
        operator: 'events',
        subtask: 0,
        position,
        where: `events.jsonl line ${line + 1}`,
        record: JSON.parse(lines[line]!),
      },
    ]);
    expect(trace.path.map((hop) => hop.operator)).toEqual(['events', 'owners', 'owners', 'out']);
    const [, move, transfer] = trace.path;
    expect(move!.stateKeys).toEqual([owned.from]);
    expect(transfer!.stateKeys).toEqual([owned.owner]);
    expect(views[transfer!.step - 1]!.edge).toMatchObject({ id: 'transfer', feedback: true });
    expect(views[move!.step - 1]!.emitted.map((e) => e.port)).toContain('transfer');
    // The move found the item in the old owner's map: the step that put it there is named, with
    // the event it came of (the item added to that owner, or moved to it).
    const put = move!.stateFrom?.find((s) => s.state === 'items' && s.element === owned.item);
    expect(put).toMatchObject({ key: owned.from, operator: 'owners' });
    expect(put!.step).toBeLessThan(move!.step);
    const cause = put!.input!.record as { type: string; item: string; owner: string; to?: string };
    expect(cause.item).toBe(owned.item);
    expect(cause.type === 'add' ? cause.owner : cause.to).toBe(owned.from);
    await session.close();
  });
});

describe('the writers of state, as traces keep them', () => {
  const input = (position: number) => ({ operator: 'src', subtask: 0, position, record: { position } });
  /** Step `seq` of operator "op": reads cell "c" (as state "s" of key "k") and writes `writes`. */
  const step = (seq: number, writes: string[], reads = true): StepLineage => ({
    seq,
    operator: 'op',
    subtask: 0,
    parent: undefined,
    input: input(seq),
    stateKeys: ['k'],
    reads: reads ? [{ state: 's', key: 'k', cells: ['c'] }] : [],
    writes,
    emitted: 1,
    sink: false,
    received: false,
  });
  const writerOf = (trace: RecordTrace, seq: number) => trace.trace(seq, 0).path[0]!.stateFrom?.[0]?.step;

  it('name the last earlier writer, forget steps stepped back over, and learn the replayed ones', () => {
    const trace = new RecordTrace();
    for (let seq = 1; seq <= 10; seq++) trace.add(step(seq, seq % 3 === 0 ? ['c'] : []));
    expect(writerOf(trace, 10)).toBe(9);
    expect(writerOf(trace, 9)).toBe(6);
    expect(writerOf(trace, 2)).toBeUndefined();
    expect(trace.trace(7, 0).path[0]!.stateFrom).toEqual([
      { state: 's', key: 'k', step: 6, operator: 'op', subtask: 0, input: input(6) },
    ]);
    // Back to step 7: the write at 9 is gone; replayed differently, step 8 writes now.
    trace.truncateAfter(7);
    trace.add(step(8, ['c']));
    trace.add(step(9, []));
    expect(writerOf(trace, 9)).toBe(8);
  });

  it('forget writers older than the steps kept', () => {
    const trace = new RecordTrace();
    const kept = Math.floor(TRACE_STEPS / 2);
    trace.add(step(1, ['c']));
    for (let seq = 2; seq <= TRACE_STEPS * 1.3; seq++) trace.add(step(seq, seq === kept ? ['c'] : [], false));
    const last = Math.floor(TRACE_STEPS * 1.3) + 1;
    trace.add(step(last, []));
    // Step 1 fell out of the window, and its write with it; the later write is still known.
    expect(trace.get(1)).toBeUndefined();
    expect(writerOf(trace, last)).toBe(kept);
    trace.add(step(last + 1, ['c']));
    trace.add(step(last + 2, []));
    expect(writerOf(trace, last + 2)).toBe(last + 1);
  });
});
