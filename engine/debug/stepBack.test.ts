// Stepping back in a debug run (real LevelDB in a temp folder): what is shown after a step back
// equals what the step before showed, the run's counters and state sizes are back where they
// were, stepping forward again shows the same steps, and a run finished after going back writes
// what `pipewright run` writes; across checkpoint barriers (also in the middle of a checkpoint),
// round a feedback edge, with the memory backend, with sinks that write files (and publish them at
// checkpoints), with user code that keeps state of its own, and after a step that failed.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  counters,
  debugSession,
  exampleJob,
  fn,
  forward,
  generator,
  jobFolder,
  makeJob,
  plainRun,
  readLines,
  sink,
  stepToEnd,
} from '../../test/debugJobs.js';
import { findCheckpoint } from '../checkpoint/findCheckpoint.js';
import { JobRun } from '../deploy/jobRun.js';
import type { Job } from '../graph/schema.js';
import type { StepView } from '../protocol/runProtocol.js';
import type { DebugSession } from './debugSession.js';

const OWNERS_CODE = `function process(r, ctx) {
  const count = ctx.state.value("count");
  const n = (count.get() ?? 0) + 1;
  count.set(n);
  const items = ctx.state.map("items");
  items.set(r.item, { n });
  if (n % 5 === 0) items.clear();
  ctx.emit({ owner: r.owner, n });
}`;

/** `tag` changes the record it is handed in place: going back must not hand it the changed one. */
function ownersJob(count: number, settings: Record<string, unknown> = {}, code = OWNERS_CODE): Job {
  return makeJob(
    'owners',
    [
      generator('gen', 'function generate(i) { return { owner: "o" + (i % 4), item: "i" + i }; }', count),
      fn('tag', 'map', 'function map(r) { r.tagged = (r.tagged ?? 0) + 1; return r; }'),
      fn('owners', 'process', code, 2),
      sink('out', 'out.jsonl'),
    ],
    [
      { id: 'e0', from: 'gen', to: 'tag', partition: 'forward' },
      { id: 'e1', from: 'tag', to: 'owners', partition: 'hash', key: 'owner' },
      { id: 'e2', from: 'owners', to: 'out', partition: 'rebalance' },
    ],
    settings,
  );
}

/** From step views.length, steps back to the start: each step back shows the step before, as it was. */
async function backToStart(session: DebugSession, views: StepView[], after: unknown[]): Promise<void> {
  for (let at = views.length - 1; at >= 1; at--) {
    const back = await session.stepBack();
    expect(back, `step back to step ${at}`).toEqual(views[at - 1]);
    expect(session.position).toBe(at);
    expect(counters(session.metrics()), `counters at step ${at}`).toEqual(after[at - 1]);
  }
  expect(await session.stepBack()).toBeUndefined();
  expect(session.position).toBe(0);
  expect(await session.stepBack()).toBeUndefined();
  // All of it in place, from the run saved in memory: never opened again and replayed from the start.
  expect(session.replaysFromStart).toBe(0);
}

