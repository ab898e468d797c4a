// Exactly-once for event-time jobs (issue 14, engine item 5): a run that fails, or is killed with
// `kill -9`, and is restored from its latest checkpoint ends with exactly the output of a run that
// never failed: watermarks, timers and window state come back as they were, so the same records
// are late, the same windows fire (and fire again) and the same timers go off. The jobs
// (test/eventTimeJobs.ts) are ones whose late records are late on every interleaving of their
// inputs; its header says why. Here at fixed failure points, restored at other parallelisms, and
// with one real kill -9; kills at random moments and at full size: eventTimeRestore.soak.test.ts.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  crashAndRestore,
  describeAttempts,
  expectRestoredToEnd,
  outputLines,
  randomFor as randomForSeed,
  testSeed,
} from './checkpointHelpers.js';
import { makeTempDir, removeTempDirs } from './cliHarness.js';
import {
  eventTimeCases,
  LATE_OUTPUT,
  Q5_OUTPUT,
  TIMER_OUTPUT,
  WINDOW_OUTPUT,
  writeEventTimeInput,
} from './eventTimeJobs.js';
import {
  type Baseline,
  expectSameOutputs,
  makeJobCase,
  outputsOf,
  runBaseline,
  sinkPathsOf,
} from './jobCase.js';
import {
  describeStepAttempts,
  expectFailedAndRestored,
  failAndRestore,
  failurePoints,
  wholeRunSteps,
} from './stepFailures.js';

afterAll(removeTempDirs);

const seed = testSeed('failure points');
const randomFor = (label: string) => randomForSeed(seed, label);

const RECORDS = 12_000;
const KEYS = 200;
const NEXMARK_EVENTS = 15_000;
const CHECKPOINT_MS = 50;

let input: string;
let farBehind: number;
const CASES = eventTimeCases(() => input, NEXMARK_EVENTS);
const [WINDOWS, TIMERS, Q5] = CASES.map((c) => c.name) as [string, string, string];

/** Clean runs, without checkpoints, on one thread: what every other run must give. */
const baselines = new Map<string, Baseline>();

beforeAll(async () => {
  const fixtures = await makeTempDir('pipewright-etrestore-inputs-');
  input = path.join(fixtures, 'events.jsonl');
  ({ farBehind } = writeEventTimeInput(input, RECORDS, KEYS));
  for (const c of CASES) {
    const shape = { intervalMs: 0, parallelism: 2, threads: 1 };
    baselines.set(c.name, await runBaseline('etrestore-baseline', await c.job(shape)));
  }
});

describe('the jobs', () => {
  it('have late records, re-fired windows and timers in their output', () => {
    const windows = baselines.get(WINDOWS)!.outputs;
    // Every record 5 s behind went to port late unchanged, and nothing else did.
    expect(windows.get(LATE_OUTPUT)).toHaveLength(farBehind);
    const fired = windows.get(WINDOW_OUTPUT)!.map((line) => {
      const { key, start } = JSON.parse(line) as { key: string; start: number };
      return `${key}@${start}`;
    });
    // Records within the lateness fired their windows again.
    expect(fired.length - new Set(fired).size).toBeGreaterThan(30);
    const timers = baselines.get(TIMERS)!.outputs.get(TIMER_OUTPUT)!;
    expect(timers.filter((line) => line.includes('"domain":"eventTime"')).length).toBeGreaterThan(KEYS);
    expect(timers.filter((line) => line.includes('"behind":true')).length).toBeGreaterThan(RECORDS / 101);
    expect(baselines.get(Q5)!.outputs.get(Q5_OUTPUT)!.length).toBeGreaterThan(10);
  });

  it.each(CASES)('$name on 2 threads, with checkpoints, gives the same output', async (c) => {
    const clean = await runBaseline(
      'etrestore-threads',
      await c.job({ intervalMs: CHECKPOINT_MS, parallelism: 2, threads: 2 }),
    );
    expectSameOutputs(clean.outputs, baselines.get(c.name)!.outputs, 'on 2 threads');
  });
});

describe('kill -9 on 2 threads, then --restore latest until done', () => {
  // Right after a checkpoint completes, then, in the restored run, while one is being written:
  // both early in their run, so they land however fast or loaded the machine is.
  it('the sliding window with a late port ends with exactly the output of a run that never failed', async () => {
    const c = CASES[0]!;
    const run = await makeJobCase(
      'etrestore-kill',
      await c.job({ intervalMs: CHECKPOINT_MS, parallelism: 2, threads: 2 }),
    );
    const attempts = await crashAndRestore({
      ...run,
      cwd: run.dir,
      kills: [
        { delayMs: 0, afterCheckpoint: true },
        { delayMs: 0, duringCheckpoint: true },
      ],
    });
    const context = describeAttempts(attempts);
    expectRestoredToEnd(attempts, 2, context);
    expectSameOutputs(await outputsOf(run), baselines.get(c.name)!.outputs, context);
  });
});

describe('a failure at a fixed step, then a restore at another parallelism (in this process)', () => {
  it.each(CASES)('$name, restored at parallelism 3, 1 and 4, ends exactly', async (c) => {
    const parallelismOf = [2, 3, 1, 4];
    const job = (attempt: number) =>
      c.job({ intervalMs: CHECKPOINT_MS, parallelism: parallelismOf[attempt] ?? 4, threads: 1 });
    const jobs = await Promise.all(parallelismOf.map((_, attempt) => job(attempt)));
    const steps = await wholeRunSteps(await makeTempDir('pipewright-etrestore-steps-'), jobs[0]!, 2);
    const dir = await makeTempDir('pipewright-etrestore-steps-');
    const attempts = await failAndRestore({
      jobDir: dir,
      job: (attempt) => jobs[attempt] ?? jobs[jobs.length - 1]!,
      checkpointEverySteps: 2,
      failAtSteps: failurePoints(randomFor(c.name), 3, steps, 2),
    });
    expectFailedAndRestored(attempts, 3);
    const outputs = new Map<string, string[]>();
    for (const file of sinkPathsOf(jobs[0]!)) outputs.set(file, await outputLines(path.resolve(dir, file)));
    expectSameOutputs(outputs, baselines.get(c.name)!.outputs, describeStepAttempts(attempts));
  });
});
