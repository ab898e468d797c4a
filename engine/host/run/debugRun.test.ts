// Debug runs through the host's method table: held before the first step, step, step back,
// breakpoints hit by resume and sent as 'run.step', traces, preview output, checkpoints, stop,
// and the state a debug run leaves behind. The real debugger (engine/debug) on the real engine.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { hostSessionPerTest } from '../../../test/hostSession.js';
import type { HostEvents, ParamsOf } from '../../protocol/protocol.js';

const session = hostSessionPerTest('pipewright-debug-host-');
const { result, failure, eventsOf, until } = session;
let dir = '';
beforeEach(() => {
  dir = session.dir;
});

/** 40 records keyed by k0..k3, a count per key; record 25 is the one a condition picks. */
const job = (settings: Record<string, unknown> = {}) => ({
  format: 'pipewright.job/1',
  name: 'stepper',
  settings: { checkpointIntervalMs: 0, ...settings },
  operators: [
    {
      id: 'gen',
      kind: 'source.generator',
      parallelism: 1,
      params: { code: 'function generate(i) { return { k: "k" + (i % 4), i }; }', count: 40 },
    },
    {
      id: 'count',
      kind: 'process',
      parallelism: 2,
      params: {
        code: 'function process(r, ctx) { const s = ctx.state.value("n"); const n = (s.get() ?? 0) + 1; s.set(n); ctx.emit({ k: r.k, i: r.i, n }); }',
      },
    },
    { id: 'out', kind: 'sink.jsonl', parallelism: 1, params: { path: 'out.jsonl' } },
  ],
  edges: [
    { id: 'e1', from: 'gen', to: 'count', partition: 'hash', key: 'k' },
    { id: 'e2', from: 'count', to: 'out', partition: 'rebalance' },
  ],
});

const start = (extra: Partial<ParamsOf<'run.start'>> = {}, settings: Record<string, unknown> = {}) =>
  result('run.start', {
    text: JSON.stringify(job(settings)),
    path: join(dir, 'stepper.job.json'),
    mode: 'debug',
    previewSinks: false,
    ...extra,
  });

