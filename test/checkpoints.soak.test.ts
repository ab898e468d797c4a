// Soak: checkpoints under kill -9 at random moments. A keyed aggregation and owner-has-items (round
// its feedback edge, on one thread and on two) are killed again and again, some kills while a
// checkpoint is being written, and restored with `--restore latest` (also at other parallelisms)
// until a run ends by itself: the output must be exactly that of a run that never failed. Kill
// times come from a seeded PRNG: random here, printed; PIPEWRIGHT_TEST_SEED=<seed> repeats them (as
// far as a machine's timing allows). `npm test` has the same checks at fixed points
// (test/checkpoints.test.ts).
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aggJob, writeAggInput } from './aggJob.js';
import {
  between,
  crashAndRestore,
  describeAttempts,
  describeDifference,
  describeResult,
  expectRestoredToEnd,
  inspectCheckpointDir,
  type KillPlan,
  killPlans,
  outputLines,
  randomFor as randomForSeed,
  readMetadata,
  testSeed,
} from './checkpointHelpers.js';
import { type JobDocument, makeTempDir, removeTempDirs, writeJob } from './cliHarness.js';
import { type Baseline, expectSameOutputs, makeJobCase, outputsOf, runBaseline } from './jobCase.js';
import { foldOwnership, isWaiting, ownersJob, writeOwnerEvents } from './ownerEvents.js';

afterAll(removeTempDirs);

const seed = testSeed();
const randomFor = (label: string) => randomForSeed(seed, label);

const AGG_RECORDS = 300_000;
const AGG_KEYS = 5_000;
const OWNER_EVENTS = 40_000;

/** Lines that are effects of the owner-has-items job: every line but its "waiting" ones. */
const effects = (all: readonly string[]) => all.filter((line) => !isWaiting(line));

let aggInput: string;
let aggBaseline: Baseline;
let ownerEvents: string;
let finalOwners: Map<string, string>;
let ownersBaseline: Baseline;

beforeAll(async () => {
  const fixtures = await makeTempDir('pipewright-chk-inputs-');
  aggInput = path.join(fixtures, 'records.jsonl');
  writeAggInput(aggInput, AGG_RECORDS, AGG_KEYS);
  ownerEvents = path.join(fixtures, 'owner-events.jsonl');
  finalOwners = writeOwnerEvents(ownerEvents, OWNER_EVENTS).owners;
  aggBaseline = await runBaseline('agg-baseline', aggJob(aggInput, { intervalMs: 0, parallelism: 1 }));
  expect(aggBaseline.lines).toHaveLength(AGG_RECORDS);
  ownersBaseline = await runBaseline('owners-baseline', await ownersJob(ownerEvents, 0, 1));
  expect(foldOwnership(ownersBaseline.lines)).toEqual(finalOwners);
});

describe('kill -9 at random moments, then --restore latest until done', () => {
  it('a keyed aggregation ends with exactly the output of a run that never failed', async () => {
    const random = randomFor('keyed aggregation');
    const c = await makeJobCase('kill-agg', aggJob(aggInput, { intervalMs: 100, parallelism: 1 }));
    const kills = killPlans(random, 4, aggBaseline.ms, 0.12, 0.35, [1, 3]);
    const attempts = await crashAndRestore({ ...c, cwd: c.dir, kills });
    const context = `seed ${seed}\n${describeAttempts(attempts)}`;
    console.log(`keyed aggregation:\n${context}`);
    expectRestoredToEnd(attempts, 3, context);
    expect(
      attempts.some((a) => a.killedWhileWriting.length > 0),
      `no kill hit a checkpoint being written\n${context}`,
    ).toBe(true);
    expectSameOutputs(await outputsOf(c), aggBaseline.outputs, context);
  });

  it.each([1, 2])(
    'owner-has-items, with its feedback edge, on %i thread(s), ends with exactly the output of a run that never failed',
    async (threads) => {
      const random = randomFor(`owner-has-items on ${threads}`);
      const c = await makeJobCase(`kill-owners-${threads}`, await ownersJob(ownerEvents, 50, threads));
      const kills = killPlans(random, 4, ownersBaseline.ms, 0.2, 0.45, [1, 3]);
      const attempts = await crashAndRestore({ ...c, cwd: c.dir, kills });
      const context = `seed ${seed}\n${describeAttempts(attempts)}`;
      console.log(`owner-has-items on ${threads} thread(s):\n${context}`);
      expectRestoredToEnd(attempts, 3, context);
      expect(
        attempts.some((a) => a.killedWhileWriting.length > 0),
        `no kill hit a checkpoint being written\n${context}`,
      ).toBe(true);
      // Same parallelism, so even the subtask in each record must match. First the effects
      // (every add and move owned and released exactly once), then, on one thread, everything,
      // "waiting" too.
      const lines = await outputLines(c.outPath);
      const effectsDifference = describeDifference(effects(lines), effects(ownersBaseline.lines));
      expect(effectsDifference, `${context}\nowned/released:\n${effectsDifference}`).toBe('');
      expect(foldOwnership(lines)).toEqual(finalOwners);
      if (threads === 1) expectSameOutputs(await outputsOf(c), ownersBaseline.outputs, context);
    },
  );

  it('a run killed at parallelism 1 and restored at 3 (then 2) ends with the same output', async () => {
    const random = randomFor('rescale');
    const c = await makeJobCase('kill-rescale', aggJob(aggInput, { intervalMs: 100, parallelism: 1 }));
    const parallelismOf = [1, 3, 2, 3];
    const restoredFrom: { id: number; parallelism: number }[] = [];
    const kills: KillPlan[] = [
      { delayMs: between(random, 0, 0.1 * aggBaseline.ms), afterCheckpoint: true },
      { delayMs: between(random, 0.15 * aggBaseline.ms, 0.4 * aggBaseline.ms), duringCheckpoint: true },
      { delayMs: between(random, 0.15 * aggBaseline.ms, 0.4 * aggBaseline.ms) },
    ];
    const attempts = await crashAndRestore({
      ...c,
      cwd: c.dir,
      kills,
      beforeAttempt: async (attempt) => {
        const parallelism = parallelismOf[attempt] ?? 3;
        await writeJob(c.jobPath, aggJob(aggInput, { intervalMs: 100, parallelism }));
        const newest = inspectCheckpointDir(c.checkpointDir).completed[0];
        if (attempt === 1 && newest !== undefined) {
          const agg = (readMetadata(c.checkpointDir, newest).operators as JobDocument[]).find(
            (op) => op.id === 'agg',
          )!;
          restoredFrom.push({ id: newest, parallelism: agg.parallelism as number });
        }
      },
    });
    const context = `seed ${seed}\n${describeAttempts(attempts)}`;
    console.log(`rescale:\n${context}`);
    const last = attempts[attempts.length - 1]!.result;
    expect(last.code, `${context}\n${describeResult(last)}`).toBe(0);
    expect(attempts.length, context).toBeGreaterThanOrEqual(2);
    // The first restore (at parallelism 3) resumed from a checkpoint taken at parallelism 1.
    expect(restoredFrom, context).toEqual([{ id: attempts[1]!.restoredFrom, parallelism: 1 }]);
    expectSameOutputs(await outputsOf(c), aggBaseline.outputs, context);
  });
});
