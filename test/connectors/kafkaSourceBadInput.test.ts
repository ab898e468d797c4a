// source.kafka's bad input through the CLI: an unreachable broker (a short retryTimeoutMs), a
// topic that does not exist, a value that is not JSON: one line naming the operator and the
// cause, no stack trace, exit 1. (Skipping and counting a bad record: kafkaSource.test.ts.)
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { type CliResult, describeRun, makeTempDir, removeTempDirs, runCli, writeJob } from '../cliHarness.js';
import { kafkaJobDocument, makeTopic, produce, removeTopics } from './kafkaSourceHarness.js';
import { describeWithServer } from './servers.js';

afterAll(async () => {
  await removeTopics();
  await removeTempDirs();
});

async function runWith(params: Record<string, unknown>): Promise<CliResult> {
  const dir = await makeTempDir('pipewright-kafka-bad-');
  const jobPath = path.join(dir, 'read.job.json');
  const doc = kafkaJobDocument({ stopAt: 'latest', ...params });
  await writeJob(jobPath, doc);
  // A loaded machine starts the CLI slowly (40 s seen at a load of 20 on 2 cores).
  return runCli(['run', '--quiet', path.basename(jobPath)], { cwd: dir, timeoutMs: 150_000 });
}

function expectOneLine(result: CliResult, says: RegExp): void {
  expect(result.code, describeRun(result)).toBe(1);
  const printed = (result.stdout + result.stderr).trim();
  expect(printed, describeRun(result)).toMatch(says);
  expect(printed, describeRun(result)).not.toMatch(/\n\s+at /);
  const errorLines = printed.split('\n').filter((line) => line.includes('operator "kafka"'));
  expect(errorLines, describeRun(result)).toHaveLength(1);
}

await describeWithServer('kafka', 'source.kafka bad input', () => {
  it.concurrent('an unreachable broker fails after retryTimeoutMs, naming the operator and the server', async () => {
    const result = await runWith({ bootstrapServers: '127.0.0.1:1', topic: 'any', retryTimeoutMs: 800 });
    expectOneLine(
      result,
      /operator "kafka": Kafka at 127\.0\.0\.1:1 did not answer for .* \(retryTimeoutMs 800\)/,
    );
  });

  it.concurrent('a missing topic fails at open', async () => {
    const result = await runWith({ topic: 'no-such-topic-pipewright' });
    expectOneLine(result, /operator "kafka": Kafka topic "no-such-topic-pipewright" does not exist at \S+/);
  });

  it.concurrent('a value that is not JSON fails naming the topic, partition and offset', async () => {
    const topic = await makeTopic('src-bad', 1);
    await produce(topic, [
      { partition: 0, value: '{"id":1}' },
      { partition: 0, value: 'not json' },
    ]);
    const result = await runWith({ topic });
    expectOneLine(
      result,
      new RegExp(
        `operator "kafka": Kafka topic "${topic}" partition 0 offset 1 cannot be read: its value is not JSON`,
      ),
    );
  });
});
