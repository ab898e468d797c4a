// sink.kafka against a real broker: a bounded job writes exactly its records (read back as a
// read_committed consumer reads them), at parallelism 1 and 3, exactly once and at least once;
// with exactly once nothing is visible before the checkpoint that covers it completes; the
// record key is the keyField's value.
import { afterAll, expect, it } from 'vitest';
import {
  describeDifference,
  describeResult,
  inspectCheckpointDir,
  killHard,
  runToEnd,
  sleep,
  startCli,
  waitUntil,
} from '../checkpointHelpers.js';
import { removeTempDirs } from '../cliHarness.js';
import { expectedValues, makeSinkRun } from './kafkaSinkJobs.js';
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

await describeWithServer('kafka', 'sink.kafka', () => {
  for (const parallelism of [1, 3]) {
    for (const guarantee of ['exactly-once', 'at-least-once'] as const) {
      it(`a bounded job writes exactly its records (${guarantee}, parallelism ${parallelism})`, async () => {
        const records = 5_000;
        const topic = await newTopic(3);
        const run = await makeSinkRun(`bounded-${parallelism}`, {
          brokers: KAFKA_BROKERS,
          topic,
          parallelism,
          intervalMs: 200,
          guarantee,
          records,
        });
        const result = await runToEnd(['run', run.jobPath, '--quiet'], run.dir);
        expect(result.code, describeResult(result)).toBe(0);
        const read = await readCommitted(KAFKA_BROKERS, topic);
        expect(describeDifference(read.values, expectedValues(records))).toBe('');
        expect(read.openTransactions).toBe(false);
        // The key is the owner field, as text.
        const owners = read.values.map((v) => (JSON.parse(v) as { owner: string }).owner);
        expect(read.keys).toEqual(owners);
      }, 120_000);
    }
  }

  it('shows nothing to read_committed before the checkpoint that covers it completes', async () => {
    const topic = await newTopic(1);
    // A slow source and checkpoints 8 s apart: records are written long before their commit.
    const run = await makeSinkRun('invisible', {
      brokers: KAFKA_BROKERS,
      topic,
      parallelism: 1,
      intervalMs: 8_000,
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
      // After the first checkpoint completes (and is committed), what it covers is visible.
      const checkpointed = await waitUntil(
        () => inspectCheckpointDir(run.checkpointDir).completed.length > 0,
        {
          run: cli,
          timeoutMs: 20_000,
        },
      );
      expect(checkpointed, cli.stderr()).toBe(true);
      let visible: string[] = [];
      for (let i = 0; i < 100 && visible.length === 0; i++) {
        visible = (await readCommitted(KAFKA_BROKERS, topic)).values;
        await sleep(50);
      }
      expect(visible.length).toBeGreaterThan(0);
      // What is visible is a prefix of the output: the records of complete checkpoints only.
      expect(visible).toEqual(expectedValues(visible.length));
    } finally {
      await killHard(cli);
    }
  }, 60_000);
});
