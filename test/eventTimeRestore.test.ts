// Exactly-once for event-time jobs (issue 14, engine item 5): runs killed with `kill -9` at
// random moments (one of them while a checkpoint is being written) and restored with
// `--restore latest` until they finish end with exactly the output of a run that never failed:
// their watermarks, timers and window state come back from the checkpoint as they were, so the
// same records are late, the same windows fire (and fire again) and the same timers go off. On
// one thread and on two, and restored at other parallelisms and thread counts.
//
// The jobs (test/eventTimeJobs.ts) are ones whose late records are late on every interleaving
// of their inputs; its header says why. Kill times come from a seeded PRNG: the seed is
// printed, and PIPEWRIGHT_TEST_SEED=<seed> repeats them (as far as a machine's timing allows).
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  between,
  crashAndRestore,
  describeAttempts,
  describeDifference,
  describeResult,
  expectRestoredToEnd,
  type KillPlan,
  killPlans,
  outputLines,
  randomFor as randomForSeed,
  runToEnd,
  testSeed,
} from './checkpointHelpers.js';
import { type JobDocument, makeTempDir, removeTempDirs, writeJob } from './cliHarness.js';
import {
  type EventTimeShape,
  LATE_OUTPUT,
  Q5_OUTPUT,
  q5Job,
  TIMER_OUTPUT,
  timerJob,
  WINDOW_OUTPUT,
  windowJob,
  writeEventTimeInput,
} from './eventTimeJobs.js';

afterAll(removeTempDirs);

const seed = testSeed();
const randomFor = (label: string) => randomForSeed(seed, label);

const RECORDS = 40_000;
const KEYS = 400;
const NEXMARK_EVENTS = 60_000;
const CHECKPOINT_MS = 60;

interface JobCase {
  readonly name: string;
  readonly job: (shape: EventTimeShape) => Promise<JobDocument>;
  /** The sink files, relative to the job's folder. */
  readonly outputs: readonly string[];
}

let input: string;
let farBehind: number;

const CASES: readonly JobCase[] = [
  {
    name: 'a sliding window with allowed lateness and a late port',
    job: async (shape) => windowJob(input, shape),
    outputs: [WINDOW_OUTPUT, LATE_OUTPUT],
  },
  {
    name: 'a process with event-time timers',
    job: async (shape) => timerJob(input, shape),
    outputs: [TIMER_OUTPUT],
  },
  { name: 'NEXMark q5', job: (shape) => q5Job(NEXMARK_EVENTS, shape), outputs: [Q5_OUTPUT] },
];

// ------------------------------------------------------------------------------- runs and cases

interface Run {
  readonly dir: string;
  readonly jobPath: string;
  readonly checkpointDir: string;
}

async function makeRun(label: string, job: JobDocument): Promise<Run> {
  const dir = await makeTempDir(`pipewright-etrestore-${label}-`);
  const jobPath = path.join(dir, `${job.name}.job.json`);
  await writeJob(jobPath, job);
  return { dir, jobPath, checkpointDir: path.join(dir, '.pipewright', job.name as string, 'checkpoints') };
}

/** Every sink file's lines, by file. */
async function outputsOf(run: Run, c: JobCase): Promise<Map<string, string[]>> {
  const outputs = new Map<string, string[]>();
  for (const file of c.outputs) outputs.set(file, await outputLines(path.join(run.dir, file)));
  return outputs;
}

interface Baseline {
  readonly outputs: Map<string, string[]>;
  readonly ms: number;
}

/** Clean runs, without checkpoints, on one thread: what every other run must give. */
const baselines = new Map<string, Baseline>();

async function runClean(c: JobCase, label: string, shape: EventTimeShape): Promise<Baseline> {
  const run = await makeRun(label, await c.job(shape));
  const started = Date.now();
  const result = await runToEnd(['run', run.jobPath, '--quiet'], run.dir);
  const ms = Date.now() - started;
  expect(result.code, describeResult(result)).toBe(0);
  return { outputs: await outputsOf(run, c), ms };
}

function expectSameOutputs(actual: Map<string, string[]>, expected: Map<string, string[]>, context: string) {
  for (const [file, lines] of expected) {
    const difference = describeDifference(actual.get(file) ?? [], lines);
    expect(difference, `${context}\n${file}: ${difference}`).toBe('');
  }
}

beforeAll(async () => {
  const fixtures = await makeTempDir('pipewright-etrestore-inputs-');
  input = path.join(fixtures, 'events.jsonl');
  ({ farBehind } = writeEventTimeInput(input, RECORDS, KEYS));
  for (const c of CASES) {
    const baseline = await runClean(c, 'baseline', { intervalMs: 0, parallelism: 2, threads: 1 });
    console.log(`${c.name}: a clean run took ${baseline.ms} ms`);
    baselines.set(c.name, baseline);
  }
}, 180_000);

