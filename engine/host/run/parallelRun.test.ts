// The designer's Run of a job spread over threads (settings.threads 2, parallelism 2): the
// parallel executor as the CLI's run has it, with the live panels as on one thread (metrics per
// subtask, preview, the live state of a paused run), pause, resume and stop; a call that never
// returns holds one worker only; Debug of the same job keeps stepping deterministically.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { hostSessionPerTest } from '../../../test/hostSession.js';
import { STOP_BOUND_MS } from '../../../test/processJob.js';
import type { ParamsOf, RunInfo, RunMetricsEvent } from '../../protocol/protocol.js';

const session = hostSessionPerTest('pipewright-parallel-run-');
const { result, eventsOf, until, ended } = session;
let dir = '';
beforeEach(() => {
  dir = session.dir;
});

const COUNT_CODE =
  'function process(r, ctx) { const s = ctx.state.value("n"); const n = (s.get() ?? 0) + 1; s.set(n); ctx.emit({ k: r.k, i: r.i, n }); }';

/** k = i % 50 counted per key at parallelism 2, on `threads` threads; `count` records, else endless. */
function countJob(threads: number, options: { count?: number; checkpointIntervalMs?: number } = {}) {
  return {
    format: 'pipewright.job/1',
    name: 'spread',
    settings: { checkpointIntervalMs: options.checkpointIntervalMs ?? 0, threads },
    operators: [
      {
        id: 'gen',
        kind: 'source.generator',
        parallelism: 1,
        params: {
          code: 'function generate(i) { return { k: "k" + (i % 50), i }; }',
          ratePerSec: 20_000,
          ...(options.count === undefined ? {} : { count: options.count }),
        },
      },
      { id: 'count', kind: 'process', parallelism: 2, params: { code: COUNT_CODE } },
      { id: 'out', kind: 'sink.jsonl', parallelism: 1, params: { path: 'out.jsonl' } },
    ],
    edges: [
      { id: 'e1', from: 'gen', to: 'count', partition: 'hash', key: 'k' },
      { id: 'e2', from: 'count', to: 'out', partition: 'rebalance' },
    ],
  };
}

const start = (job: object, extra: Partial<ParamsOf<'run.start'>> = {}) =>
  result('run.start', {
    text: JSON.stringify(job),
    path: join(dir, 'spread.job.json'),
    mode: 'run',
    previewSinks: false,
    ...extra,
  });

type Counted = { k: string; i: number; n: number };

/** Each key's records in order: on any number of threads they keep it. */
function byKey(records: readonly Counted[]): Map<string, number[]> {
  const keys = new Map<string, number[]>();
  for (const r of records) keys.set(r.k, [...(keys.get(r.k) ?? []), r.i]);
  return keys;
}

const readOutput = async () =>
  (await readFile(join(dir, 'out.jsonl'), 'utf8'))
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Counted);

const operator = (m: RunMetricsEvent, id: string) => m.operators.find((o) => o.id === id)!;

/** Every entry's value of one operator's subtasks, read a page at a time. */
async function liveCounts(runId: string): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const subtask of [0, 1]) {
    let after: string | undefined;
    do {
      const page = await result('state.page', {
        runId,
        operator: 'count',
        subtask,
        limit: 20,
        ...(after === undefined ? {} : { after }),
      });
      for (const e of page.entries) counts.set(e.key as string, e.value as number);
      after = page.next;
    } while (after !== undefined);
  }
  return counts;
}

