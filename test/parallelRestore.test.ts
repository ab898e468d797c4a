// Runs of the parallel executor (settings.threads 2) killed with `kill -9` and restored with
// `--restore latest` end with exactly the output of a run that never failed: owner-has-items
// round its feedback edge, restored from a checkpoint that logged records in flight round the
// loop (on one thread the deterministic executor never has any there at a barrier, so only a run
// on several threads shows that the log comes back), and a keyed aggregation restored at other
// parallelisms and thread counts. One real kill each, at points early in their run (right after
// a checkpoint, then while one is being written), so they land however fast or loaded the
// machine is. Kills at random moments, again and again: parallelRestore.soak.test.ts.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aggJob, writeAggInput } from './aggJob.js';
import {
  type CheckpointMetadataJson,
  crashAndRestore,
  describeAttempts,
  describeDifference,
  expectRestoredToEnd,
  inspectCheckpointDir,
  outputLines,
  readMetadata,
} from './checkpointHelpers.js';
import { type JobDocument, makeTempDir, removeTempDirs, writeJob } from './cliHarness.js';
import { makeJobCase, sinkPathsOf } from './jobCase.js';
import { expectWaitsOfMoves, foldOwnership, isWaiting, ownersJob, writeOwnerEvents } from './ownerEvents.js';
import { failAndRestore } from './stepFailures.js';

afterAll(removeTempDirs);

const AGG_RECORDS = 40_000;
const AGG_KEYS = 2_000;
const OWNER_EVENTS = 12_000;

let aggInput: string;
let aggReference: string[];
let ownerEvents: string;
let finalOwners: Map<string, string>;
let moves: Set<number>;
let ownersReference: string[];

/** A run that never fails, without checkpoints, on the deterministic executor (in this process). */
async function cleanOutput(job: JobDocument): Promise<string[]> {
  const dir = await makeTempDir('pipewright-prestore-clean-');
  await failAndRestore({
    jobDir: dir,
    job: () => ({ ...job, settings: { ...job.settings, checkpointIntervalMs: 0 } }),
    checkpointEverySteps: Number.POSITIVE_INFINITY,
    failAtSteps: [],
  });
  return outputLines(path.resolve(dir, sinkPathsOf(job)[0]!));
}

beforeAll(async () => {
  const fixtures = await makeTempDir('pipewright-prestore-inputs-');
  aggInput = path.join(fixtures, 'records.jsonl');
  writeAggInput(aggInput, AGG_RECORDS, AGG_KEYS);
  ownerEvents = path.join(fixtures, 'owner-events.jsonl');
  ({ owners: finalOwners, moves } = writeOwnerEvents(ownerEvents, OWNER_EVENTS));
  aggReference = await cleanOutput(aggJob(aggInput, { intervalMs: 0, parallelism: 2 }));
  expect(aggReference).toHaveLength(AGG_RECORDS);
  ownersReference = await cleanOutput(await ownersJob(ownerEvents, 0, 1));
  expect(foldOwnership(ownersReference)).toEqual(finalOwners);
});

/** Records a checkpoint logged round a loop (their bytes). */
const feedbackBytes = (metadata: CheckpointMetadataJson): number =>
  (metadata.subtasks as CheckpointMetadataJson[]).reduce((n, s) => n + (s.feedback?.bytes ?? 0), 0);

describe('kill -9 of a parallel run, then --restore latest until done', () => {
  it('owner-has-items on 2 threads, restored from records in flight round its feedback edge, carries out every add and move exactly once', async () => {
    const c = await makeJobCase('prestore-owners', await ownersJob(ownerEvents, 50, 2));
    /** What each checkpoint a restore could resume from logged round the loop (read before it ran: older ones are removed). */
    const logged = new Map<number, number>();
    const attempts = await crashAndRestore({
      ...c,
      cwd: c.dir,
      kills: [
        // Right after a checkpoint that logged records in flight round the loop.
        { delayMs: 0, afterCheckpoint: true, checkpointHolds: (m) => feedbackBytes(m) > 0 },
        { delayMs: 0, duringCheckpoint: true },
      ],
      beforeAttempt: async () => {
        const newest = inspectCheckpointDir(c.checkpointDir).completed[0];
        if (newest !== undefined) logged.set(newest, feedbackBytes(readMetadata(c.checkpointDir, newest)));
      },
    });
    const context = describeAttempts(attempts);
    expectRestoredToEnd(attempts, 2, context);
    const restoredLogs = attempts
      .map((a) => a.restoredFrom)
      .filter((id): id is number => typeof id === 'number')
      .map((id) => logged.get(id) ?? 0);
    expect(
      restoredLogs.some((bytes) => bytes > 0),
      `no restore resumed from records logged round the loop (bytes: ${restoredLogs.join(', ')})\n${context}`,
    ).toBe(true);
    // Every owned and released record exactly once (same parallelism: the subtask in each record
    // too); whether a move waited depends on timing on any executor but the deterministic one.
    const lines = await outputLines(c.outPath);
    const effects = (all: readonly string[]) => all.filter((line) => !isWaiting(line));
    const difference = describeDifference(effects(lines), effects(ownersReference));
    expect(difference, `${context}\nowned/released:\n${difference}`).toBe('');
    expectWaitsOfMoves(lines, moves, context);
    expect(foldOwnership(lines)).toEqual(finalOwners);
  });

  it('a keyed aggregation killed on 2 threads at parallelism 2, restored at 3 on 2 threads and then at 4 on 1, ends with the same output', async () => {
    // parallelism / threads of each attempt.
    const shapes = [
      [2, 2],
      [3, 2],
      [4, 1],
    ] as const;
    const jobOf = (attempt: number) => {
      const [parallelism, threads] = shapes[Math.min(attempt, shapes.length - 1)]!;
      return aggJob(aggInput, { intervalMs: 60, parallelism, threads });
    };
    const c = await makeJobCase('prestore-rescale', jobOf(0));
    const attempts = await crashAndRestore({
      ...c,
      cwd: c.dir,
      kills: [
        { delayMs: 0, afterCheckpoint: true },
        { delayMs: 0, duringCheckpoint: true },
      ],
      beforeAttempt: (attempt) => writeJob(c.jobPath, jobOf(attempt)),
    });
    const context = describeAttempts(attempts);
    expectRestoredToEnd(attempts, 2, context);
    expect(
      attempts[1]!.killedWhileWriting,
      `the second kill hit a checkpoint being written\n${context}`,
    ).not.toEqual([]);
    // Each restore resumed from a checkpoint: the first of one taken at 2 on 2 threads.
    expect(attempts[1]!.restoredFrom, context).toEqual(expect.any(Number));
    expect(attempts[2]!.restoredFrom, context).toEqual(expect.any(Number));
    const lines = await outputLines(c.outPath);
    const difference = describeDifference(lines, aggReference);
    expect(difference, `${context}\n${difference}`).toBe('');
  });
});
