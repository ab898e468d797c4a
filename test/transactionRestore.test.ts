// Exactly-once for the transaction operator (issue 15): a transfers job (deposits and transfers
// between 50 accounts, a transfer that would overdraw aborting and saying so on port `aborted`)
// killed with `kill -9` at random moments (one of them while a checkpoint is being written) and
// restored with `--restore latest` until it finishes ends with exactly the output of a run that
// never failed: the rows and the transactions not yet runnable at a barrier come back from the
// checkpoint as they were. On one thread and on two, and restored at other parallelisms (3 -> 1
// and 3 -> 4).
//
// Every output line carries the balances the transaction left, so a transaction lost, run twice
// or run out of the serial order shows. The input comes from two sources, the even ids and the
// odd ones: two input channels, merged by (position, channel) as the operator documents, which
// is the order of the ids. So a subtask holds records it cannot run yet (those of the channel
// ahead) at many barriers, and the queue of them is in the checkpoints too. The clean run must
// equal a plain serial program over the transfers in id order. The sinks get the transaction subtasks' outputs interleaved, so
// outputs are compared as multisets of lines. Kill times come from a seeded PRNG: the seed is
// printed, and PIPEWRIGHT_TEST_SEED=<seed> repeats them (as far as a machine's timing allows).
import { writeFileSync } from 'node:fs';
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
  seededRandom,
  testSeed,
} from './checkpointHelpers.js';
import { type JobDocument, makeTempDir, removeTempDirs, writeJob } from './cliHarness.js';

afterAll(removeTempDirs);

const seed = testSeed();
const randomFor = (label: string) => randomForSeed(seed, label);

const TRANSACTIONS = 40_000;
const ACCOUNTS = 50;
const CHECKPOINT_MS = 60;
const OUT = 'out/transfers.jsonl';
const ABORTED = 'out/aborted.jsonl';

// ------------------------------------------------------------------------------ input and job

type Transfer =
  | { readonly id: number; readonly type: 'deposit'; readonly to: string; readonly amount: number }
  | {
      readonly id: number;
      readonly type: 'transfer';
      readonly from: string;
      readonly to: string;
      readonly amount: number;
    };

const TRANSFERS_CODE = `function keys(r) {
  return r.type === 'deposit' ? [['accounts', r.to]] : [['accounts', r.from], ['accounts', r.to]];
}

function transact(r, tx) {
  const to = tx.get('accounts', r.to) ?? 0;
  if (r.type === 'deposit') {
    tx.set('accounts', r.to, to + r.amount);
    tx.emit({ id: r.id, type: r.type, to: r.to, amount: r.amount, balance: to + r.amount });
    return;
  }
  const from = tx.get('accounts', r.from) ?? 0;
  if (from < r.amount) {
    // Written and emitted before the abort: none of it may apply.
    tx.set('accounts', r.to, to + r.amount);
    tx.emit({ id: r.id, type: 'never', from: r.from });
    tx.abort('overdraft');
    tx.emit({ id: r.id, from: r.from, balance: from, amount: r.amount, reason: 'overdraft' }, 'aborted');
    return;
  }
  tx.set('accounts', r.from, from - r.amount);
  tx.set('accounts', r.to, to + r.amount);
  tx.emit({ id: r.id, type: r.type, from: r.from, to: r.to, amount: r.amount, fromBalance: from - r.amount, toBalance: to + r.amount });
}`;

/**
 * Transfers between `accounts` accounts: every fifth a deposit, the others transfers from one
 * account to another. The generator follows the balances so that about one transfer in eight
 * asks for more than its account holds (and aborts) all along the input, the others for part
 * of it; so a transaction run out of the serial order changes which ones abort.
 */
