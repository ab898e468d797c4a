// source.kafka and sink.kafka on the Flink cluster of `npm run services` (issue 28): a job Kafka
// topic -> keyed process -> Kafka topic, with the source's records also straight into a JSONL
// file, run with `pipewright run` and with `pipewright flink --cluster`, gives the same output:
// the output topic read back read_committed holds the same messages (value and key bytes), each
// key's in the same order, and the file the same lines. A key's input is in one partition, as a
// keyed topic's is: across partitions Kafka gives no order, on either engine. A record that is
// not JSON and a missing topic fail the job on both with the same line.

import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import {
  describeRun,
  type JobDocument,
  makeTempDir,
  removeTempDirs,
  runCli,
  writeJob,
} from '../cliHarness.js';
import { byKey, FLINK_TIMEOUT, ON_FLINK } from '../flinkHarness.js';
import { readCommitted } from './kafkaSinkTopic.js';
import { makeTopic, type Produced, produce, removeTopics } from './kafkaSourceHarness.js';
import { describeWithServers, FLINK_URL, KAFKA_BROKERS } from './servers.js';

afterAll(async () => {
  await removeTopics();
  await removeTempDirs();
});

const KEYS = 37;
const RECORDS = 3000;

/** Records {k, i, v}, each key's in one of the 3 partitions, a few with headers. */
function input(): Produced[] {
  return Array.from({ length: RECORDS }, (_, i) => ({
    partition: (i % KEYS) % 3,
    key: `k${i % KEYS}`,
    value: JSON.stringify({ k: `k${i % KEYS}`, i, v: (i * 7) % 13 }),
    ...(i % 500 === 0 ? { headers: { trace: `t${i}`, '2': 'two' } } : {}),
  }));
}

/**
 * The job: the source's records with their metadata, hashed by their Kafka key into a keyed
 * running sum written to `out` (keyed by k), and as they are into records.jsonl.
 */
function job(name: string, inTopic: string, outTopic: string): JobDocument {
  return {
    format: 'pipewright.job/1',
    name,
    settings: { checkpointIntervalMs: 500 },
    operators: [
      {
        id: 'in',
        kind: 'source.kafka',
        parallelism: 2,
        params: { bootstrapServers: KAFKA_BROKERS, topic: inTopic, stopAt: 'latest', includeMetadata: true },
      },
      {
        id: 'acc',
        kind: 'process',
        parallelism: 2,
        params: {
          code: `function process(r, ctx) {
  const s = ctx.state.value('s');
  const a = s.get() ?? { n: 0, sum: 0 };
  a.n += 1; a.sum += r.value.v;
  s.set(a);
  ctx.emit({ k: r.key, i: r.value.i, n: a.n, sum: a.sum, p: r.partition, h: r.headers.trace ?? null });
}`,
        },
      },
      {
        id: 'out',
        kind: 'sink.kafka',
        parallelism: 2,
        params: { bootstrapServers: KAFKA_BROKERS, topic: outTopic, keyField: 'k' },
      },
      { id: 'records', kind: 'sink.jsonl', params: { path: 'records.jsonl' } },
    ],
    edges: [
      { id: 'in-acc', from: 'in', to: 'acc', partition: 'hash', key: 'key' },
      { id: 'acc-out', from: 'acc', to: 'out', partition: 'forward' },
      { id: 'in-records', from: 'in', to: 'records', partition: 'rebalance' },
    ],
  };
}

/** Runs the job with `args` (run, or flink --cluster); its topic read back and its file's lines. */
async function runJob(engine: 'local' | 'flink', inTopic: string) {
  const outTopic = await makeTopic(`flink-kafka-out-${engine}`, 2);
  const dir = await makeTempDir(`pipewright-flink-kafka-${engine}-`);
  const name = `${path.basename(dir)}-${engine}`;
  const jobPath = path.join(dir, 'job.job.json');
  await writeJob(jobPath, job(name, inTopic, outTopic));
  const ran =
    engine === 'local'
      ? await runCli(['run', jobPath, '--quiet'])
      : await runCli(['flink', jobPath, '--cluster', FLINK_URL, '--quiet'], ON_FLINK);
  expect(ran.code, describeRun(ran)).toBe(0);
  const topic = await readCommitted(KAFKA_BROKERS, outTopic);
  // The lines as written: the same text, not just the same JSON.
  const lines = (await readFile(path.join(dir, 'records.jsonl'), 'utf8')).split('\n').filter((l) => l !== '');
  return { topic, lines: lines.sort() };
}

