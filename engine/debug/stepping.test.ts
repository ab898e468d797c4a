// Stepping a debug run (real LevelDB in a temp folder, SES user code): one item per step, what a
// step shows (record, key, edge and upstream subtask, emits by port with their edges, state
// reads and writes with before -> after), a source's records and its end, checkpoint barriers as
// steps, and a debug run to the end giving the same output as `pipewright run`.
import { existsSync } from 'node:fs';
import { rename } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  debugSession,
  exampleInputs,
  exampleJob,
  fn,
  generator,
  jobFolder,
  makeJob,
  plainRun,
  readLines,
  sink,
  stepToEnd,
} from '../../test/debugJobs.js';
import { keyGroupOf, subtaskOfKeyGroup } from '../graph/keyGroups.js';
import type { Job } from '../graph/schema.js';
import type { StepView } from '../protocol/runProtocol.js';

const OWNERS_CODE = `function process(r, ctx) {
  const count = ctx.state.value("count");
  const n = (count.get() ?? 0) + 1;
  count.set(n);
  ctx.state.map("items").set(r.item, { n });
  ctx.emit({ owner: r.owner, n });
  if (n > 1) ctx.emit({ owner: r.owner, again: r.item }, "repeat");
}`;

/** Items of four owners over a keyed process at parallelism 2, with a side output. */
function ownersJob(count: number, settings: Record<string, unknown> = {}): Job {
  return makeJob(
    'owners',
    [
      generator('gen', 'function generate(i) { return { owner: "o" + (i % 4), item: "i" + i }; }', count),
      fn('owners', 'process', OWNERS_CODE, 2),
      sink('out', 'out.jsonl'),
      sink('repeats', 'repeats.jsonl'),
    ],
    [
      { id: 'e1', from: 'gen', to: 'owners', partition: 'hash', key: 'owner' },
      { id: 'e2', from: 'owners', to: 'out', partition: 'rebalance' },
      { id: 'e3', from: 'owners', fromPort: 'repeat', to: 'repeats', partition: 'rebalance' },
    ],
    settings,
  );
}

const subtaskOf = (key: string, parallelism: number) =>
  subtaskOfKeyGroup(keyGroupOf(key, 128), parallelism, 128);

describe('a step', () => {
  it('shows the record, its key, the edge and upstream subtask, the emits by port and the state read and written', async () => {
    const dir = await jobFolder();
    const session = await debugSession(ownersJob(8), dir);
    const views = await stepToEnd(session);
    const second = views.find(
      (v) => v.kind === 'record' && v.operator === 'owners' && (v.record as { item: string }).item === 'i5',
    );
    expect(second).toEqual({
      seq: second!.seq,
      operator: 'owners',
      subtask: subtaskOf('o1', 2),
      kind: 'record',
      record: { owner: 'o1', item: 'i5' },
      key: 'o1',
      edge: { id: 'e1', fromSubtask: 0, feedback: false },
      emitted: [
        { port: 'out', record: { owner: 'o1', n: 2 }, edges: ['e2'] },
        { port: 'repeat', record: { owner: 'o1', again: 'i5' }, edges: ['e3'] },
      ],
      state: [
        { state: 'count', type: 'value', op: 'read', key: 'o1', before: 1 },
        { state: 'count', type: 'value', op: 'write', key: 'o1', before: 1, after: 2 },
        { state: 'items', type: 'map', op: 'write', key: 'o1', element: 'i5', after: { n: 2 } },
      ],
    });
    const first = views.find(
      (v) => v.kind === 'record' && v.operator === 'owners' && (v.record as { item: string }).item === 'i1',
    );
    expect(first!.state).toEqual([
      { state: 'count', type: 'value', op: 'read', key: 'o1' },
      { state: 'count', type: 'value', op: 'write', key: 'o1', after: 1 },
      { state: 'items', type: 'map', op: 'write', key: 'o1', element: 'i1', after: { n: 1 } },
    ]);
    expect(first!.emitted).toEqual([{ port: 'out', record: { owner: 'o1', n: 1 }, edges: ['e2'] }]);
    // A record on the side output reaches its own sink, through the edge the view named.
    const atRepeats = views.find((v) => v.operator === 'repeats' && v.kind === 'record');
    expect(atRepeats).toMatchObject({ record: { again: 'i4' }, edge: { id: 'e3', feedback: false } });
    await session.close();
  });

  it('at a source is one record made, then the source ending; steps are numbered 1, 2, 3, ...', async () => {
    const dir = await jobFolder();
    const session = await debugSession(ownersJob(3), dir);
    const views = await stepToEnd(session);
    expect(views.map((v) => v.seq)).toEqual(views.map((_, i) => i + 1));
    // Each record goes on to the operators after the source before the source makes the next.
    const produced = views.filter((v) => v.kind === 'produce');
    expect(produced.map((v) => v.seq)).toEqual([1, 4, 7]);
    expect(views[1]).toMatchObject({ seq: 2, operator: 'owners', kind: 'record', record: { item: 'i0' } });
    expect(produced).toEqual(
      [0, 1, 2].map((i) => ({
        seq: 3 * i + 1,
        operator: 'gen',
        subtask: 0,
        kind: 'produce',
        record: { owner: `o${i}`, item: `i${i}` },
        emitted: [{ port: 'out', record: { owner: `o${i}`, item: `i${i}` }, edges: ['e1'] }],
        state: [],
      })),
    );
    const ends = views.filter((v) => v.kind === 'end');
    expect(ends[0]).toEqual({
      seq: ends[0]!.seq,
      operator: 'gen',
      subtask: 0,
      kind: 'end',
      emitted: [],
      state: [],
    });
    // Every channel's end-of-input is a step: gen -> owners#0/#1, owners#0/#1 -> out and -> repeats.
    expect(ends.length).toBe(1 + 2 + 2 + 2);
    expect(await session.step()).toBeUndefined();
    expect(session.ended).toBe(true);
    await session.close();
  });

  it("delivers exactly one item: a record step adds one to one subtask's records in, any other step none", async () => {
    const dir = await jobFolder();
    const session = await debugSession(ownersJob(300), dir);
    const recordsIn = () =>
      session
        .metrics()
        .operators.filter((o) => o.kind !== 'source.generator')
        .flatMap((o) => o.subtasks.map((s) => [`${o.id}#${s.subtask}`, s.recordsIn] as const));
    let before = new Map(recordsIn());
    let records = 0;
    for (let view = await session.step(); view !== undefined; view = await session.step()) {
      const after = new Map(recordsIn());
      const changed = [...after].filter(([label, n]) => n !== before.get(label));
      if (view.kind === 'record') {
        records++;
        expect(changed).toEqual([
          [`${view.operator}#${view.subtask}`, before.get(`${view.operator}#${view.subtask}`)! + 1],
        ]);
      } else {
        expect(changed).toEqual([]);
      }
      before = after;
    }
    // 300 records into owners, then 300 to out and 296 (all but each owner's first) to repeats.
    expect(records).toBe(300 + 300 + 296);
    await session.close();
  });

  it('a checkpoint barrier is a step, at the source (where it starts) and at each input it arrives on', async () => {
    const dir = await jobFolder();
    const session = await debugSession(
      ownersJob(40, { checkpointIntervalMs: 1000, checkpointsRetained: 100 }),
      dir,
      { checkpointEverySteps: 30 },
    );
    const views = await stepToEnd(session);
    const barriers = views.filter((v) => v.kind === 'barrier' && v.checkpointId === 1);
    expect(barriers[0]).toEqual({
      seq: barriers[0]!.seq,
      operator: 'gen',
      subtask: 0,
      kind: 'barrier',
      checkpointId: 1,
      emitted: [],
      state: [],
    });
    const at = (operator: string) =>
      barriers
        .filter((v) => v.operator === operator)
        .map((v) => `${v.subtask}<-${v.edge!.id}#${v.edge!.fromSubtask}`)
        .sort();
    expect(at('owners')).toEqual(['0<-e1#0', '1<-e1#0']);
    expect(at('out')).toEqual(['0<-e2#0', '0<-e2#1']);
    expect(at('repeats')).toEqual(['0<-e3#0', '0<-e3#1']);
    // Taken at a step count, not by the clock: the first is triggered once 30 steps are done.
    expect(barriers[0]!.seq).toBeGreaterThan(30);
    expect(views.filter((v) => v.kind === 'barrier').length).toBeGreaterThan(barriers.length);
    await session.close();
    expect(existsSync(join(dir, 'debug-checkpoints', 'chk-1.json'))).toBe(true);
  });
});

