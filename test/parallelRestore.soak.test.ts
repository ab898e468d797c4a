// Soak: runs of the parallel executor (settings.threads 2, checkpoints every 50-100 ms) killed
// with `kill -9` at random moments and restored with `--restore latest`, again and again, end
// with exactly the output of a run that never failed: a keyed aggregation, owner-has-items round
// its feedback edge, an aggregation restored at other parallelisms and thread counts, and a job
// whose state is list and map state (lists cleared by key and by range).
//
// Kill times come from a seeded PRNG: random here, printed, and PIPEWRIGHT_TEST_SEED=<seed>
// repeats them (as far as the timing of a machine allows). `npm test` has one real kill of each
// (test/parallelRestore.test.ts).
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
  type KillPlan,
  killPlans,
  outputLines,
  randomFor as randomForSeed,
  runToEnd,
  testSeed,
} from './checkpointHelpers.js';
import { type JobDocument, makeTempDir, removeTempDirs, writeJob } from './cliHarness.js';
import { collectionsJob, writeCollectionsInput } from './collectionsJob.js';
import { expectWaitsOfMoves, foldOwnership, isWaiting, ownersJob, writeOwnerEvents } from './ownerEvents.js';

afterAll(removeTempDirs);

const seed = testSeed();

const randomFor = (label: string) => randomForSeed(seed, label);

// ---------------------------------------------------------------------------------- the jobs

const AGG_RECORDS = 150_000;
const AGG_KEYS = 3_000;

const OWNER_EVENTS = 30_000;

/** 400 records a key: each large list fills and is cleared once, each small one 57 times. */
const COLLECTION_RECORDS = 60_000;
const COLLECTION_KEYS = 150;

// ------------------------------------------------------------------------------- runs and cases

interface Case {
  readonly dir: string;
  readonly jobPath: string;
  readonly outPath: string;
  readonly checkpointDir: string;
}

async function makeCase(label: string, job: JobDocument): Promise<Case> {
  const dir = await makeTempDir(`pipewright-prestore-${label}-`);
  const jobPath = path.join(dir, `${job.name}.job.json`);
  await writeJob(jobPath, job);
  const sink = (job.operators as JobDocument[]).find((op) => op.kind === 'sink.jsonl')!;
  return {
    dir,
    jobPath,
    outPath: path.join(dir, sink.params.path as string),
    checkpointDir: path.join(dir, '.pipewright', job.name as string, 'checkpoints'),
  };
}

interface Baseline {
  readonly lines: string[];
  readonly ms: number;
}

/** A run that never fails, without checkpoints. */
async function runBaseline(label: string, job: JobDocument): Promise<Baseline> {
  const c = await makeCase(label, job);
  const started = Date.now();
  // Trusted: every case reads the one input, outside its own folder (docs/security.md).
  const result = await runToEnd(['run', c.jobPath, '--trust', '--quiet'], c.dir);
  const ms = Date.now() - started;
  expect(result.code, describeResult(result)).toBe(0);
  return { lines: await outputLines(c.outPath), ms };
}

let aggInput: string;
let aggBaseline: Baseline;
let parallelAggMs: number;
let ownerEvents: string;
let finalOwners: Map<string, string>;
let moves: Set<number>;
let ownersBaseline: Baseline;
let collectionsInput: string;
let collectionsBaseline: Baseline;

beforeAll(async () => {
  const fixtures = await makeTempDir('pipewright-prestore-inputs-');
  aggInput = path.join(fixtures, 'records.jsonl');
  writeAggInput(aggInput, AGG_RECORDS, AGG_KEYS);
  ownerEvents = path.join(fixtures, 'owner-events.jsonl');
  ({ owners: finalOwners, moves } = writeOwnerEvents(ownerEvents, OWNER_EVENTS));
  // The references come from the deterministic executor; the kill times from the parallel one.
  aggBaseline = await runBaseline(
    'agg-baseline',
    aggJob(aggInput, { intervalMs: 0, parallelism: 2, threads: 1 }),
  );
  expect(aggBaseline.lines).toHaveLength(AGG_RECORDS);
  parallelAggMs = (
    await runBaseline('agg-parallel', aggJob(aggInput, { intervalMs: 0, parallelism: 2, threads: 2 }))
  ).ms;
  ownersBaseline = await runBaseline('owners-baseline', await ownersJob(ownerEvents, 0, 1));
  expect(foldOwnership(ownersBaseline.lines)).toEqual(finalOwners);
  collectionsInput = path.join(fixtures, 'collections.jsonl');
  writeCollectionsInput(collectionsInput, COLLECTION_RECORDS, COLLECTION_KEYS);
  collectionsBaseline = await runBaseline(
    'collections-baseline',
    collectionsJob(collectionsInput, { intervalMs: 0, parallelism: 2, threads: 1 }),
  );
  expect(collectionsBaseline.lines).toHaveLength(COLLECTION_RECORDS);
  // Both sizes of list filled and were read back whole before their clear.
  const cleared = collectionsBaseline.lines.map((line) => JSON.parse(line)).filter((r) => 'count' in r);
  expect(new Set(cleared.map((r) => r.count))).toEqual(new Set([7, 300]));
});