function transfers(count: number, accounts: number): Transfer[] {
  const random = seededRandom(15_2026);
  const balances = new Array<number>(accounts).fill(0);
  const pick = () => Math.floor(random() * accounts);
  const rows: Transfer[] = [];
  for (let id = 0; id < count; id++) {
    const to = pick();
    if (id % 5 === 0) {
      const amount = 1 + Math.floor(random() * 300);
      balances[to]! += amount;
      rows.push({ id, type: 'deposit', to: `a${to}`, amount });
      continue;
    }
    let from = pick();
    while (from === to) from = pick();
    const held = balances[from]!;
    const overdraw = random() < 0.125;
    const amount = overdraw
      ? held + 1 + Math.floor(random() * 50)
      : 1 + Math.floor(random() * Math.max(held, 1));
    if (amount <= held) {
      balances[from] = held - amount;
      balances[to]! += amount;
    }
    rows.push({ id, type: 'transfer', from: `a${from}`, to: `a${to}`, amount });
  }
  return rows;
}

/** The job's output computed by a plain serial program: the lines of each sink. */
function serialOutput(rows: readonly Transfer[]): Map<string, string[]> {
  const balances = new Map<string, number>();
  const out: string[] = [];
  const aborted: string[] = [];
  for (const r of rows) {
    const to = balances.get(r.to) ?? 0;
    if (r.type === 'deposit') {
      balances.set(r.to, to + r.amount);
      out.push(
        JSON.stringify({ id: r.id, type: r.type, to: r.to, amount: r.amount, balance: to + r.amount }),
      );
      continue;
    }
    const from = balances.get(r.from) ?? 0;
    if (from < r.amount) {
      aborted.push(
        JSON.stringify({ id: r.id, from: r.from, balance: from, amount: r.amount, reason: 'overdraft' }),
      );
      continue;
    }
    balances.set(r.from, from - r.amount);
    balances.set(r.to, to + r.amount);
    out.push(
      JSON.stringify({
        id: r.id,
        type: r.type,
        from: r.from,
        to: r.to,
        amount: r.amount,
        fromBalance: from - r.amount,
        toBalance: to + r.amount,
      }),
    );
  }
  return new Map([
    [OUT, out],
    [ABORTED, aborted],
  ]);
}

interface Shape {
  /** Checkpoint interval (0: none). */
  readonly intervalMs: number;
  /** The transaction operator's parallelism. */
  readonly parallelism: number;
  readonly threads: number;
}

/**
 * evens, odds -> ledger (transaction; input edges rebalanced and hashed: the planner broadcasts
 * them) -> out; port aborted -> aborted.
 */
function transfersJob({ intervalMs, parallelism, threads }: Shape): JobDocument {
  return {
    format: 'pipewright.job/1',
    name: 'transfers',
    settings: {
      maxParallelism: 128,
      stateBackend: 'level',
      checkpointIntervalMs: intervalMs,
      checkpointsRetained: 3,
      threads,
    },
    operators: [
      { id: 'evens', kind: 'source.jsonl', parallelism: 1, params: { path: inputs[0] } },
      { id: 'odds', kind: 'source.jsonl', parallelism: 1, params: { path: inputs[1] } },
      {
        id: 'ledger',
        kind: 'transaction',
        parallelism,
        params: { tables: ['accounts'], code: TRANSFERS_CODE },
      },
      { id: 'out', kind: 'sink.jsonl', parallelism: 1, params: { path: OUT } },
      { id: 'aborted', kind: 'sink.jsonl', parallelism: 1, params: { path: ABORTED } },
    ],
    edges: [
      { id: 'evens-ledger', from: 'evens', to: 'ledger', partition: 'rebalance' },
      { id: 'odds-ledger', from: 'odds', to: 'ledger', partition: 'hash', key: 'to' },
      { id: 'ledger-out', from: 'ledger', to: 'out', partition: 'rebalance' },
      { id: 'ledger-aborted', from: 'ledger', fromPort: 'aborted', to: 'aborted', partition: 'rebalance' },
    ],
  };
}

// ------------------------------------------------------------------------------- runs and outputs

