// Soak: exactly-once for the transaction operator (issue 15): the transfers job
// (test/transfersJob.ts) killed with `kill -9` at random moments (one of them while a checkpoint
// is being written) and restored with `--restore latest` until it finishes ends with exactly the
// output of a run that never failed: the rows and the transactions not yet runnable at a barrier
// come back from the checkpoint as they were. On one thread and on two, and restored at other
// parallelisms (3 -> 1 and 3 -> 4). The clean run must equal a plain serial program over the
// transfers in id order. Kill times come from a seeded PRNG: random here, printed;
// PIPEWRIGHT_TEST_SEED=<seed> repeats them (as far as a machine's timing allows). `npm test` has
// the same checks at fixed points and one real kill (test/transactionRestore.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  between,
  crashAndRestore,
  describeAttempts,
  describeResult,
  expectRestoredToEnd,
  type KillPlan,
  killPlans,
  randomFor as randomForSeed,
  runToEnd,
  testSeed,
} from './checkpointHelpers.js';
import { makeTempDir, removeTempDirs, writeJob } from './cliHarness.js';
import { expectSameOutputs, makeJobCase, outputsOf } from './jobCase.js';
import { TRANSFERS_ABORTED, type TransfersShape, transfersJob, writeTransfers } from './transfersJob.js';

afterAll(removeTempDirs);

const seed = testSeed();
const randomFor = (label: string) => randomForSeed(seed, label);

const TRANSACTIONS = 40_000;
const ACCOUNTS = 50;
const CHECKPOINT_MS = 60;

let inputs: readonly [string, string];
let reference: Map<string, string[]>;

const jobOf = (shape: TransfersShape) => transfersJob(inputs, shape);

interface Baseline {
  readonly outputs: Map<string, string[]>;
  readonly ms: number;
}

/** A clean run, without checkpoints, at parallelism 3 on one thread: what every other run must give. */
let baseline: Baseline;

beforeAll(async () => {
  const fixtures = await makeTempDir('pipewright-txrestore-inputs-');
  ({ inputs, reference } = writeTransfers(fixtures, TRANSACTIONS, ACCOUNTS));
  const run = await makeJobCase('txrestore-baseline', jobOf({ intervalMs: 0, parallelism: 3, threads: 1 }));
  const started = Date.now();
  // Trusted: every case reads the one input, outside its own folder (docs/security.md).
  const result = await runToEnd(['run', run.jobPath, '--trust', '--quiet'], run.dir);
  const ms = Date.now() - started;
  expect(result.code, describeResult(result)).toBe(0);
  baseline = { outputs: await outputsOf(run), ms };
  console.log(`transfers: a clean run took ${ms} ms`);
});

describe('the transfers job', () => {
  it('gives, run clean, the output of a plain serial program, with aborts all along the input', () => {
    const aborted = reference.get(TRANSFERS_ABORTED)!;
    expect(aborted.length).toBeGreaterThan(TRANSACTIONS / 50);
    const lastTenth = aborted.filter((line) => (JSON.parse(line) as { id: number }).id > 0.9 * TRANSACTIONS);
    expect(lastTenth.length).toBeGreaterThan(TRANSACTIONS / 500);
    expectSameOutputs(baseline.outputs, reference, 'a clean run against the serial program');
  });
});

/**
 * The kills of a crash sequence: the first soon after the run's first checkpoint; the next two
 * soon after a restored run's own first checkpoint (a restored run takes about a second to
 * write one, longer than a kill at a random moment gives it), the second of them while a
 * checkpoint is being written; the last at a random moment, checkpoint or not.
 */
function restoreKills(random: () => number): KillPlan[] {
  const [first] = killPlans(random, 1, baseline.ms, 0, 0);
  return [
    first!,
    { delayMs: between(random, 0, 0.15 * baseline.ms), afterCheckpoint: true },
    { delayMs: between(random, 0, 0.1 * baseline.ms), afterCheckpoint: true, duringCheckpoint: true },
    { delayMs: between(random, 0.1 * baseline.ms, 0.35 * baseline.ms) },
  ];
}

describe.each([1, 2])(
  'kill -9 on %i thread(s) at random moments, then --restore latest until done',
  (threads) => {
    it('ends with exactly the output of a run that never failed', async () => {
      const random = randomFor(`transfers on ${threads}`);
      const run = await makeJobCase(
        'txrestore-kill',
        jobOf({ intervalMs: CHECKPOINT_MS, parallelism: 3, threads }),
      );
      const attempts = await crashAndRestore({ ...run, cwd: run.dir, kills: restoreKills(random) });
      const context = `seed ${seed}\n${describeAttempts(attempts)}`;
      console.log(`transfers on ${threads} thread(s):\n${context}`);
      expectRestoredToEnd(attempts, 3, context);
      expect(
        attempts.some((a) => a.killedWhileWriting.length > 0),
        `no kill hit a checkpoint being written\n${context}`,
      ).toBe(true);
      // Some restore resumed from rows and a queue that a restored run had checkpointed.
      const firstRuns = attempts[1]?.newestBefore ?? 0;
      expect(
        attempts.some((a) => typeof a.restoredFrom === 'number' && a.restoredFrom > firstRuns),
        `no restore resumed from a checkpoint of a restored run\n${context}`,
      ).toBe(true);
      expectSameOutputs(await outputsOf(run), baseline.outputs, context);
    });
  },
);

describe('kill -9, then --restore latest at another parallelism', () => {
  it.each([
    [1, 1],
    [4, 2],
  ])(
    '3 -> %i (on %i thread(s)) ends with exactly the output of a run that never failed',
    async (to, threads) => {
      const random = randomFor(`transfers rescaled to ${to}`);
      // The first run at parallelism 3, killed after its first checkpoint; the restores at `to`.
      const shapeOf = (attempt: number): TransfersShape => ({
        intervalMs: CHECKPOINT_MS,
        parallelism: attempt === 0 ? 3 : to,
        threads,
      });
      const run = await makeJobCase('txrestore-rescale', jobOf(shapeOf(0)));
      // Each run is killed soon after a checkpoint of its own: a restored run at parallelism 1
      // goes faster than the clean run at 3 and would otherwise finish first.
      const kills: KillPlan[] = [0, 1].map(() => ({
        delayMs: between(random, 0, 0.05 * baseline.ms),
        afterCheckpoint: true,
      }));
      const attempts = await crashAndRestore({
        ...run,
        cwd: run.dir,
        kills,
        beforeAttempt: (attempt) => writeJob(run.jobPath, jobOf(shapeOf(attempt))),
      });
      const context = `seed ${seed}\n${describeAttempts(attempts)}`;
      console.log(`transfers rescaled 3 -> ${to}:\n${context}`);
      expectRestoredToEnd(attempts, 2, context);
      // The first restore (at `to`) resumed from a checkpoint of the first run (at 3).
      expect(attempts[1]?.restoredFrom, context).toEqual(expect.any(Number));
      expectSameOutputs(await outputsOf(run), baseline.outputs, context);
    },
  );
});
