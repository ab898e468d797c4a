// What the designer drives a JobRun with besides open/run/stop: pause and resume at a slice
// boundary, a stop from pause, preview sinks that write nothing, and where subtasks' time goes;
// on both executors (the designer's Run uses the parallel one).
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXECUTORS, type ExecutorRun, openJob } from '../../test/executors.js';
import type { Job } from '../graph/schema.js';
import { validateJob } from '../graph/validation/validateJob.js';

let root: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'pipewright-control-'));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

function countingJob(count: number, settings: Record<string, unknown> = {}): Job {
  const { job, problems } = validateJob({
    format: 'pipewright.job/1',
    name: 'control',
    settings: { checkpointIntervalMs: 0, ...settings },
    operators: [
      {
        id: 'gen',
        kind: 'source.generator',
        params: { code: 'function generate(i) { return { k: i % 7, i }; }', count },
      },
      {
        id: 'count',
        kind: 'process',
        parallelism: 2,
        params: {
          code: 'function process(r, ctx) { const s = ctx.state.value("n"); s.set((s.get() ?? 0) + 1); ctx.emit(r); }',
        },
      },
      { id: 'out', kind: 'sink.jsonl', params: { path: 'out.jsonl' } },
    ],
    edges: [
      { id: 'e1', from: 'gen', to: 'count', partition: 'hash', key: 'k' },
      { id: 'e2', from: 'count', to: 'out', partition: 'rebalance' },
    ],
  });
  expect(problems).toEqual([]);
  return job!;
}

const sourceCount = (run: ExecutorRun) =>
  run.metrics()?.operators.find((o) => o.id === 'gen')?.recordsOut ?? 0;
/** Longer than the parallel run's threads take between two reports of their figures (200 ms). */
const REPORTS_MS = 300;
const waitFor = async (condition: () => boolean) => {
  for (let i = 0; i < 2000 && !condition(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(condition()).toBe(true);
};

describe.each(EXECUTORS)('run control (%s)', (executor) => {
  it('pauses at a slice boundary, holds still while paused, and runs to the end after resume', async () => {
    const dir = await mkdtemp(join(root, 'job-'));
    const run = await openJob(executor, countingJob(500_000), { jobDir: dir, stateDir: join(dir, 'state') });
    const done = run.run();
    await waitFor(() => sourceCount(run) > 0);
    // Once the pause answers, the slice under way has ended and every thread's figures are in:
    // from then on nothing moves, however late a thread would otherwise have reported.
    await run.pause();
    const held = sourceCount(run);
    await new Promise((r) => setTimeout(r, REPORTS_MS));
    expect(sourceCount(run)).toBe(held);
    expect(held).toBeLessThan(500_000);
    run.resume();
    const { metrics, stopped } = await done;
    expect(stopped).toBe(false);
    expect(metrics.operators.find((o) => o.id === 'out')!.recordsIn).toBe(500_000);
  });

  it('stops cleanly from pause, taking its final checkpoint', async () => {
    const dir = await mkdtemp(join(root, 'job-'));
    const run = await openJob(executor, countingJob(5_000_000, { checkpointIntervalMs: 60_000 }), {
      jobDir: dir,
      stateDir: join(dir, 'state'),
      checkpointDir: join(dir, 'checkpoints'),
    });
    const done = run.run();
    await waitFor(() => sourceCount(run) > 0);
    await run.pause();
    run.stop();
    const summary = await done;
    expect(summary.stopped).toBe(true);
    expect(summary.checkpoints).toEqual([1]);
    expect(existsSync(join(dir, 'checkpoints', 'chk-1.json'))).toBe(true);
  });

  it('hands a preview sink every record and writes no output', async () => {
    const dir = await mkdtemp(join(root, 'job-'));
    const seen: unknown[] = [];
    const run = await openJob(executor, countingJob(1000), {
      jobDir: dir,
      stateDir: join(dir, 'state'),
      previewSinks: (operator, subtask, record) => seen.push([operator, subtask, record]),
    });
    await run.run();
    expect(seen).toHaveLength(1000);
    expect(seen).toContainEqual(['out', 0, { k: 3, i: 10 }]);
    expect(existsSync(join(dir, 'out.jsonl'))).toBe(false);
  });

  it('reports where each subtask spent its time: busy, backpressured and idle, a second in all', async () => {
    const dir = await mkdtemp(join(root, 'job-'));
    const run = await openJob(executor, countingJob(200_000), { jobDir: dir, stateDir: join(dir, 'state') });
    const { metrics } = await run.run();
    for (const op of metrics.operators) {
      for (const s of op.subtasks) {
        const figures = [s.busyTimeMsPerSecond, s.backPressuredTimeMsPerSecond, s.idleTimeMsPerSecond];
        expect(
          figures.every((f) => f !== undefined && f >= 0 && f <= 1000),
          `${op.id}#${s.subtask}`,
        ).toBe(true);
        expect(
          figures.reduce((a, b) => a! + b!, 0),
          `${op.id}#${s.subtask}`,
        ).toBe(1000);
      }
    }
  });
});