await describeWithServers(['kafka', 'flink'], 'source.kafka and sink.kafka on Flink', () => {
  it(
    "gives the local engine's messages, read_committed, and its records",
    async () => {
      const inTopic = await makeTopic('flink-kafka-in', 3);
      await produce(inTopic, input());
      const local = await runJob('local', inTopic);
      const flink = await runJob('flink', inTopic);
      expect(local.topic.values.length).toBe(RECORDS);
      expect(flink.topic.openTransactions).toBe(false);
      // The same messages: values and keys byte for byte, each key's in the same order.
      const keyed = ({ values, keys }: { values: string[]; keys: (string | null)[] }) =>
        byKey(
          values.map((v, i) => ({ key: keys[i], v })),
          'key',
        );
      expect(keyed(flink.topic)).toEqual(keyed(local.topic));
      expect(
        flink.topic.keys.every((k, i) => k === (JSON.parse(flink.topic.values[i]!) as { k: string }).k),
      ).toBe(true);
      expect(flink.lines).toEqual(local.lines);
      expect(flink.lines.length).toBe(RECORDS);
    },
    2 * FLINK_TIMEOUT,
  );

  it(
    "fails at once with the local engine's line for a record that is not JSON and a missing topic",
    async () => {
      const inTopic = await makeTopic('flink-kafka-bad', 1);
      await produce(inTopic, [
        { partition: 0, value: '{"k":1}' },
        { partition: 0, value: '{"k":' },
      ]);
      const dir = await makeTempDir('pipewright-flink-kafka-bad-');
      const lines = async (sinkTopic: string): Promise<[string, string]> => {
        const jobPath = path.join(dir, 'bad.job.json');
        await writeJob(jobPath, {
          format: 'pipewright.job/1',
          name: `${path.basename(dir)}-bad`,
          operators: [
            {
              id: 'in',
              kind: 'source.kafka',
              params: { bootstrapServers: KAFKA_BROKERS, topic: inTopic, stopAt: 'latest' },
            },
            { id: 'out', kind: 'sink.kafka', params: { bootstrapServers: KAFKA_BROKERS, topic: sinkTopic } },
          ],
          edges: [{ id: 'e', from: 'in', to: 'out', partition: 'forward' }],
        });
        const local = await runCli(['run', jobPath, '--quiet']);
        const flink = await runCli(['flink', jobPath, '--cluster', FLINK_URL, '--quiet'], ON_FLINK);
        expect(local.code, describeRun(local)).toBe(1);
        expect(flink.code, describeRun(flink)).toBe(1);
        return [local.stderr.trim(), flink.stderr.trim()];
      };
      const [localMissing, flinkMissing] = await lines(`flink-kafka-missing-${path.basename(dir)}`);
      expect(flinkMissing).toBe(localMissing);
      expect(flinkMissing).toMatch(
        /^pipewright: operator "out": Kafka topic "flink-kafka-missing-.*" does not exist at /,
      );
      // The parser's words differ (JSON.parse's, Jackson's): the rest is the same line.
      const [localBad, flinkBad] = await lines(await makeTopic('flink-kafka-bad-out', 1));
      const upToWords = (line: string) => line.slice(0, line.lastIndexOf('('));
      expect(upToWords(flinkBad)).toBe(upToWords(localBad));
      expect(flinkBad).toMatch(
        /^pipewright: operator "in": Kafka topic "flink-kafka-bad-.*" partition 0 offset 1 cannot be read: its value is not JSON \(.+\)$/,
      );
    },
    2 * FLINK_TIMEOUT,
  );
});
