// Soak (a broker of its own, started and stopped): sink.kafka while its broker goes away (a private
// broker of this test's own, stopped mid-run): stopped for a few seconds, the job waits, its output
// saying what for, and goes on when the broker is back, the topic then holding exactly the job's
// records; stopped for longer than retryTimeoutMs, the job fails with one line naming the operator
// and the broker, and `--restore latest` with the broker back ends with exactly the job's records.
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  describeDifference,
  describeResult,
  finish,
  inspectCheckpointDir,
  runToEnd,
  sleep,
  startCli,
  waitUntil,
} from '../checkpointHelpers.js';
import { removeTempDirs } from '../cliHarness.js';
import { expectedValues, makeSinkRun, type SinkJobShape } from './kafkaSinkJobs.js';
import { createTopic, readCommitted, uniqueName } from './kafkaSinkTopic.js';
import { type PrivateKafka, startPrivateKafka } from './privateServers.js';
import { describeWithServer } from './servers.js';

const RECORDS = 12_000;
let kafka: PrivateKafka;

await describeWithServer('kafka', 'sink.kafka when its broker goes away', () => {
  beforeAll(async () => {
    kafka = await startPrivateKafka();
  });

  afterAll(async () => {
    await kafka?.close();
    await removeTempDirs();
  });

  async function outageRun(label: string, retryTimeoutMs: number) {
    const topic = uniqueName(`pw-sink-${label}`);
    await createTopic(kafka.brokers, topic, 2);
    const shape: SinkJobShape = {
      brokers: kafka.brokers,
      topic,
      parallelism: 2,
      intervalMs: 500,
      records: RECORDS,
      // About 12 s of records: the broker goes away in the middle.
      ratePerSecond: 1_000,
      retryTimeoutMs,
    };
    const run = await makeSinkRun(label, shape);
    const cli = startCli(['run', run.jobPath], run.dir);
    const checkpointed = await waitUntil(() => inspectCheckpointDir(run.checkpointDir).completed.length > 0, {
      run: cli,
      timeoutMs: 60_000,
    });
    expect(checkpointed, cli.stderr()).toBe(true);
    return { topic, run, cli };
  }

  it('waits out a broker stopped for a few seconds, saying so, and writes exactly its records', async () => {
    const { topic, cli } = await outageRun('outage', 120_000);
    await kafka.stop();
    const waiting = await waitUntil(() => /waiting for Kafka at localhost:\d+/.test(cli.stderr()), {
      run: cli,
      timeoutMs: 30_000,
    });
    await sleep(3_000);
    await kafka.start();
    const result = await finish(cli, 180_000, 'the run through the outage');
    expect(waiting, describeResult(result)).toBe(true);
    expect(result.code, describeResult(result)).toBe(0);
    const read = await readCommitted(kafka.brokers, topic);
    expect(describeDifference(read.values, expectedValues(RECORDS))).toBe('');
    expect(read.openTransactions).toBe(false);
  });

  it('fails with one clear line once the broker is gone longer than retryTimeoutMs, and restores exactly', async () => {
    const { topic, run, cli } = await outageRun('gone', 3_000);
    await kafka.stop();
    const result = await finish(cli, 120_000, 'the run whose broker went away');
    await kafka.start();
    expect(result.code, describeResult(result)).toBe(1);
    const lines = result.stderr.trim().split('\n');
    const last = lines[lines.length - 1]!;
    expect(last).toMatch(/operator "out".*Kafka at localhost:\d+ did not answer for .*retryTimeoutMs 3000/);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    const restored = await runToEnd(['run', run.jobPath, '--restore', 'latest', '--quiet'], run.dir, 180_000);
    expect(restored.code, describeResult(restored)).toBe(0);
    const read = await readCommitted(kafka.brokers, topic);
    expect(describeDifference(read.values, expectedValues(RECORDS))).toBe('');
    expect(read.openTransactions).toBe(false);
  });
});
