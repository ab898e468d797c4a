// sink.kafka's bad input through the CLI: an unreachable broker (a short retryTimeoutMs) and a
// missing topic each end the run with one line naming the operator and the cause, no stack trace,
// exit 1; and the inspector's "Test connection" says the same in its own words.
import { afterAll, expect, it } from 'vitest';
import { sinkKafkaFactory } from '../../engine/operators/kafka/sink/kafkaSinkFactory.js';
import { describeResult, runToEnd } from '../checkpointHelpers.js';
import { removeTempDirs } from '../cliHarness.js';
import { makeSinkRun } from './kafkaSinkJobs.js';
import { createTopic, deleteTopic, uniqueName } from './kafkaSinkTopic.js';
import { describeWithServer, KAFKA_BROKERS } from './servers.js';

const UNREACHABLE = '127.0.0.1:1';
const topics: string[] = [];

afterAll(async () => {
  for (const topic of topics) await deleteTopic(KAFKA_BROKERS, topic);
  await removeTempDirs();
});

function lastLine(text: string): string {
  const lines = text.trim().split('\n');
  return lines[lines.length - 1]!;
}

await describeWithServer('kafka', 'sink.kafka bad input', () => {
  it.concurrent('an unreachable broker: one line naming the operator and the broker, exit 1', async () => {
    const run = await makeSinkRun('unreachable', {
      brokers: UNREACHABLE,
      topic: 'anything',
      parallelism: 1,
      intervalMs: 0,
      records: 10,
      retryTimeoutMs: 300,
    });
    const result = await runToEnd(['run', run.jobPath], run.dir);
    expect(result.code, describeResult(result)).toBe(1);
    expect(lastLine(result.stderr)).toMatch(
      /^pipewright: operator "out": Kafka at 127\.0\.0\.1:1 did not answer for .* while looking up topic "anything" \(retryTimeoutMs 300\)/,
    );
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it.concurrent('a missing topic: one line naming the operator and the topic, exit 1', async () => {
    const topic = uniqueName('pw-missing');
    const run = await makeSinkRun('missing', {
      brokers: KAFKA_BROKERS,
      topic,
      parallelism: 1,
      intervalMs: 0,
      records: 10,
    });
    const result = await runToEnd(['run', run.jobPath], run.dir);
    expect(result.code, describeResult(result)).toBe(1);
    expect(lastLine(result.stderr)).toBe(
      `pipewright: operator "out": Kafka topic "${topic}" does not exist at ${KAFKA_BROKERS}`,
    );
  });

  it.concurrent('Test connection: the broker answers and the topic has its partitions; or says what is wrong', async () => {
    const topic = uniqueName('pw-test-connection');
    topics.push(topic);
    await createTopic(KAFKA_BROKERS, topic, 3);
    const test = sinkKafkaFactory.testConnection!;
    expect(await test({ bootstrapServers: KAFKA_BROKERS, topic }, 'out')).toEqual({
      ok: true,
      message: `Kafka at ${KAFKA_BROKERS} answers; topic "${topic}" has 3 partitions`,
    });
    expect(await test({ bootstrapServers: KAFKA_BROKERS, topic: `${topic}-nope` }, 'out')).toEqual({
      ok: false,
      message: `Kafka at ${KAFKA_BROKERS} answers; topic "${topic}-nope" does not exist`,
    });
    const unreachable = await test({ bootstrapServers: UNREACHABLE, topic }, 'out');
    expect(unreachable.ok).toBe(false);
    expect(unreachable.message).toMatch(/^Kafka at 127\.0\.0\.1:1 does not answer: /);
  });
});