describe('a debug run to the end', () => {
  it('writes what `pipewright run` writes, but for what depends on how records of different channels meet (a loop, parallelism 4, async code)', async () => {
    const { job, dir } = await exampleJob('owner-has-items', { checkpointIntervalMs: 0 });
    await plainRun(job, dir);
    const plain = await readLines(join(dir, 'out', 'ownership.jsonl'));
    expect(plain.length).toBeGreaterThan(368);
    await rename(join(dir, 'out', 'ownership.jsonl'), join(dir, 'plain.jsonl'));

    const session = await debugSession(job, dir, { previewSinks: false });
    const views = await stepToEnd(session);
    await session.close();
    expect(views.some((v) => v.edge?.feedback === true)).toBe(true);
    const expected = await readLines(join(dir, 'out', 'ownership.jsonl'));
    // A "waiting" event says a move came before the item it moves, still going round the loop
    // (the feedback channel) while the move came from the source. At full speed a whole slice
    // of moves goes before their transfers; a debug run follows each record round the loop
    // before the source reads the next, so no move waits. Every other record is the same.
    const waiting = (line: string) => (JSON.parse(line) as { event: string }).event === 'waiting';
    expect(plain.filter(waiting).length).toBeGreaterThan(0);
    expect(expected.filter(waiting)).toEqual([]);
    expect([...expected].sort()).toEqual(plain.filter((line) => !waiting(line)).sort());

    // With preview sinks nothing is written, and the sink received the same records in the same order.
    const previewDir = await jobFolder(await exampleInputs('owner-has-items'));
    const preview = await debugSession(job, previewDir);
    const previewViews = await stepToEnd(preview);
    expect(previewViews).toEqual(views);
    const [out] = preview.previewOutput();
    expect(out!.operator).toBe('out');
    expect(out!.records.map((r) => JSON.stringify(r))).toEqual(expected);
    expect(existsSync(join(previewDir, 'out'))).toBe(false);
    await preview.close();
  });

  it('with checkpoints on, writes what `pipewright run` writes', async () => {
    const { job, dir } = await exampleJob('word-count');
    await plainRun(job, dir);
    const expected = await readLines(join(dir, 'out', 'word-counts.jsonl'));
    const debugDir = await jobFolder(await exampleInputs('word-count'));
    const session = await debugSession(job, debugDir, { previewSinks: false, checkpointEverySteps: 50 });
    const views = await stepToEnd(session);
    await session.close();
    expect(views.filter((v: StepView) => v.kind === 'barrier').length).toBeGreaterThan(10);
    // Barrier alignment holds inputs back, so where checkpoints fall (by the clock in a normal
    // run) may reorder the sink's inputs: the same lines, compared as a multiset.
    const written = await readLines(join(debugDir, 'out', 'word-counts.jsonl'));
    expect([...written].sort()).toEqual([...expected].sort());
  });
});
