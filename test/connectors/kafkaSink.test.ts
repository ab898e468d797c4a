// sink.kafka against a real broker: a bounded job writes exactly its records (read back as a
// read_committed consumer reads them), at parallelism 1 and 3, exactly once and at least once
// (one run of a job with a sink of each); with exactly once nothing is visible before the
// checkpoint that covers it completes (a run of its own, beside the other); the record key is
// the keyField's value.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  describeDifference,
  describeResult,
  finish,
  inspectCheckpointDir,
  killHard,
  runToEnd,
  sleep,
  startCli,
} from '../checkpointHelpers.js';
import { type JobDocument, makeTempDir, removeTempDirs, writeJob } from '../cliHarness.js';
import { expectedValues, inputRecords, MAP_CODE, makeSinkRun } from './kafkaSinkJobs.js';
import { createTopic, deleteTopic, readCommitted, uniqueName } from './kafkaSinkTopic.js';
import { describeWithServer, KAFKA_BROKERS } from './servers.js';

const topics: string[] = [];
afterAll(async () => {
  for (const topic of topics) await deleteTopic(KAFKA_BROKERS, topic);
  await removeTempDirs();
});

async function newTopic(partitions: number): Promise<string> {
  const topic = uniqueName('pw-sink');
  topics.push(topic);
  await createTopic(KAFKA_BROKERS, topic, partitions);
  return topic;
}

const RECORDS = 5_000;
const runId = uniqueName('pw-tx');
const SINKS = [1, 3].flatMap((parallelism) =>
  (['exactly-once', 'at-least-once'] as const).map((guarantee) => ({
    id: `out-${parallelism}-${guarantee}`,
    parallelism,
    guarantee,
  })),
);

/**
 * input.jsonl -> map -> sink.kafka, a map and the sinks behind it at parallelism 1 and 3, a sink of
 * each guarantee behind each map, each sink writing its own topic: one run for the four.
 */
function boundedJob(input: string, topicOf: Map<string, string>): JobDocument {
  return {
    format: 'pipewright.job/1',
    name: 'kafka-sinks',
    settings: { checkpointIntervalMs: 200, checkpointsRetained: 3 },
    operators: [
      { id: 'events', kind: 'source.jsonl', parallelism: 1, params: { path: input } },
      ...[1, 3].map((parallelism) => ({
        id: `double-${parallelism}`,
        kind: 'map',
        parallelism,
        params: { code: MAP_CODE },
      })),
      ...SINKS.map((sink) => ({
        id: sink.id,
        kind: 'sink.kafka',
        parallelism: sink.parallelism,
        params: {
          bootstrapServers: KAFKA_BROKERS,
          topic: topicOf.get(sink.id),
          keyField: 'owner',
          deliveryGuarantee: sink.guarantee,
          // Of this run's own (see makeSinkRun).
          transactionalIdPrefix: `${runId}-${sink.id}`,
        },
      })),
    ],
    edges: [
      ...[1, 3].map((parallelism) => ({
        id: `events-double-${parallelism}`,
        from: 'events',
        to: `double-${parallelism}`,
        partition: 'rebalance',
      })),
      ...SINKS.map((sink) => ({
        id: `double-${sink.id}`,
        from: `double-${sink.parallelism}`,
        to: sink.id,
        partition: 'forward',
      })),
    ],
  };
}

await describeWithServer('kafka', 'sink.kafka', () => {
  const topicOf = new Map<string, string>();
  /** The bounded job's run, going on while the visibility test runs; its cases await it. */
  let bounded: Promise<void>;
  beforeAll(() => {
    bounded = runBounded();
    // Awaited (and its failure reported) by each case.
    bounded.catch(() => {});
  });

  async function runBounded(): Promise<void> {
    for (const sink of SINKS) topicOf.set(sink.id, await newTopic(3));
    const dir = await makeTempDir('pipewright-kafkasink-bounded-');
    const input = path.join(dir, 'events.jsonl');
    writeFileSync(
      input,
      `${inputRecords(RECORDS)
        .map((r) => JSON.stringify(r))
        .join('\n')}\n`,
    );
    const jobPath = path.join(dir, 'sinks.job.json');
    await writeJob(jobPath, boundedJob(input, topicOf));
    const result = await runToEnd(['run', jobPath, '--quiet'], dir);
    expect(result.code, describeResult(result)).toBe(0);
  }

  it.concurrent.each(SINKS)(
    'a bounded job writes exactly its records ($guarantee, parallelism $parallelism)',
    async (sink) => {
      await bounded;
      const read = await readCommitted(KAFKA_BROKERS, topicOf.get(sink.id)!);
      expect(describeDifference(read.values, expectedValues(RECORDS))).toBe('');
      expect(read.openTransactions).toBe(false);
      // The key is the owner field, as text.
      const owners = read.values.map((v) => (JSON.parse(v) as { owner: string }).owner);
      expect(read.keys).toEqual(owners);
    },
  );

  it.concurrent('shows nothing to read_committed before the checkpoint that covers it completes', async () => {
    const topic = await newTopic(1);
    // A slow source, and no checkpoint until the clean stop below takes one (the interval is an
    // hour): records are written long before their commit, however slow the machine.
    const run = await makeSinkRun('invisible', {
      brokers: KAFKA_BROKERS,
      topic,
      parallelism: 1,
      intervalMs: 3_600_000,
      records: 100_000,
      ratePerSecond: 2_000,
    });
    const cli = startCli(['run', run.jobPath, '--quiet'], run.dir);
    try {
      // Records are sent (a transaction is open) before any checkpoint completes; none is visible.
      let before = await readCommitted(KAFKA_BROKERS, topic);
      while (!before.openTransactions && !cli.exited()) {
        await sleep(100);
        before = await readCommitted(KAFKA_BROKERS, topic);
      }
      expect(inspectCheckpointDir(run.checkpointDir).completed).toEqual([]);
      expect(before.openTransactions, cli.stderr()).toBe(true);
      expect(before.values).toEqual([]);
      // SIGTERM: the run takes a checkpoint and stops once it has completed (and is committed).
      cli.child.kill('SIGTERM');
      const result = await finish(cli, 120_000, 'the run stopped with SIGTERM');
      expect(result.code, describeResult(result)).toBe(0);
      expect(inspectCheckpointDir(run.checkpointDir).completed).toHaveLength(1);
      const after = await readCommitted(KAFKA_BROKERS, topic);
      expect(after.values.length).toBeGreaterThan(0);
      // What is visible is a prefix of the output: the records of the complete checkpoint only.
      expect(after.values).toEqual(expectedValues(after.values.length));
    } finally {
      await killHard(cli);
    }
  });
});