describe('a run spread over two threads', () => {
  it('writes what one thread writes, and its metrics show every subtask', async () => {
    const one = await start(countJob(1, { count: 6000 }));
    expect((await ended(one.runId)).status).toBe('finished');
    const onOneThread = await readOutput();

    const two = await start(countJob(2, { count: 6000 }));
    const last = await ended(two.runId);
    expect(last.status).toBe('finished');
    expect(last.message).toMatch(/^done: 6000 records from the sources in \d+\.\d\d s$/);
    const output = await readOutput();
    expect(output).toHaveLength(6000);
    expect(output.map((r) => JSON.stringify(r)).sort()).toEqual(
      onOneThread.map((r) => JSON.stringify(r)).sort(),
    );
    expect(byKey(output)).toEqual(byKey(onOneThread));

    const metrics = eventsOf('run.metrics', two.runId);
    // Every subtask has its row from the first sample on, on whichever thread it runs.
    for (const sample of metrics) {
      expect(operator(sample, 'count').subtasks.map((s) => s.subtask)).toEqual([0, 1]);
      expect(operator(sample, 'gen').subtasks.map((s) => s.subtask)).toEqual([0]);
    }
    const final = metrics.at(-1)!;
    const count = operator(final, 'count');
    expect(count.recordsIn).toBe(6000);
    expect(count.subtasks.map((s) => s.keyGroups)).toEqual([
      [0, 63],
      [64, 127],
    ]);
    expect(count.subtasks.every((s) => s.recordsIn > 0 && (s.stateKeys ?? 0) > 0)).toBe(true);
    expect(count.subtasks.reduce((n, s) => n + (s.stateKeys ?? 0), 0)).toBe(50);
    expect(operator(final, 'out').recordsIn).toBe(6000);
    expect(final.edges.map((e) => e.id)).toEqual(['e1', 'e2']);
    // An edge is held back as much as the operator it leaves: its most held-back subtask.
    expect(final.edges.map((e) => e.from)).toEqual(['gen', 'count']);
    for (const edge of final.edges) {
      const held = operator(final, edge.from).subtasks.map((s) => s.backPressuredTimeMsPerSecond ?? 0);
      expect(edge.backPressuredTimeMsPerSecond).toBe(Math.max(...held));
    }
  });

  it('pauses, shows the live state of every subtask, resumes, stops at a checkpoint and restarts from it exactly', async () => {
    const job = countJob(2, { count: 30_000, checkpointIntervalMs: 50 });
    const info = await start(job);
    const runId = info.runId;
    await until('a checkpoint', () => eventsOf('run.checkpoint', runId).length >= 1);
    expect((await result('run.pause', { runId })).status).toBe('paused');
    const pausedAt = Date.now();
    const atPause = eventsOf('run.metrics', runId).length;
    await until('two samples while paused', () => eventsOf('run.metrics', runId).length >= atPause + 2);
    const whilePaused = eventsOf('run.metrics', runId).slice(atPause);
    const read = whilePaused.map((m) => operator(m, 'gen').recordsOut);
    expect(new Set(read).size).toBe(1);

    // Each subtask's store is open on its worker: read there, it matches what was counted.
    const live = await liveCounts(runId);
    expect(live.size).toBe(50);
    const counted = operator(whilePaused.at(-1)!, 'count').recordsIn;
    expect([...live.values()].reduce((a, b) => a + b, 0)).toBe(counted);

    const resumedAt = Date.now();
    expect((await result('run.resume', { runId })).status).toBe('running');
    await until('the source to go on', () => {
      const latest = eventsOf('run.metrics', runId).at(-1);
      return latest !== undefined && operator(latest, 'gen').recordsOut > read[0]!;
    });
    const stopped = await result('run.stop', { runId });
    expect(stopped.status).toBe('stopped');
    const final = eventsOf('run.checkpoint', runId).at(-1)!;
    expect(final.status).toBe('completed');
    expect(stopped.message).toContain(`stopped at checkpoint ${final.id}`);
    // As on one thread, no checkpoint starts while the run is paused (one could not go on).
    const triggered = eventsOf('run.checkpoint', runId).map((c) => Date.parse(c.triggeredAt));
    expect(triggered.filter((t) => t > pausedAt && t < resumedAt)).toEqual([]);
    expect(eventsOf('run.status', runId).map((s) => s.status)).toEqual([
      'starting',
      'running',
      'paused',
      'running',
      'stopped',
    ]);

    const restarted = await start(job, { restore: final.id });
    expect((await ended(restarted.runId)).status).toBe('finished');
    const counts = await liveCounts(restarted.runId);
    expect([...counts.values()]).toEqual(Array.from({ length: 50 }, () => 30_000 / 50));
    const output = await readOutput();
    expect(output).toHaveLength(30_000);
    expect(new Set(output.map((r) => r.i)).size).toBe(30_000);
  });

  it('shows what the preview sinks receive, in order, and writes nothing', async () => {
    const info = await start(countJob(2, { count: 6000, checkpointIntervalMs: 50 }), { previewSinks: true });
    expect((await ended(info.runId)).status).toBe('finished');
    const output = eventsOf('run.output', info.runId);
    expect(output.length).toBeGreaterThan(0);
    expect(output.every((o) => o.operator === 'out')).toBe(true);
    expect(output.reduce((n, o) => n + o.records.length + (o.dropped ?? 0), 0)).toBe(6000);
    expect(output.at(-1)!.total).toBe(6000);
    // Each key's count goes up from batch to batch: the records came in order.
    const seen = new Map<string, number>();
    for (const record of output.flatMap((o) => o.records) as Counted[]) {
      expect(record.n).toBeGreaterThan(seen.get(record.k) ?? 0);
      seen.set(record.k, record.n);
    }
    await expect(readFile(join(dir, 'out.jsonl'), 'utf8')).rejects.toThrow(/ENOENT/);
    expect(eventsOf('run.checkpoint', info.runId)).toEqual([]);
  });

  it('goes on and keeps sending metrics while one worker is stuck in a call, says where, and Stop ends it', async () => {
    const lines = Array.from({ length: 4000 }, (_, i) => JSON.stringify({ id: i + 1, k: `k${i % 10}` }));
    await writeFile(join(dir, 'in.jsonl'), `${lines.join('\n')}\n`);
    const stuckJob = {
      format: 'pipewright.job/1',
      name: 'stuck',
      settings: { checkpointIntervalMs: 0, threads: 2 },
      operators: [
        { id: 'src', kind: 'source.jsonl', params: { path: 'in.jsonl' } },
        {
          id: 'p',
          kind: 'process',
          parallelism: 2,
          params: {
            code: 'function process(r, ctx) {\n  if (r.id === 500) { while (true) {} }\n  ctx.emit(r);\n}',
          },
        },
        { id: 'out', kind: 'sink.jsonl', params: { path: 'out.jsonl' } },
      ],
      edges: [
        { id: 'e1', from: 'src', to: 'p', partition: 'hash', key: 'k' },
        { id: 'e2', from: 'p', to: 'out', partition: 'rebalance' },
      ],
    };
    const info: RunInfo = await start(stuckJob);
    const where =
      /operator "p" \(subtask [01] of 2\) has run its code on the record from in\.jsonl:500 for \d+\.\d s without returning/;
    await until('a status saying where the code is stuck', () =>
      eventsOf('run.status', info.runId).some(
        (s) => s.status === 'running' && new RegExp(`^${where.source}; Stop ends it$`).test(s.message ?? ''),
      ),
    );
    // The run thread is free: the panels keep getting their samples.
    const before = eventsOf('run.metrics', info.runId).length;
    await until('two more metrics samples', () => eventsOf('run.metrics', info.runId).length >= before + 2);

    const askedAt = performance.now();
    const stopped = await result('run.stop', { runId: info.runId });
    expect(performance.now() - askedAt).toBeLessThan(STOP_BOUND_MS);
    expect(stopped.status).toBe('failed');
    expect(stopped.message).toMatch(new RegExp(`^stopped by force: ${where.source}$`));

    // The next run starts and finishes.
    const next = await start(countJob(2, { count: 100 }));
    expect((await ended(next.runId)).status).toBe('finished');
  });
});

describe('a debug run of a job set to two threads', () => {
  it('steps deterministically: the same steps every time', async () => {
    const stepsOf = async () => {
      const info = await start(countJob(2, { count: 200 }), { mode: 'debug' });
      expect(info.status).toBe('paused');
      const steps: string[] = [];
      for (let i = 0; i < 60; i++) {
        const step = await result('run.step', { runId: info.runId });
        steps.push(JSON.stringify([step!.operator, step!.subtask, step!.kind, step!.record]));
      }
      await result('run.stop', { runId: info.runId });
      return steps;
    };
    const first = await stepsOf();
    expect(JSON.parse(first[0]!)).toEqual(['gen', 0, 'produce', { k: 'k0', i: 0 }]);
    // As on one thread: the record the source made is counted before the source makes the next.
    expect(JSON.parse(first[1]!)).toEqual(['count', expect.any(Number), 'record', { k: 'k0', i: 0 }]);
    expect(await stepsOf()).toEqual(first);
  });
});