describe('step back', () => {
  it('shows what the step before showed, all the way back, across checkpoint barriers and cleared maps', async () => {
    const dir = await jobFolder();
    const session = await debugSession(ownersJob(60, { checkpointIntervalMs: 1000 }), dir, {
      checkpointEverySteps: 25,
    });
    const { views, after } = await forward(session, 10_000);
    expect(await session.step()).toBeUndefined();
    expect(views.filter((v) => v.kind === 'barrier').length).toBeGreaterThan(5);
    expect(views.some((v) => v.state.some((a) => a.op === 'clear'))).toBe(true);
    await backToStart(session, views, after);
    // And forward again: the same steps, the same end.
    const again = await forward(session, 10_000);
    expect(again.views).toEqual(views);
    expect(again.after).toEqual(after);
    await session.close();
  });

  it('checkpoints as often as every record step still let records move, and each completes', async () => {
    // A barrier takes more steps than one to go round; counted as steps, each checkpoint's
    // barriers would make the next one due at once, and the run would only ever checkpoint.
    const session = await debugSession(ownersJob(30, { checkpointIntervalMs: 1000 }), await jobFolder(), {
      checkpointEverySteps: 1,
    });
    const views = await stepToEnd(session);
    const records = views.filter((v) => v.kind === 'record' || v.kind === 'produce').length;
    const checkpoints = new Set(views.flatMap((v) => (v.kind === 'barrier' ? [v.checkpointId] : [])));
    expect(records).toBeGreaterThan(30);
    expect(checkpoints.size).toBeGreaterThan(1);
    expect(views.length).toBeLessThan(100 * records);
    await session.close();
  });

  it('then step forward: the same view again, at every step', async () => {
    const job = ownersJob(40, { checkpointIntervalMs: 1000 });
    const first = await debugSession(job, await jobFolder(), { checkpointEverySteps: 17 });
    const views = await stepToEnd(first);
    await first.close();
    const session = await debugSession(job, await jobFolder(), { checkpointEverySteps: 17 });
    for (let k = 1; k <= views.length; k++) {
      expect(await session.step()).toEqual(views[k - 1]);
      if (k > 1) {
        expect(await session.stepBack()).toEqual(views[k - 2]);
        expect(await session.step()).toEqual(views[k - 1]);
      }
    }
    expect(await session.step()).toBeUndefined();
    await session.close();
  });

  it('across a checkpoint: the checkpoint is taken again, under the same id, and completes', async () => {
    const dir = await jobFolder();
    // Every checkpoint kept, so that the first is still there to read at the end.
    const job = ownersJob(30, { checkpointIntervalMs: 1000, checkpointsRetained: 100 });
    const session = await debugSession(job, dir, { checkpointEverySteps: 20 });
    const { views } = await forward(session, 10_000);
    const barriers = views.filter((v) => v.kind === 'barrier' && v.checkpointId === 1);
    const firstBarrier = barriers[0]!.seq;
    const lastBarrier = barriers.at(-1)!.seq;
    // Back to the middle of the checkpoint (some barriers arrived, some not) ...
    while (session.position > Math.floor((firstBarrier + lastBarrier) / 2)) await session.stepBack();
    // ... on to its end ...
    for (let seq = session.position + 1; seq <= lastBarrier + 3; seq++)
      expect(await session.step()).toEqual(views[seq - 1]);
    // ... and back to before it started.
    for (let at = session.position - 1; at >= firstBarrier - 2; at--) {
      expect(await session.stepBack()).toEqual(views[at - 1]);
    }
    const rest = await stepToEnd(session);
    expect(rest).toEqual(views.slice(firstBarrier - 2));
    await session.close();
    const metadata = JSON.parse(await readFile(join(dir, 'debug-checkpoints', 'chk-1.json'), 'utf8')) as {
      id: number;
    };
    expect(metadata.id).toBe(1);
  });

  it('round a feedback edge (owner-has-items: async code, a loop, parallelism 4, its checkpoints)', async () => {
    const { job, dir } = await exampleJob('owner-has-items');
    const session = await debugSession(job, dir);
    const { views, after } = await forward(session, 1500);
    expect(views.filter((v) => v.edge?.feedback === true).length).toBeGreaterThan(10);
    expect(views.some((v) => v.kind === 'barrier')).toBe(true);
    await backToStart(session, views, after);
    await session.close();
  });

  it('to the middle of a run, then to its end: the output is that of a debug run that never went back', async () => {
    // How a debug run's output compares with `pipewright run`'s: stepping.test.ts.
    const { job, dir } = await exampleJob('owner-has-items', { checkpointIntervalMs: 0 });
    const straight = await debugSession(job, dir);
    await stepToEnd(straight);
    const expected = straight.previewOutput()[0]!.records.map((r) => JSON.stringify(r));
    await straight.close();
    expect(expected.length).toBeGreaterThan(368);
    const session = await debugSession(job, dir);
    await forward(session, 900);
    for (let i = 0; i < 300; i++) await session.stepBack();
    expect(session.position).toBe(600);
    await stepToEnd(session);
    expect(session.previewOutput()[0]!.records.map((r) => JSON.stringify(r))).toEqual(expected);
    await session.close();
  });

  it('on a long run (saved points thinned out, the state journal forgetting): in place near the end, then to the end again', async () => {
    const job = ownersJob(3000);
    const reference = await debugSession(job, await jobFolder());
    const views = await stepToEnd(reference);
    const output = reference.previewOutput();
    await reference.close();
    expect(views.length).toBeGreaterThan(9000);
    const session = await debugSession(job, await jobFolder());
    expect(await session.continue()).toBeUndefined();
    for (let at = views.length - 1; at >= views.length - 300; at--)
      expect(await session.stepBack()).toEqual(views[at - 1]);
    expect(session.replaysFromStart).toBe(0);
    expect(await stepToEnd(session)).toEqual(views.slice(views.length - 300));
    expect(session.previewOutput()).toEqual(output);
    await session.close();
  });

  it('on the memory backend', async () => {
    const session = await debugSession(
      ownersJob(40, { stateBackend: 'memory', checkpointIntervalMs: 1000 }),
      await jobFolder(),
      {
        checkpointEverySteps: 30,
      },
    );
    const { views, after } = await forward(session, 10_000);
    await backToStart(session, views, after);
    await session.close();
  });

  it('with sinks that write files: their parts are cut back, and the file is what the run writes without going back', async () => {
    const job = ownersJob(1000, { checkpointIntervalMs: 1000 });
    const referenceDir = await jobFolder();
    const reference = await debugSession(job, referenceDir, {
      previewSinks: false,
      checkpointEverySteps: 20,
    });
    await stepToEnd(reference);
    await reference.close();
    const expected = await readLines(join(referenceDir, 'out.jsonl'));
    expect(expected.length).toBe(1000);
    const plainDir = await jobFolder();
    await plainRun(job, plainDir);
    expect([...expected].sort()).toEqual([...(await readLines(join(plainDir, 'out.jsonl')))].sort());

    const dir = await jobFolder();
    const session = await debugSession(job, dir, { previewSinks: false, checkpointEverySteps: 20 });
    const { views, after } = await forward(session, 10_000);
    // Checkpoints published parts to the file while the run went.
    expect(
      new Set(views.flatMap((v) => (v.checkpointId === undefined ? [] : [v.checkpointId]))).size,
    ).toBeGreaterThan(2);
    const lastBarrier = views.findLast((v) => v.kind === 'barrier')!.seq;
    for (let at = views.length - 1; at >= lastBarrier - 30; at--) {
      expect(await session.stepBack()).toEqual(views[at - 1]);
      expect(counters(session.metrics())).toEqual(after[at - 1]);
    }
    expect(await stepToEnd(session)).toEqual(views.slice(lastBarrier - 30));
    expect(session.replaysFromStart).toBe(0);
    expect(await readLines(join(dir, 'out.jsonl'))).toEqual(expected);
    // After the end, when the sinks have published everything (and removed their parts).
    expect(await session.stepBack()).toEqual(views.at(-2));
    expect(await stepToEnd(session)).toEqual(views.slice(-1));
    await session.close();
    expect(await readLines(join(dir, 'out.jsonl'))).toEqual(expected);
  });

  it('with user code that counts in a top-level variable: the replay differs in place, so it starts over', async () => {
    const code = 'let seen = 0;\nfunction process(r, ctx) { seen++; ctx.emit({ owner: r.owner, seen }); }';
    const session = await debugSession(ownersJob(200, {}, code), await jobFolder());
    const { views } = await forward(session, 10_000);
    // Step back over steps of the operator that counts: a replay in place would count on from
    // where the counter is now, and show other records.
    const counting = views.filter((v) => v.operator === 'owners' && v.kind === 'record');
    const from = counting[150]!.seq;
    for (let at = views.length - 1; at >= from - 40; at--)
      expect(await session.stepBack()).toEqual(views[at - 1]);
    expect(session.replaysFromStart).toBeGreaterThan(10);
    expect(await stepToEnd(session)).toEqual(views.slice(from - 40));
    await session.close();
  });

  it('after a step that failed: back to the step before, and the failure comes again', async () => {
    const code = 'function process(r, ctx) { if (r.item === "i9") throw new Error("no i9"); ctx.emit(r); }';
    const session = await debugSession(ownersJob(20, {}, code), await jobFolder());
    const views: StepView[] = [];
    let failure: Error | undefined;
    for (;;) {
      try {
        const view = await session.step();
        if (view === undefined) break;
        views.push(view);
      } catch (error) {
        failure = error as Error;
        break;
      }
    }
    expect(failure?.message).toMatch(
      /operator "owners" \(subtask \d of 2\) failed on the record from generator "gen" record 9: .*no i9/,
    );
    await expect(session.step()).rejects.toThrow(/no i9.*step back/);
    expect(await session.stepBack()).toEqual(views.at(-2));
    expect(await session.step()).toEqual(views.at(-1));
    await expect(session.step()).rejects.toThrow(/no i9/);
    await session.close();
  });
});

