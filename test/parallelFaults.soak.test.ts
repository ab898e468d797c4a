// A fast source and a slow operator on another thread (`--threads 2`, the real CLI) keep every
// subtask's queued input within its channels' capacity in every metrics sample: the bound the
// credit between threads promises, seen from outside over a run long enough for several
// samples (13 s of work by design, so the soak tier's). npm test checks the same bound in this
// process on every run (engine/deploy/jobRun.test.ts, "backpressure").
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHANNEL_CAPACITY, THREAD_CHANNEL_CAPACITY } from '../engine/deploy/channelWiring.js';
import { planJob } from '../engine/graph/plan.js';
import { placeSubtasks, threadsFor } from '../engine/graph/threadPlacement.js';
import { validateJob } from '../engine/graph/validation/validateJob.js';
import type { JobMetrics } from '../engine/metrics/jobMetrics.js';
import { SLICE_RECORDS } from '../engine/runtime/deterministicExecutor.js';
import { describeResult, outputLines, runToEnd } from './checkpointHelpers.js';
import { type JobDocument, makeTempDir, readJsonl, removeTempDirs, writeJob } from './cliHarness.js';
import { sqrtIterationsFor } from './machineSpeed.js';

afterAll(removeTempDirs);

// ----------------------------------------------------------------------- bounded memory

describe('a fast source and a slow operator on another thread', () => {
  const RECORDS = 40_000;
  /**
   * Some arithmetic per record, so the operator is far slower than the generator: about 250 µs a
   * record on this machine unloaded, so the first half of the records keeps its two subtasks
   * busy for 2.5 s, several metrics samples, however fast the machine.
   */
  const SLOW = `function process(r, ctx) {
  let x = 0;
  for (let j = 0; j < ${sqrtIterationsFor(0.25)}; j++) x += Math.sqrt(j + r.i);
  ctx.emit({ i: r.i, big: x > 1000 });
}`;
  const job: JobDocument = {
    format: 'pipewright.job/1',
    name: 'pressure',
    settings: { checkpointIntervalMs: 0 },
    operators: [
      {
        id: 'gen',
        kind: 'source.generator',
        parallelism: 1,
        params: { code: "function generate(i) {\n  return { i, pad: 'x'.repeat(200) };\n}", count: RECORDS },
      },
      // At parallelism 2: a job at parallelism 1 runs on one thread whatever --threads says.
      { id: 'slow', kind: 'process', parallelism: 2, params: { code: SLOW } },
      { id: 'out', kind: 'sink.jsonl', parallelism: 1, params: { path: 'out.jsonl' } },
    ],
    edges: [
      { id: 'gen-slow', from: 'gen', to: 'slow', partition: 'rebalance' },
      { id: 'slow-out', from: 'slow', to: 'out', partition: 'rebalance' },
    ],
  };

  beforeAll(() => {
    // The premise: on 2 threads a subtask of the slow operator is not on the generator's thread.
    const { job: valid, problems } = validateJob(job);
    expect(problems).toEqual([]);
    const plan = planJob(valid!);
    const placement = placeSubtasks(plan, threadsFor(plan, 2));
    const generator = placement.byOperator.get('gen')![0];
    expect(placement.byOperator.get('slow')!.some((t) => t !== generator)).toBe(true);
  });

  it("keeps every subtask's queued input within its channels' capacity, in every metrics sample", async () => {
    const dir = await makeTempDir('pipewright-pressure-');
    const jobPath = path.join(dir, 'job.json');
    await writeJob(jobPath, job);
    const metricsPath = path.join(dir, 'metrics.jsonl');
    const result = await runToEnd(
      ['run', jobPath, '--quiet', '--threads', '2', '--metrics', metricsPath],
      dir,
      120_000,
    );
    expect(result.code, describeResult(result)).toBe(0);
    expect(await outputLines(path.join(dir, 'out.jsonl'))).toHaveLength(RECORDS);

    type Sample = JobMetrics & { type: string; final: boolean };
    // Samples from before the workers had opened the job have no subtasks yet.
    const samples = (await readJsonl<Sample>(metricsPath)).filter(
      (l) =>
        l.type === 'metrics' && !l.final && l.operators.every((op) => op.subtasks.length === op.parallelism),
    );
    const of = (sample: Sample, id: string) => sample.operators.find((op) => op.id === id)!;
    // One input channel each (every operator here has one producer subtask), at most the
    // capacity of a channel between threads, the larger of the two kinds, and a source's slice
    // (it makes a slice of records before it looks at its channel again).
    const bound = Math.max(CHANNEL_CAPACITY, THREAD_CHANNEL_CAPACITY) + SLICE_RECORDS;
    const table = samples
      .map(
        (s) =>
          `  ${Math.round(s.elapsedMs)} ms: gen out ${of(s, 'gen').recordsOut}, slow in ${of(s, 'slow').recordsIn}, queued ${s.operators.map((op) => `${op.id} ${op.subtasks.map((t) => t.queued).join('/')}`).join(', ')}`,
      )
      .join('\n');
    console.log(`queues while the slow operator works:\n${table}`);
    // The run lasted several samples, during which the generator was held back: it had not
    // produced everything while the slow operator was still far behind.
    const midRun = samples.filter((s) => of(s, 'slow').recordsIn < RECORDS / 2);
    expect(midRun.length, table).toBeGreaterThanOrEqual(2);
    expect(
      midRun.some((s) => of(s, 'gen').recordsOut < RECORDS && of(s, 'slow').subtasks[0]!.queued > 0),
      `the generator was never held back\n${table}`,
    ).toBe(true);
    for (const sample of samples) {
      for (const op of sample.operators) {
        for (const subtask of op.subtasks) {
          expect(subtask.queued, `${op.id} subtask ${subtask.subtask}\n${table}`).toBeLessThanOrEqual(bound);
        }
      }
    }
  }, 150_000);
});
