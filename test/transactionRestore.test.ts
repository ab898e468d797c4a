// Exactly-once for the transaction operator (issue 15): a transfers job (test/transfersJob.ts:
// deposits and transfers between 50 accounts, a transfer that would overdraw aborting and saying
// so on port `aborted`, its input from two sources so that records wait in a queue at barriers)
// that fails and is restored from its latest checkpoint until it finishes ends with exactly the
// output of a plain serial program over the transfers in id order: the rows and the transactions
// not yet runnable at a barrier come back from the checkpoint as they were. Here at fixed failure
// points in this process (also restored at other parallelisms), and with one real kill -9 on two
// threads (restored at another parallelism); kills at random moments, on one thread and two and
// at full size: transactionRestore.soak.test.ts.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  crashAndRestore,
  describeAttempts,
  describeDifference,
  expectRestoredToEnd,
  outputLines,
  randomFor as randomForSeed,
  testSeed,
} from './checkpointHelpers.js';
import { makeTempDir, removeTempDirs, writeJob } from './cliHarness.js';
import { expectSameOutputs, makeJobCase, outputsOf } from './jobCase.js';
import {
  describeStepAttempts,
  expectFailedAndRestored,
  failAndRestore,
  failurePoints,
  wholeRun,
} from './stepFailures.js';
import {
  TRANSFERS_ABORTED,
  TRANSFERS_OUTPUT,
  type TransfersInput,
  type TransfersShape,
  transfersJob,
  writeTransfers,
} from './transfersJob.js';

afterAll(removeTempDirs);

const seed = testSeed('failure points');
const randomFor = (label: string) => randomForSeed(seed, label);

/** The real kill's input: enough for its restored run to be writing a checkpoint on a fast machine. */
const TRANSACTIONS = 15_000;
/** In this process: enough steps for failures after the first checkpoint, within a fifth of a run. */
const STEP_TRANSACTIONS = 10_000;
const ACCOUNTS = 50;
const CHECKPOINT_MS = 60;
/** In this process a checkpoint is asked for every this many steps (slices of run()). */
const EVERY_STEPS = 4;

let inputs: readonly [string, string];
/** What each sink must hold at the end: the serial program's lines. */
let reference: Map<string, string[]>;
let stepInput: TransfersInput;

const jobOf = (shape: TransfersShape) => transfersJob(inputs, shape);

/** The sinks' lines of a run in `dir`. */
async function outputsIn(dir: string): Promise<Map<string, string[]>> {
  const outputs = new Map<string, string[]>();
  for (const file of [TRANSFERS_OUTPUT, TRANSFERS_ABORTED])
    outputs.set(file, await outputLines(path.join(dir, file)));
  return outputs;
}

beforeAll(async () => {
  const fixtures = await makeTempDir('pipewright-txrestore-inputs-');
  ({ inputs, reference } = writeTransfers(fixtures, TRANSACTIONS, ACCOUNTS));
  stepInput = writeTransfers(await makeTempDir('pipewright-txrestore-inputs-'), STEP_TRANSACTIONS, ACCOUNTS);
});

describe('the transfers job', () => {
  it('gives, run clean, the output of a plain serial program, with aborts all along the input', async () => {
    const aborted = reference.get(TRANSFERS_ABORTED)!;
    expect(aborted.length).toBeGreaterThan(TRANSACTIONS / 50);
    // Aborts happen in the last tenth of the input too, not only while balances are low at its start.
    const lastTenth = aborted.filter((line) => (JSON.parse(line) as { id: number }).id > 0.9 * TRANSACTIONS);
    expect(lastTenth.length).toBeGreaterThan(TRANSACTIONS / 500);
    // A run without checkpoints, at parallelism 3 on one thread (in this process).
    const dir = await makeTempDir('pipewright-txrestore-clean-');
    await failAndRestore({
      jobDir: dir,
      job: () => jobOf({ intervalMs: 0, parallelism: 3, threads: 1 }),
      checkpointEverySteps: Number.POSITIVE_INFINITY,
      failAtSteps: [],
    });
    expectSameOutputs(await outputsIn(dir), reference, 'a clean run against the serial program');
  });
});

describe('kill -9 on 2 threads, then --restore latest at another parallelism until done', () => {
  // Right after the first run's first checkpoint (at parallelism 3), then, in the run restored at
  // parallelism 4, while a checkpoint is being written: both early in their run, so they land
  // however fast or loaded the machine is. Restores from a restored run's checkpoints: the
  // in-process tests below; kills at random moments: transactionRestore.soak.test.ts.
  it('ends with exactly the output of the serial program', async () => {
    const shapeOf = (attempt: number): TransfersShape => ({
      intervalMs: CHECKPOINT_MS,
      parallelism: attempt === 0 ? 3 : 4,
      threads: 2,
    });
    const run = await makeJobCase('txrestore-kill', jobOf(shapeOf(0)));
    const attempts = await crashAndRestore({
      ...run,
      cwd: run.dir,
      kills: [
        { delayMs: 0, afterCheckpoint: true },
        { delayMs: 0, duringCheckpoint: true },
      ],
      beforeAttempt: (attempt) => writeJob(run.jobPath, jobOf(shapeOf(attempt))),
    });
    const context = describeAttempts(attempts);
    expectRestoredToEnd(attempts, 2, context);
    expect(
      attempts[1]!.killedWhileWriting,
      `the second kill hit a checkpoint being written\n${context}`,
    ).not.toEqual([]);
    // The first restore (at 4) resumed from a checkpoint of the first run (at 3).
    expect(attempts[1]!.restoredFrom, context).toEqual(expect.any(Number));
    expectSameOutputs(await outputsOf(run), reference, context);
  });
});

describe('a failure at a fixed step, then a restore from the latest checkpoint (in this process)', () => {
  // Checkpoints every few steps, failures at steps of a seeded PRNG (test/stepFailures.ts), the
  // same on every run: inside checkpoints too, with records queued for their turn.
  it.each([
    { label: 'at parallelism 3', parallelismOf: [3, 3, 3, 3], throughMaps: false },
    { label: 'restored at parallelism 1, 4 and 2', parallelismOf: [3, 1, 4, 2], throughMaps: false },
    {
      label: 'behind maps that cut mid-slice, at parallelism 3',
      parallelismOf: [3, 3, 3, 3],
      throughMaps: true,
    },
  ])(
    '$label, ends with exactly the output of the serial program',
    async ({ label, parallelismOf, throughMaps }) => {
      const job = (attempt: number) =>
        transfersJob(stepInput.inputs, {
          intervalMs: CHECKPOINT_MS,
          parallelism: parallelismOf[attempt] ?? 2,
          threads: 1,
          throughMaps,
        });
      // The first checkpoint completes late: its barrier waits at the ledger for the source that is
      // not read yet (the other runs first, until its channel is full). No attempt fails before it.
      const whole = await wholeRun(await makeTempDir('pipewright-txrestore-steps-'), job(0), EVERY_STEPS);
      const dir = await makeTempDir('pipewright-txrestore-steps-');
      const failures = parallelismOf.length - 1;
      const attempts = await failAndRestore({
        jobDir: dir,
        job,
        checkpointEverySteps: EVERY_STEPS,
        failAtSteps: failurePoints(
          randomFor(label),
          failures,
          whole.steps,
          EVERY_STEPS,
          whole.completedAt[0],
        ),
      });
      expectFailedAndRestored(attempts, failures);
      const context = describeStepAttempts(attempts);
      for (const [file, lines] of stepInput.reference)
        expect(describeDifference((await outputsIn(dir)).get(file)!, lines), `${context}\n${file}`).toBe('');
    },
  );
});
