// Soak: exactly-once for event-time jobs (issue 14, engine item 5): runs killed with `kill -9` at
// random moments (one of them while a checkpoint is being written) and restored with
// `--restore latest` until they finish end with exactly the output of a run that never failed:
// their watermarks, timers and window state come back from the checkpoint as they were, so the
// same records are late, the same windows fire (and fire again) and the same timers go off. On
// one thread and on two, and restored at other parallelisms and thread counts.
//
// The jobs (test/eventTimeJobs.ts) are ones whose late records are late on every interleaving
// of their inputs; its header says why. Kill times come from a seeded PRNG: random here, printed,
// and PIPEWRIGHT_TEST_SEED=<seed> repeats them (as far as a machine's timing allows). `npm test`
// has the same checks at fixed points (test/eventTimeRestore.test.ts).
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  between,
  crashAndRestore,
  describeAttempts,
  expectRestoredToEnd,
  type KillPlan,
  killPlans,
  randomFor as randomForSeed,
  testSeed,
} from './checkpointHelpers.js';
import { makeTempDir, removeTempDirs, writeJob } from './cliHarness.js';
import { type EventTimeShape, eventTimeCases, writeEventTimeInput } from './eventTimeJobs.js';
import { type Baseline, expectSameOutputs, makeJobCase, outputsOf, runBaseline } from './jobCase.js';

afterAll(removeTempDirs);

const seed = testSeed();
const randomFor = (label: string) => randomForSeed(seed, label);

const RECORDS = 40_000;
const KEYS = 400;
const NEXMARK_EVENTS = 60_000;
const CHECKPOINT_MS = 60;

let input: string;
const CASES = eventTimeCases(() => input, NEXMARK_EVENTS);

/** Clean runs, without checkpoints, on one thread: what every other run must give. */
const baselines = new Map<string, Baseline>();

beforeAll(async () => {
  const fixtures = await makeTempDir('pipewright-etrestore-inputs-');
  input = path.join(fixtures, 'events.jsonl');
  writeEventTimeInput(input, RECORDS, KEYS);
  for (const c of CASES) {
    const baseline = await runBaseline(
      'etrestore-baseline',
      await c.job({ intervalMs: 0, parallelism: 2, threads: 1 }),
    );
    console.log(`${c.name}: a clean run took ${baseline.ms} ms`);
    baselines.set(c.name, baseline);
  }
});

describe.each([1, 2])(
  'kill -9 on %i thread(s) at random moments, then --restore latest until done',
  (threads) => {
    it.each(CASES)('$name ends with exactly the output of a run that never failed', async (c) => {
      const baseline = baselines.get(c.name)!;
      const random = randomFor(`${c.name} on ${threads}`);
      const run = await makeJobCase(
        'etrestore-kill',
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
      expectSameOutputs(await outputsOf(run), baseline.outputs, context);
    });
  },
);

describe('kill -9, then --restore latest at other parallelisms and thread counts', () => {
  it.each(CASES)('$name ends with exactly the output of a run that never failed', async (c) => {
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
    const run = await makeJobCase('etrestore-rescale', await c.job(shapeOf(0)));
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
    expectSameOutputs(await outputsOf(run), baseline.outputs, context);
  });
});
