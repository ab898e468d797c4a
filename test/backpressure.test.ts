// Backpressure through the CLI's --metrics (issue 33, item 1): per subtask the share of each second
// spent busy, backpressured and idle, measured by the engine as Flink's busyTimeMsPerSecond,
// backPressuredTimeMsPerSecond and idleTimeMsPerSecond. The job of the issue, a generator asked
// for 5,000 records a second, a map that burns a few ms per record, and a JSONL sink: the map is
// busy nearly all the time, the generator held back most of it (the edge into the map), and the
// map itself is not held back (the edge after it). Without the slow work nothing is held back and
// the generator keeps its rate. On one thread (the deterministic executor) and on two (the slow
// operator at parallelism 2, so that a subtask of it is on the other thread).
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { JobMetrics, SubtaskMetrics } from '../engine/metrics/jobMetrics.js';
import { killHard, startCli, waitUntil } from './checkpointHelpers.js';
import { type JobDocument, makeTempDir, readJsonl, removeTempDirs, writeJob } from './cliHarness.js';
import { sqrtIterationsFor } from './machineSpeed.js';

afterAll(removeTempDirs);

const RATE = 5000;
/** Samples of a run in its stride (see steadySamples). */
const SAMPLES = 3;

/** About 2 ms a record on this machine unloaded (a loaded one only makes it slower): 500 a second at most. */
const SLOW = `function map(r) {
  let x = 0;
  for (let j = 0; j < ${sqrtIterationsFor(2)}; j++) x += Math.sqrt(j + r.i);
  return { i: r.i, big: x > 1000 };
}`;
const QUICK = 'function map(r) {\n  return { i: r.i, big: r.i > 1000 };\n}';

function pressureJob(code: string, parallelism: number): JobDocument {
  return {
    format: 'pipewright.job/1',
    name: 'pressure',
    settings: { checkpointIntervalMs: 0 },
    operators: [
      {
        id: 'gen',
        kind: 'source.generator',
        parallelism: 1,
        params: { code: 'function generate(i) {\n  return { i };\n}', ratePerSec: RATE },
      },
      { id: 'slow', kind: 'map', parallelism, params: { code } },
      { id: 'out', kind: 'sink.jsonl', parallelism: 1, params: { path: 'out.jsonl' } },
    ],
    edges: [
      { id: 'into-slow', from: 'gen', to: 'slow', partition: 'rebalance' },
      { id: 'after-slow', from: 'slow', to: 'out', partition: 'rebalance' },
    ],
  };
}

type Sample = JobMetrics & { type: string; final: boolean };
type Measured = Required<
  Pick<SubtaskMetrics, 'busyTimeMsPerSecond' | 'backPressuredTimeMsPerSecond' | 'idleTimeMsPerSecond'>
>;

const measuredAll = (s: Sample) =>
  s.operators.every(
    (op) =>
      op.subtasks.length === op.parallelism && op.subtasks.every((t) => t.busyTimeMsPerSecond !== undefined),
  );

/**
 * The samples with every subtask's figures but the first, whose second may begin with the run
 * (its threads starting, the job opening): each of the others covers a second of the run going.
 */
async function steadySamples(file: string): Promise<Sample[]> {
  const lines = await readJsonl<Sample>(file).catch(() => []);
  return lines.filter((l) => l.type === 'metrics' && !l.final && measuredAll(l)).slice(1);
}

/** Runs `job` on `threads` threads until SAMPLES steady samples are written, then ends it. */
async function samplesOf(job: JobDocument, threads: number): Promise<Sample[]> {
  const dir = await makeTempDir(`pipewright-pressure-${threads}-`);
  const jobPath = path.join(dir, 'job.json');
  await writeJob(jobPath, job);
  const metricsPath = path.join(dir, 'metrics.jsonl');
  const run = startCli(
    ['run', jobPath, '--quiet', '--threads', String(threads), '--metrics', metricsPath],
    dir,
  );
  const enough = await waitUntil(async () => (await steadySamples(metricsPath)).length >= SAMPLES, {
    run,
    timeoutMs: 30_000,
    everyMs: 100,
  });
  // The samples are all it is run for: what it wrote since does not matter.
  const ended = await killHard(run);
  expect(enough, `no ${SAMPLES} samples of the run going\n${ended.stderr}`).toBe(true);
  return (await steadySamples(metricsPath)).slice(0, SAMPLES);
}

const figures = (s: Sample, id: string): Measured[] =>
  s.operators.find((op) => op.id === id)!.subtasks.map((t) => t as Measured);