async function expectOutput(c: Case, expected: readonly string[], context: string): Promise<string[]> {
  const lines = await outputLines(c.outPath);
  const difference = describeDifference(lines, expected);
  expect(difference, `${context}\n${difference}`).toBe('');
  return lines;
}

// ------------------------------------------------------------------------------------- tests

describe('kill -9 of a parallel run at random moments, then --restore latest until done', () => {
  it('a keyed aggregation on 2 threads ends with exactly the output of a run that never failed', async () => {
    const random = randomFor('parallel keyed aggregation');
    const c = await makeCase('agg', aggJob(aggInput, { intervalMs: 60, parallelism: 2, threads: 2 }));
    const kills = killPlans(random, 4, parallelAggMs, 0.1, 0.35);
    const attempts = await crashAndRestore({ ...c, cwd: c.dir, kills });
    const context = `seed ${seed}\n${describeAttempts(attempts)}`;
    console.log(`parallel keyed aggregation:\n${context}`);
    expectRestoredToEnd(attempts, 3, context);
    await expectOutput(c, aggBaseline.lines, context);
  });

  it('owner-has-items on 2 threads, with its feedback edge, carries out every add and move exactly once', async () => {
    const random = randomFor('parallel owner-has-items');
    const c = await makeCase('owners', await ownersJob(ownerEvents, 50, 2));
    const kills = killPlans(random, 4, ownersBaseline.ms, 0.15, 0.45);
    const attempts = await crashAndRestore({ ...c, cwd: c.dir, kills });
    const context = `seed ${seed}\n${describeAttempts(attempts)}`;
    console.log(`parallel owner-has-items:\n${context}`);
    expectRestoredToEnd(attempts, 3, context);
    // Every owned and released record exactly once (same parallelism: the subtask in each
    // record too); whether a move waited depends on timing on any executor but the deterministic one.
    const lines = await outputLines(c.outPath);
    const effects = (all: readonly string[]) => all.filter((line) => !isWaiting(line));
    const difference = describeDifference(effects(lines), effects(ownersBaseline.lines));
    expect(difference, `${context}\nowned/released:\n${difference}`).toBe('');
    expectWaitsOfMoves(lines, moves, context);
    expect(foldOwnership(lines)).toEqual(finalOwners);
  });

  it('list and map state on 2 threads, lists cleared by key and by range, end with exactly the output of a run that never failed', async () => {
    const random = randomFor('parallel list and map state');
    const c = await makeCase(
      'collections',
      collectionsJob(collectionsInput, { intervalMs: 60, parallelism: 2, threads: 2 }),
    );
    const kills = killPlans(random, 4, collectionsBaseline.ms, 0.1, 0.35);
    const attempts = await crashAndRestore({ ...c, cwd: c.dir, kills });
    const context = `seed ${seed}\n${describeAttempts(attempts)}`;
    console.log(`parallel list and map state:\n${context}`);
    expectRestoredToEnd(attempts, 3, context);
    await expectOutput(c, collectionsBaseline.lines, context);
  });

  it('a run killed on 2 threads at parallelism 2 and restored at other parallelisms and thread counts ends with the same output', async () => {
    const random = randomFor('parallel rescale');
    const c = await makeCase('rescale', aggJob(aggInput, { intervalMs: 60, parallelism: 2, threads: 2 }));
    // parallelism / threads of each attempt: 2/2, then 3/2, 1/3, 4/1 and to the end at 3/3.
    const shapes = [
      [2, 2],
      [3, 2],
      [1, 3],
      [4, 1],
      [3, 3],
    ] as const;
    const kills: KillPlan[] = [
      { delayMs: between(random, 0, 0.1 * parallelAggMs), afterCheckpoint: true },
      { delayMs: between(random, 0.1 * parallelAggMs, 0.3 * parallelAggMs), afterCheckpoint: true },
      { delayMs: between(random, 0.1 * parallelAggMs, 0.3 * parallelAggMs), afterCheckpoint: true },
      { delayMs: between(random, 0.1 * parallelAggMs, 0.3 * parallelAggMs), afterCheckpoint: true },
    ];
    const attempts = await crashAndRestore({
      ...c,
      cwd: c.dir,
      kills,
      beforeAttempt: async (attempt) => {
        const [parallelism, threads] = shapes[Math.min(attempt, shapes.length - 1)]!;
        await writeJob(
          c.jobPath,
          aggJob(aggInput, { intervalMs: 60, parallelism: parallelism, threads: threads }),
        );
      },
    });
    const context = `seed ${seed}\n${describeAttempts(attempts)}`;
    console.log(`parallel rescale:\n${context}`);
    expectRestoredToEnd(attempts, 2, context);
    // The first restore (at parallelism 3) resumed from a checkpoint of the first run (parallelism 2, 2 threads).
    expect(attempts[1]?.restoredFrom, context).toEqual(expect.any(Number));
    await expectOutput(c, aggBaseline.lines, context);
  });
});