describe('a debug run', () => {
  it('leaves checkpoints, after stepping back across some, that restore to the output of `pipewright run`', async () => {
    // Much state loaded first, then few keys changed: checkpoints after the first persist only
    // changes, so the chain of changes files a checkpoint names grows from one to the next.
    const job = makeJob(
      'chain',
      [
        generator(
          'gen',
          'function generate(i) { return i < 400 ? { k: "k" + i, v: "x".repeat(2000) } : { k: "k" + (i % 7), v: i }; }',
          1500,
        ),
        fn(
          'keep',
          'process',
          'function process(r, ctx) { const s = ctx.state.value("v"); s.set(r.v); ctx.emit({ k: r.k, n: String(r.v).length }); }',
          2,
        ),
        sink('out', 'out.jsonl'),
      ],
      [
        { id: 'e1', from: 'gen', to: 'keep', partition: 'hash', key: 'k' },
        { id: 'e2', from: 'keep', to: 'out', partition: 'rebalance' },
      ],
      { checkpointIntervalMs: 1000, checkpointsRetained: 2 },
    );
    const plainDir = await jobFolder();
    await plainRun(job, plainDir);
    const expected = (await readLines(join(plainDir, 'out.jsonl'))).sort();
    const dir = await jobFolder();
    const session = await debugSession(job, dir, { previewSinks: false, checkpointEverySteps: 60 });
    const { views } = await forward(session, 3000);
    // Back to before the start of the last checkpoint the run completed (and past the one before), then on past it.
    const started = new Map<number, number>();
    for (const v of views)
      if (v.checkpointId !== undefined && !started.has(v.checkpointId)) started.set(v.checkpointId, v.seq);
    const [last, previous] = [...started.keys()].sort((a, b) => b - a).slice(1);
    expect(previous).toBeDefined();
    const back = started.get(previous!)! - 10;
    while (session.position > back) await session.stepBack();
    // On to where the first pass stopped: past the start of the checkpoint after `last`, so
    // `last` has completed again.
    const { views: again } = await forward(session, views.length - back);
    expect(again).toEqual(views.slice(back));
    await session.close();
    // As `pipewright run --restore latest` does: the newest complete checkpoint, its files checked.
    const found = await findCheckpoint(join(dir, 'debug-checkpoints'), 'latest', () => {});
    expect(found.error).toBeUndefined();
    // One the run took again after going back (those it went back over were undone, files and all).
    expect(found.checkpoint!.id).toBeGreaterThanOrEqual(last!);
    const restored = await JobRun.open(job, {
      jobDir: dir,
      stateDir: join(dir, 'restored-state'),
      checkpointDir: join(dir, 'debug-checkpoints'),
      restore: found.checkpoint!,
    });
    await restored.run();
    expect((await readLines(join(dir, 'out.jsonl'))).sort()).toEqual(expected);
  });

  it('keeps no checkpoint of another run from numbering its own', async () => {
    const dir = await jobFolder();
    const job = ownersJob(30, { checkpointIntervalMs: 1000, checkpointsRetained: 100 });
    const first = await debugSession(job, dir, { checkpointEverySteps: 20 });
    await stepToEnd(first);
    await first.close();
    expect(existsSync(join(dir, 'debug-checkpoints', 'chk-1.json'))).toBe(true);
    // A second run in the same folders goes on numbering, and its replays keep its own numbers.
    const second = await debugSession(job, dir, { checkpointEverySteps: 20, previewSinks: false });
    const views = await stepToEnd(second);
    const ids = [...new Set(views.flatMap((v) => (v.checkpointId === undefined ? [] : [v.checkpointId])))];
    expect(ids[0]).toBeGreaterThan(1);
    for (let i = 0; i < 30; i++) await second.stepBack();
    const again = await stepToEnd(second);
    expect(again).toEqual(views.slice(views.length - 30));
    await second.close();
  });
});