function table(samples: readonly Sample[]): string {
  return samples
    .map(
      (s) =>
        `  ${Math.round(s.elapsedMs)} ms: ${s.operators
          .map(
            (op) =>
              `${op.id} out ${op.recordsOut} ${op.subtasks.map((t) => `[busy ${t.busyTimeMsPerSecond} bp ${t.backPressuredTimeMsPerSecond} idle ${t.idleTimeMsPerSecond}]`).join('')}`,
          )
          .join(', ')}`,
    )
    .join('\n');
}

function expectWholeSeconds(samples: readonly Sample[], shown: string): void {
  for (const sample of samples) {
    for (const op of sample.operators) {
      for (const [k, t] of (op.subtasks as readonly Measured[]).entries()) {
        const sum = t.busyTimeMsPerSecond + t.backPressuredTimeMsPerSecond + t.idleTimeMsPerSecond;
        expect(sum, `${op.id} subtask ${k}: the three add up to a second\n${shown}`).toBeGreaterThanOrEqual(
          995,
        );
        expect(sum, shown).toBeLessThanOrEqual(1005);
      }
    }
  }
}

/** The middle of three readings: one second a starved machine skewed does not decide. */
function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** A subtask's figure in each sample, by its median. */
const medianOf = (samples: readonly Sample[], id: string, k: number, figure: keyof Measured) =>
  median(samples.map((s) => figures(s, id)[k]![figure]));

const THREADS = [
  { threads: 1, parallelism: 1 },
  { threads: 2, parallelism: 2 },
];

/**
 * The job on one and on two threads, side by side: each run is judged by shares of its own
 * seconds, which a machine busy with the other only makes slower. The slow runs and the quick
 * ones are apart: a quick run's generator would share two cores with three busy loops.
 */
async function onEachThreadCount(
  code: string,
  check: (samples: readonly Sample[], parallelism: number, shown: string) => void,
): Promise<void> {
  const runs = await Promise.all(
    THREADS.map(({ threads, parallelism }) => samplesOf(pressureJob(code, parallelism), threads)),
  );
  THREADS.forEach(({ threads, parallelism }, i) => {
    const samples = runs[i]!;
    const shown = `${code === SLOW ? 'slow' : 'quick'} map, ${threads} thread(s):\n${table(samples)}`;
    console.log(shown);
    expectWholeSeconds(samples, shown);
    check(samples, parallelism, shown);
  });
}

describe('gen → slow → out, --metrics, on 1 and on 2 threads', () => {
  it('a slow map: busy near all the time, the edge into it held back, the edge after it not', async () => {
    await onEachThreadCount(SLOW, (samples, parallelism, shown) => {
      // Its busiest subtask, as the designer tints it: on two threads the one whose thread gets
      // less of the machine is the bottleneck (rebalance waits on its full channel), and the
      // other may then run out of input.
      const busiest = median(
        samples.map((s) => Math.max(...figures(s, 'slow').map((t) => t.busyTimeMsPerSecond))),
      );
      expect(busiest, `slow is busy\n${shown}`).toBeGreaterThanOrEqual(800);
      for (let k = 0; k < parallelism; k++) {
        // Nothing holds the map back: the edge after it.
        const held = medianOf(samples, 'slow', k, 'backPressuredTimeMsPerSecond');
        expect(held, `slow#${k} is not held back\n${shown}`).toBeLessThanOrEqual(200);
      }
      const genHeld = medianOf(samples, 'gen', 0, 'backPressuredTimeMsPerSecond');
      expect(genHeld, `gen is held back\n${shown}`).toBeGreaterThanOrEqual(600);
    });
  }, 60_000);

  it('without the slow work: no edge held back, and the generator at its rate', async () => {
    await onEachThreadCount(QUICK, (samples, parallelism, shown) => {
      for (const [id, count] of [
        ['gen', 1],
        ['slow', parallelism],
      ] as const) {
        for (let k = 0; k < count; k++) {
          const held = medianOf(samples, id, k, 'backPressuredTimeMsPerSecond');
          expect(held, `${id}#${k} is not held back\n${shown}`).toBeLessThanOrEqual(200);
        }
      }
      // Its rate between the first and the last sample: a loaded machine fires the pacer's
      // timers late, which it makes up for within 100 ms, hence the margin.
      const first = samples[0]!;
      const last = samples.at(-1)!;
      const made = (s: Sample) => s.operators.find((op) => op.id === 'gen')!.recordsOut;
      const rate = ((made(last) - made(first)) * 1000) / (last.elapsedMs - first.elapsedMs);
      expect(rate, shown).toBeGreaterThanOrEqual(0.8 * RATE);
      expect(rate, shown).toBeLessThanOrEqual(1.1 * RATE);
    });
  }, 60_000);
});
