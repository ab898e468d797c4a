// Soak: sink.kafka exactly once under kill -9: the job (source.jsonl -> map -> sink.kafka) killed at
// random moments and restored with `--restore latest` until it finishes leaves in the topic, read
// as a read_committed consumer reads it, exactly the clean run's records: none lost, none twice,
// and no transaction left open. Also with the parallelism changed between restores (3 -> 1 -> 2),
// so that a restore at a lower parallelism aborts what the subtasks gone left open. At least once
// under the same kills has every record (duplicates allowed). Kill times come from a seeded PRNG:
// random here, printed; PIPEWRIGHT_TEST_SEED repeats them (as far as a machine's timing allows).
// `npm test` has one kill per kind, at fixed moments, in kafkaRestore.test.ts.
import { afterAll, expect, it } from 'vitest';
import {
  crashAndRestore,
  describeAttempts,
  describeDifference,
  describeResult,
  expectRestoredToEnd,
  killPlans,
  randomFor,
  runToEnd,
  testSeed,
} from '../checkpointHelpers.js';
import { readJob, removeTempDirs, writeJob } from '../cliHarness.js';
import { expectedValues, makeSinkRun, type SinkJobShape } from './kafkaSinkJobs.js';
import { createTopic, deleteTopic, readCommitted, uniqueName } from './kafkaSinkTopic.js';
import { describeWithServer, KAFKA_BROKERS } from './servers.js';

const RECORDS = 25_000;
/** About 10 s of records: kills at random moments fall inside the run, however loaded the machine. */
const RATE = 2_500;
const seed = testSeed();
const topics: string[] = [];

afterAll(async () => {
  for (const topic of topics) await deleteTopic(KAFKA_BROKERS, topic);
  await removeTempDirs();
});

async function newTopic(): Promise<string> {
  const topic = uniqueName('pw-sink-restore');
  topics.push(topic);
  await createTopic(KAFKA_BROKERS, topic, 3);
  return topic;
}

/** How long a clean run of `shape` takes (the kills are spread over it). */
async function cleanRunMs(shape: SinkJobShape): Promise<number> {
  const run = await makeSinkRun('clean', { ...shape, topic: await newTopic() });
  const started = Date.now();
  const result = await runToEnd(['run', run.jobPath, '--quiet'], run.dir, 120_000);
  expect(result.code, describeResult(result)).toBe(0);
  const read = await readCommitted(KAFKA_BROKERS, (await readJob(run.jobPath)).operators[2].params.topic);
  expect(describeDifference(read.values, expectedValues(RECORDS))).toBe('');
  return Date.now() - started;
}

async function crashRun(label: string, shape: SinkJobShape, parallelisms: readonly number[]) {
  const topic = await newTopic();
  const run = await makeSinkRun(label, { ...shape, topic });
  const baselineMs = await cleanRunMs(shape);
  const random = randomFor(seed, label);
  const attempts = await crashAndRestore({
    jobPath: run.jobPath,
    cwd: run.dir,
    checkpointDir: run.checkpointDir,
    kills: killPlans(random, 3, baselineMs, 0.1, 0.4),
    timeoutMs: 120_000,
    beforeAttempt: async (attempt) => {
      const job = await readJob(run.jobPath);
      const parallelism = parallelisms[attempt % parallelisms.length]!;
      job.operators[1].parallelism = parallelism;
      job.operators[2].parallelism = parallelism;
      await writeJob(run.jobPath, job);
    },
  });
  const context = `seed ${seed}\n${describeAttempts(attempts)}`;
  expectRestoredToEnd(attempts, 2, context);
  return { topic, context };
}

await describeWithServer('kafka', 'sink.kafka under kill -9 and restore', () => {
  it("exactly once: the topic holds exactly the clean run's records", async () => {
    const shape = {
      brokers: KAFKA_BROKERS,
      topic: '',
      parallelism: 2,
      intervalMs: 300,
      records: RECORDS,
      ratePerSecond: RATE,
    };
    const { topic, context } = await crashRun('exactly-once', shape, [2]);
    const read = await readCommitted(KAFKA_BROKERS, topic);
    expect(describeDifference(read.values, expectedValues(RECORDS)), context).toBe('');
    expect(read.openTransactions, context).toBe(false);
  });

  it('exactly once, restored at other parallelisms (3 -> 1 -> 2)', async () => {
    const shape = {
      brokers: KAFKA_BROKERS,
      topic: '',
      parallelism: 3,
      intervalMs: 300,
      records: RECORDS,
      ratePerSecond: RATE,
    };
    const { topic, context } = await crashRun('rescaled', shape, [3, 1, 2]);
    const read = await readCommitted(KAFKA_BROKERS, topic);
    expect(describeDifference(read.values, expectedValues(RECORDS)), context).toBe('');
    expect(read.openTransactions, context).toBe(false);
  });

  it('at least once: every record is there (some maybe twice)', async () => {
    const shape = {
      brokers: KAFKA_BROKERS,
      topic: '',
      parallelism: 2,
      intervalMs: 300,
      records: RECORDS,
      ratePerSecond: RATE,
      guarantee: 'at-least-once' as const,
    };
    const { topic, context } = await crashRun('at-least-once', shape, [2]);
    const read = await readCommitted(KAFKA_BROKERS, topic);
    expect(new Set(read.values), context).toEqual(new Set(expectedValues(RECORDS)));
  });
});