interface Run {
  readonly dir: string;
  readonly jobPath: string;
  readonly checkpointDir: string;
}

/** The even ids' file, then the odd ids': channel 0 and channel 1. */
let inputs: [string, string];
let reference: Map<string, string[]>;

async function makeRun(label: string, shape: Shape): Promise<Run> {
  const dir = await makeTempDir(`pipewright-txrestore-${label}-`);
  const jobPath = path.join(dir, 'transfers.job.json');
  await writeJob(jobPath, transfersJob(shape));
  return { dir, jobPath, checkpointDir: path.join(dir, '.pipewright', 'transfers', 'checkpoints') };
}

async function outputsOf(run: Run): Promise<Map<string, string[]>> {
  const outputs = new Map<string, string[]>();
  for (const file of [OUT, ABORTED]) outputs.set(file, await outputLines(path.join(run.dir, file)));
  return outputs;
}

function expectSameOutputs(actual: Map<string, string[]>, expected: Map<string, string[]>, context: string) {
  for (const [file, lines] of expected) {
    const difference = describeDifference(actual.get(file) ?? [], lines);
    expect(difference, `${context}\n${file}: ${difference}`).toBe('');
  }
}

interface Baseline {
  readonly outputs: Map<string, string[]>;
  readonly ms: number;
}

/** A clean run, without checkpoints, at parallelism 3 on one thread: what every other run must give. */
let baseline: Baseline;

beforeAll(async () => {
  const fixtures = await makeTempDir('pipewright-txrestore-inputs-');
  inputs = [path.join(fixtures, 'evens.jsonl'), path.join(fixtures, 'odds.jsonl')];
  const rows = transfers(TRANSACTIONS, ACCOUNTS);
  inputs.forEach((file, parity) => {
    const lines = rows.filter((r) => r.id % 2 === parity).map((r) => JSON.stringify(r));
    writeFileSync(file, `${lines.join('\n')}\n`);
  });
  reference = serialOutput(rows);
  const run = await makeRun('baseline', { intervalMs: 0, parallelism: 3, threads: 1 });
  const started = Date.now();
  const result = await runToEnd(['run', run.jobPath, '--quiet', '--trust'], run.dir);
  const ms = Date.now() - started;
  expect(result.code, describeResult(result)).toBe(0);
  baseline = { outputs: await outputsOf(run), ms };
  console.log(`transfers: a clean run took ${ms} ms`);
}, 120_000);

// ------------------------------------------------------------------------------------- tests

describe('the transfers job', () => {
  it('gives, run clean, the output of a plain serial program, with aborts all along the input', () => {
    const aborted = reference.get(ABORTED)!;
    expect(aborted.length).toBeGreaterThan(TRANSACTIONS / 50);
    // Aborts happen in the last tenth of the input too, not only while balances are low at its start.
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
      const run = await makeRun('kill', { intervalMs: CHECKPOINT_MS, parallelism: 3, threads });
      const attempts = await crashAndRestore({
        ...run,
        cwd: run.dir,
        kills: restoreKills(random),
      });
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
    }, 120_000);
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
      const shapeOf = (attempt: number): Shape => ({
        intervalMs: CHECKPOINT_MS,
        parallelism: attempt === 0 ? 3 : to,
        threads,
      });
      const run = await makeRun('rescale', shapeOf(0));
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
        beforeAttempt: (attempt) => writeJob(run.jobPath, transfersJob(shapeOf(attempt))),
      });
      const context = `seed ${seed}\n${describeAttempts(attempts)}`;
      console.log(`transfers rescaled 3 -> ${to}:\n${context}`);
      expectRestoredToEnd(attempts, 2, context);
      // The first restore (at `to`) resumed from a checkpoint of the first run (at 3).
      expect(attempts[1]?.restoredFrom, context).toEqual(expect.any(Number));
      expectSameOutputs(await outputsOf(run), baseline.outputs, context);
    },
    120_000,
  );
});