// ------------------------------------------------------------------------------------- tests

describe('the jobs', () => {
  it('have late records, re-fired windows and timers in their output', () => {
    const windows = baselines.get(CASES[0]!.name)!.outputs;
    // Every record 5 s behind went to port late unchanged, and nothing else did.
    expect(windows.get(LATE_OUTPUT)).toHaveLength(farBehind);
    const fired = windows.get(WINDOW_OUTPUT)!.map((line) => {
      const { key, start } = JSON.parse(line) as { key: string; start: number };
      return `${key}@${start}`;
    });
    // Records within the lateness fired their windows again.
    expect(fired.length - new Set(fired).size).toBeGreaterThan(100);
    const timers = baselines.get(CASES[1]!.name)!.outputs.get(TIMER_OUTPUT)!;
    expect(timers.filter((line) => line.includes('"domain":"eventTime"')).length).toBeGreaterThan(KEYS);
    expect(timers.filter((line) => line.includes('"behind":true')).length).toBeGreaterThan(RECORDS / 101);
    expect(baselines.get(CASES[2]!.name)!.outputs.get(Q5_OUTPUT)!.length).toBeGreaterThan(10);
  });

  it.each(CASES)(
    '$name on 2 threads, with checkpoints, gives the same output',
    async (c) => {
      const clean = await runClean(c, 'threads', { intervalMs: CHECKPOINT_MS, parallelism: 2, threads: 2 });
      expectSameOutputs(clean.outputs, baselines.get(c.name)!.outputs, 'on 2 threads');
    },
    120_000,
  );
});

describe.each([1, 2])(
  'kill -9 on %i thread(s) at random moments, then --restore latest until done',
  (threads) => {
    it.each(CASES)(
      '$name ends with exactly the output of a run that never failed',
      async (c) => {
        const baseline = baselines.get(c.name)!;
        const random = randomFor(`${c.name} on ${threads}`);
        const run = await makeRun(
          'kill',
          await c.job({ intervalMs: CHECKPOINT_MS, parallelism: 2, threads }),
        );
        const attempts = await crashAndRestore({
          ...run,
          cwd: run.dir,
          kills: killPlans(random, 4, baseline.ms, 0.1, 0.35),
        });
        const context = `seed ${seed}\n${describeAttempts(attempts)}`;
        console.log(`${c.name} on ${threads} thread(s):\n${context}`);
        expectRestoredToEnd(attempts, 3, context);
        expect(
          attempts.some((a) => a.killedWhileWriting.length > 0),
          `no kill hit a checkpoint being written\n${context}`,
        ).toBe(true);
        expectSameOutputs(await outputsOf(run, c), baseline.outputs, context);
      },
      180_000,
    );
  },
);

describe('kill -9, then --restore latest at other parallelisms and thread counts', () => {
  it.each(CASES)(
    '$name ends with exactly the output of a run that never failed',
    async (c) => {
      const baseline = baselines.get(c.name)!;
      const random = randomFor(`${c.name} rescaled`);
      // parallelism / threads of each attempt: 2/2, then 3/1, 1/2, 4/2 and to the end at 3/2.
      const shapes = [
        [2, 2],
        [3, 1],
        [1, 2],
        [4, 2],
        [3, 2],
      ] as const;
      const shapeOf = (attempt: number): EventTimeShape => {
        const [parallelism, threads] = shapes[Math.min(attempt, shapes.length - 1)]!;
        return { intervalMs: CHECKPOINT_MS, parallelism, threads };
      };
      const run = await makeRun('rescale', await c.job(shapeOf(0)));
      const kills: KillPlan[] = [0, 1, 2, 3].map((i) => ({
        delayMs: between(random, i === 0 ? 0 : 0.1 * baseline.ms, (i === 0 ? 0.1 : 0.3) * baseline.ms),
        afterCheckpoint: true,
      }));
      const attempts = await crashAndRestore({
        ...run,
        cwd: run.dir,
        kills,
        beforeAttempt: async (attempt) => writeJob(run.jobPath, await c.job(shapeOf(attempt))),
      });
      const context = `seed ${seed}\n${describeAttempts(attempts)}`;
      console.log(`${c.name} rescaled:\n${context}`);
      expectRestoredToEnd(attempts, 2, context);
      // The first restore (at parallelism 3) resumed from a checkpoint of the first run (at 2).
      expect(attempts[1]?.restoredFrom, context).toEqual(expect.any(Number));
      expectSameOutputs(await outputsOf(run, c), baseline.outputs, context);
    },
    180_000,
  );
});