describe('a debug run', () => {
  it('is held before its first step, steps, steps back and stops', async () => {
    const info = await start();
    expect(info).toMatchObject({ status: 'paused', mode: 'debug', step: 0 });
    const runId = info.runId;

    const first = await result('run.step', { runId });
    expect(first).toMatchObject({
      seq: 1,
      operator: 'gen',
      subtask: 0,
      kind: 'produce',
      record: { k: 'k0', i: 0 },
    });
    // The record the source made is counted before the source makes the next.
    const second = await result('run.step', { runId });
    expect(second).toMatchObject({ seq: 2, operator: 'count', kind: 'record', record: { k: 'k0', i: 0 } });
    expect(eventsOf('run.step').map((e) => e.step.seq)).toEqual([1, 2]);

    const back = await result('run.stepBack', { runId });
    expect(back).toEqual(first);
    expect(eventsOf('run.status').at(-1)).toMatchObject({ status: 'paused', step: 1 });

    // The live state at the current step: after step 1 nothing is counted yet.
    const page = (subtask: number) => result('state.page', { runId, operator: 'count', subtask, limit: 10 });
    expect([...(await page(0)).entries, ...(await page(1)).entries]).toEqual([]);
    expect((await result('run.step', { runId }))!.operator).toBe('count');
    const counted = [...(await page(0)).entries, ...(await page(1)).entries];
    expect(counted).toHaveLength(1);
    expect(counted.every((e) => e.state === 'n' && e.value === 1)).toBe(true);
    // Back to step 1: the state goes back with it.
    while ((await result('run.stepBack', { runId }))!.seq > 1) {}
    expect([...(await page(0)).entries, ...(await page(1)).entries]).toEqual([]);

    const stopped = await result('run.stop', { runId });
    expect(stopped).toMatchObject({ status: 'stopped', message: 'stopped at step 1' });
    expect(
      eventsOf('run.metrics')
        .at(-1)!
        .edges.map((e) => e.id),
    ).toEqual(['e1', 'e2']);
    expect(await failure('run.step', { runId })).toBe(
      `cannot step debug run ${runId} of job "stepper": it is stopped`,
    );
  });

  it('resumes to the next breakpoint, sent as a step, and traces a record back to its input', async () => {
    const info = await start({
      breakpoints: [
        { id: 'at-25', type: 'condition', operator: 'count', expression: 'r.i === 25' },
        { id: 'nowhere', type: 'operator', operator: 'ghost' },
      ],
    });
    const runId = info.runId;
    expect(info.message).toMatch(/^breakpoint nowhere left out: .*ghost/);
    const resumed = await result('run.resume', { runId });
    expect(resumed.status).toBe('running');
    const hit = await until('the breakpoint', () =>
      eventsOf('run.step').find((e) => e.step.breakpoint === 'at-25'),
    );
    expect(hit.step).toMatchObject({ operator: 'count', kind: 'record', record: { k: 'k1', i: 25 } });
    await until('paused', () => eventsOf('run.status').at(-1)?.status === 'paused');
    expect(eventsOf('run.status').at(-1)).toMatchObject({ message: 'breakpoint at-25', step: hit.step.seq });

    const trace = await result('run.trace', { runId, step: hit.step.seq, emitted: 0 });
    const input = {
      operator: 'gen',
      subtask: 0,
      position: 25,
      where: 'generator "gen" record 25',
      record: { k: 'k1', i: 25 },
    };
    expect(trace.inputs).toEqual([input]);
    // The record the step took, traced as well: the same input, the path up to this step.
    const received = await result('run.trace', { runId, step: hit.step.seq, emitted: 'received' });
    expect(received).toEqual({ inputs: [input], path: trace.path });
    expect(await failure('run.trace', { runId, step: hit.step.seq, emitted: 'sent' })).toBe(
      'run.trace: params.emitted must be "received" or an index from 0 (a record the step emitted)',
    );

    const problems = await result('run.setBreakpoints', {
      runId,
      breakpoints: [{ id: 'bad', type: 'condition', expression: 'r.i ===' }],
    });
    expect(problems.problems.map((p) => p.id)).toEqual(['bad']);
    await result('run.setBreakpoints', { runId, breakpoints: [] });

    // Without breakpoints, resume runs to the end; the session stays for stepping back.
    await result('run.resume', { runId });
    const done = await until('the end', () => {
      const last = eventsOf('run.status').at(-1);
      return last?.status === 'finished' ? last : undefined;
    });
    expect(done.message).toMatch(/^done: the job ended at step \d+$/);
    const back = await result('run.stepBack', { runId });
    expect(back?.seq).toBe(done.step - 1);
    expect(existsSync(join(dir, 'out.jsonl'))).toBe(true);
  });

  it('runs to the next operator: resume until "nextOperator" stops at the next record step of another operator, sent as a step', async () => {
    const { runId } = await start();
    await result('run.step', { runId });
    const stops: string[] = [];
    for (let i = 0; i < 4; i++) {
      const sent = eventsOf('run.step').length;
      expect((await result('run.resume', { runId, until: 'nextOperator' })).status).toBe('running');
      const { step } = await until('the next operator', () => eventsOf('run.step')[sent]);
      await until('paused', () => eventsOf('run.status').at(-1)?.status === 'paused');
      expect(eventsOf('run.status').at(-1)).toMatchObject({ step: step.seq });
      stops.push(`${step.seq}:${step.operator}:${step.kind}`);
    }
    // gen makes record 0, count counts it, out writes it; then gen makes record 1.
    expect(stops).toEqual(['2:count:record', '3:out:record', '4:gen:produce', '5:count:record']);
    expect(await failure('run.resume', { runId, until: 'elsewhere' })).toBe(
      'run.resume: params.until must be "breakpoint" or "nextOperator"',
    );
  });

  it('shows preview output, takes checkpoints by steps, and leaves its state to read after a stop', async () => {
    const info = await start({ previewSinks: true });
    const runId = info.runId;
    await result('run.resume', { runId });
    await until('the end', () => eventsOf('run.status').at(-1)?.status === 'finished');
    /** Each record the sink shows, by its number among the sink's records (see 'run.output'). */
    const shownBy = (events: HostEvents['run.output'][]) => {
      const shown = new Map<number, unknown>();
      for (const e of events) {
        for (const [index] of shown) if (index > e.total - e.records.length) shown.delete(index);
        e.records.forEach((record, k) => {
          shown.set(e.total - e.records.length + k + 1, record);
        });
      }
      return shown;
    };
    const outputs = () => eventsOf('run.output').filter((o) => o.runId === runId);
    await until('all the output', () => outputs().at(-1)?.total === 40);
    const before = shownBy(outputs());
    expect([...before.keys()].sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, k) => k + 1));
    expect(existsSync(join(dir, 'out.jsonl'))).toBe(false);
    // Stepping back takes records out of the sink; the next event says so with a lower total.
    const sent = outputs().length;
    for (let i = 0; i < 12; i++) await result('run.stepBack', { runId });
    await until('a lower total', () =>
      outputs()
        .slice(sent)
        .some((o) => o.total < 40),
    );
    const at = outputs().findIndex((o, k) => k >= sent && o.total < 40);
    const lowered = outputs()[at]!;
    expect(lowered.records).toEqual([]);
    expect(shownBy(outputs().slice(0, at + 1)).size).toBe(lowered.total);
    // Resumed to the end again, the sink shows exactly what it showed the first time.
    await result('run.resume', { runId });
    await until('all the output again', () => outputs().at(-1)?.total === 40);
    expect(shownBy(outputs())).toEqual(before);
    await result('run.stop', { runId });
    const counts = new Map<unknown, unknown>();
    for (const subtask of [0, 1]) {
      const page = await result('state.page', { runId, operator: 'count', subtask, limit: 10 });
      for (const e of page.entries) counts.set(e.key, e.value);
    }
    expect([...counts].sort()).toEqual([
      ['k0', 10],
      ['k1', 10],
      ['k2', 10],
      ['k3', 10],
    ]);

    // A checkpoint every 20 record steps (a step stands for 1 ms).
    const withCheckpoints = await start({}, { checkpointIntervalMs: 20 });
    await result('run.resume', { runId: withCheckpoints.runId });
    await until('the end', () => eventsOf('run.status').at(-1)?.status === 'finished');
    const checkpoints = eventsOf('run.checkpoint').filter((c) => c.runId === withCheckpoints.runId);
    expect(checkpoints.length).toBeGreaterThan(0);
    expect(checkpoints.every((c) => c.status === 'completed')).toBe(true);
    // The newest: older ones beyond checkpointsRetained are gone.
    const page = await result('state.page', {
      runId: withCheckpoints.runId,
      operator: 'count',
      subtask: 0,
      limit: 10,
      checkpointId: checkpoints.at(-1)!.id,
    });
    expect(page.entries.every((e) => e.state === 'n' && typeof e.value === 'number')).toBe(true);
  });

  it('refuses a step while it runs on to a breakpoint', async () => {
    const params = {
      text: JSON.stringify(job()),
      path: join(dir, 'stepper.job.json'),
      mode: 'debug',
      previewSinks: false,
    };
    const long = job();
    long.operators[0]!.params = {
      code: 'function generate(i) { return { k: "k" + (i % 4), i }; }',
      count: 10_000_000,
    };
    const info = await result('run.start', { ...params, text: JSON.stringify(long), mode: 'debug' });
    const runId = info.runId;
    await result('run.resume', { runId });
    expect(await failure('run.step', { runId })).toBe(
      `cannot step debug run ${runId}: it is running to the next breakpoint; pause it first`,
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    const paused = await result('run.pause', { runId });
    expect(paused.status).toBe('paused');
    expect(paused.step).toBeGreaterThan(0);
    // The step it paused at was sent, as a breakpoint's would be.
    expect(eventsOf('run.step').at(-1)!.step.seq).toBe(paused.step);
    expect((await result('run.step', { runId }))?.seq).toBe(paused.step + 1);
    expect(await failure('run.start', { ...params })).toBe(
      `run.start: run ${runId} of job "stepper" is still paused; stop it before starting another (one run at a time)`,
    );
  });

  it('restarts from a checkpoint held just after it, keeps that checkpoint, and ends as an uninterrupted run', async () => {
    const path = join(dir, 'stepper.job.json');
    const output = () => readFile(join(dir, 'out.jsonl'), 'utf8');
    // 400 records: plenty of steps after any checkpoint.
    const longer = (settings: Record<string, unknown> = {}) => {
      const j = job(settings);
      Object.assign(j.operators[0]!.params, { count: 400 });
      return JSON.stringify(j);
    };
    const whole = await result('run.start', {
      text: longer(),
      path,
      mode: 'run',
      previewSinks: false,
    });
    await until('the whole run', () => eventsOf('run.status', whole.runId).at(-1)?.status === 'finished');
    const expected = await output();

    // A debug run taking a checkpoint every 50 steps and keeping one, stopped a few steps after one.
    const text = longer({ checkpointIntervalMs: 50, checkpointsRetained: 1 });
    const first = await start({ text });
    const completed = () => eventsOf('run.checkpoint', first.runId).filter((c) => c.status === 'completed');
    while (completed().length === 0) {
      expect(await result('run.step', { runId: first.runId })).toBeDefined();
    }
    for (let i = 0; i < 5; i++) await result('run.step', { runId: first.runId });
    await result('run.stop', { runId: first.runId });

    // The newest completed, which may be one the stop took.
    const from = completed().at(-1)!.id;
    const info = await start({ text, restore: 'latest' });
    expect(info).toMatchObject({ status: 'paused', mode: 'debug', step: 0 });
    expect(info.message).toBe(`restoring checkpoint ${from} from ${info.checkpointDir}`);
    const runId = info.runId;
    expect((await result('run.step', { runId }))?.seq).toBe(1);
    // Stepping back stops at the checkpoint: step 0 of this run.
    expect(await result('run.stepBack', { runId })).toBeUndefined();
    expect(eventsOf('run.status', runId).at(-1)).toMatchObject({ status: 'paused', step: 0 });
    await result('run.resume', { runId });
    await until('the end', () => eventsOf('run.status', runId).at(-1)?.status === 'finished');
    const after = eventsOf('run.checkpoint', runId).filter((c) => c.status === 'completed');
    expect(after.length).toBeGreaterThan(1);
    // Only one is retained, but the one this run started from stays, to replay from.
    const listed = await result('run.checkpoints', { path, text });
    expect(listed.map((c) => c.id)).toEqual([after.at(-1)!.id, from]);
    await result('run.stop', { runId });
    // The same records; the sink reads two count subtasks, which a debug run may interleave
    // otherwise than a full-speed one (each key's count n still goes up with its i).
    const lines = (text: string) => text.split('\n').sort();
    expect(lines(await output())).toEqual(lines(expected));
  });
});
