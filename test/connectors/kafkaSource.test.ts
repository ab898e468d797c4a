// source.kafka against the real broker: where a fresh run starts (earliest, latest, a timestamp,
// a group's committed offsets), how records look (JSON, strings, metadata with key and headers),
// partitions spread over subtasks, and aborted transactions never read.
import { afterAll, expect, it } from 'vitest';
import { sourceKafkaFactory } from '../../engine/operators/kafka/source/sourceKafka.js';
import { makeTempDir, removeTempDirs } from '../cliHarness.js';
import { runJob } from '../executors.js';
import {
  idsOf,
  kafkaJob,
  makeTopic,
  numbered,
  outputOf,
  produce,
  range,
  removeTopics,
  withAdmin,
} from './kafkaSourceHarness.js';
import { describeWithServer, KAFKA_BROKERS } from './servers.js';

afterAll(async () => {
  await removeTopics();
  await removeTempDirs();
});

async function read(params: Record<string, unknown>, parallelism = 1) {
  const dir = await makeTempDir('pipewright-kafka-source-');
  const summary = await runJob('deterministic', kafkaJob({ stopAt: 'latest', ...params }, { parallelism }), {
    jobDir: dir,
    stateDir: `${dir}/state`,
  });
  return { out: await outputOf(dir), summary };
}

await describeWithServer('kafka', 'source.kafka reading a topic', () => {
  it.concurrent.each([1, 2, 3])(
    'reads every partition once at parallelism %i (earliest, JSON values)',
    async (parallelism) => {
      const topic = await makeTopic('src-par', 5);
      await produce(topic, numbered(2_000, 5));
      const { out } = await read({ topic }, parallelism);
      expect(idsOf(out)).toEqual(range(0, 2_000));
      // Each partition's records in offset order.
      for (let p = 0; p < 5; p++) {
        const ids = (out as { id: number; p: number }[]).filter((r) => r.p === p).map((r) => r.id);
        expect(ids).toEqual([...ids].sort((a, b) => a - b));
      }
    },
  );

  it.concurrent('starts at latest: what was there before the run is not read', async () => {
    const topic = await makeTopic('src-latest', 2);
    await produce(topic, numbered(10, 2));
    expect((await read({ topic, startingOffsets: 'latest' })).out).toEqual([]);
    expect((await read({ topic, startingOffsets: 'earliest' })).out).toHaveLength(10);
  });

  it.concurrent('starts at a timestamp: the first record at or after it', async () => {
    const topic = await makeTopic('src-time', 2);
    await produce(topic, numbered(20, 2));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const from = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 10));
    await produce(topic, numbered(20, 2, 20));
    expect(idsOf((await read({ topic, startingOffsets: { timestamp: from } })).out)).toEqual(range(20, 40));
  });

  it.concurrent("starts at the group's committed offsets, earliest where it has none", async () => {
    const topic = await makeTopic('src-committed', 2);
    await produce(topic, numbered(20, 2));
    const groupId = `g-${topic}`;
    await withAdmin((a) =>
      a.alterConsumerGroupOffsets({
        groupId,
        topics: [{ name: topic, partitionOffsets: [{ partition: 0, offset: 6n }] }],
      }),
    );
    const { out } = await read({ topic, startingOffsets: 'committed', groupId });
    // Partition 0 holds the even ids, 6 of them skipped; partition 1 is read whole.
    expect(idsOf(out)).toEqual(
      [...range(12, 20).filter((i) => i % 2 === 0), ...range(0, 20).filter((i) => i % 2 === 1)].sort(
        (a, b) => a - b,
      ),
    );
  });

  it.concurrent('reads values as strings, and with includeMetadata the key, headers, offset and time', async () => {
    const topic = await makeTopic('src-meta', 1);
    const before = Date.now();
    await produce(topic, [
      { partition: 0, value: 'plain text', key: 'k1', headers: { source: 'test', n: '1' } },
      { partition: 0, value: '{"a":1}', key: '{"id":7}' },
    ]);
    expect((await read({ topic, format: 'string' })).out).toEqual(['plain text', '{"a":1}']);
    const { out } = await read({ topic, format: 'string', includeMetadata: true });
    const first = out[0] as Record<string, unknown>;
    expect(first).toMatchObject({
      topic,
      partition: 0,
      offset: 0,
      key: 'k1',
      value: 'plain text',
      headers: { source: 'test', n: '1' },
    });
    expect(first.timestamp).toBeGreaterThanOrEqual(before - 1000);
    // "k1" is not JSON: with onBadRecord "skip" that record is skipped and counted.
    const json = await read({
      topic,
      includeMetadata: true,
      keyFormat: 'json',
      format: 'string',
      onBadRecord: 'skip',
    });
    expect(json.out.map((r) => (r as Record<string, unknown>).key)).toEqual([{ id: 7 }]);
    const skipped = json.summary.metrics.operators
      .find((o) => o.id === 'kafka')!
      .subtasks.map((s) => s.recordsSkipped ?? 0);
    expect(skipped.reduce((a, b) => a + b, 0)).toBe(1);
  });

  it.concurrent('never reads the records of an aborted transaction (read_committed)', async () => {
    const topic = await makeTopic('src-tx', 1);
    const { Producer, stringSerializers } = await import('@platformatic/kafka');
    const producer = new Producer({
      clientId: 'pipewright-test-tx',
      bootstrapBrokers: KAFKA_BROKERS.split(','),
      serializers: stringSerializers,
      idempotent: true,
      transactionalId: `tx-${topic}`,
    });
    try {
      for (const [i, outcome] of ['commit', 'abort', 'commit', 'abort', 'commit'].entries()) {
        const tx = await producer.beginTransaction();
        await tx.send({
          messages: range(i * 10, i * 10 + 10).map((id) => ({
            topic,
            partition: 0,
            value: JSON.stringify({ id }),
          })),
        });
        if (outcome === 'commit') await tx.commit();
        else await tx.abort();
      }
    } finally {
      await producer.close();
    }
    const { out } = await read({ topic });
    expect(idsOf(out)).toEqual([...range(0, 10), ...range(20, 30), ...range(40, 50)]);
  });

  it.concurrent('tests its connection: the broker answers and the topic has its partitions, or says what is missing', async () => {
    const topic = await makeTopic('src-conn', 3);
    const check = (params: Record<string, unknown>) =>
      sourceKafkaFactory.testConnection!({ bootstrapServers: KAFKA_BROKERS, ...params }, 'kafka');
    expect(await check({ topic })).toEqual({
      ok: true,
      message: `Kafka at ${KAFKA_BROKERS} answers; topic "${topic}" has 3 partitions`,
    });
    expect(await check({ topicPattern: `${topic.replace(/-[^-]*$/, '')}-.*` })).toMatchObject({ ok: true });
    expect(await check({ topic: 'no-such-topic-pipewright' })).toEqual({
      ok: false,
      message: `operator "kafka": Kafka topic "no-such-topic-pipewright" does not exist at ${KAFKA_BROKERS}`,
    });
    expect(await check({ topicPattern: 'no-such-pattern-pipewright-.*' })).toMatchObject({ ok: false });
    const down = await sourceKafkaFactory.testConnection!(
      { bootstrapServers: '127.0.0.1:1', topic },
      'kafka',
    );
    expect(down.ok).toBe(false);
    expect(down.message).toMatch(/^operator "kafka": Kafka at 127\.0\.0\.1:1 did not answer/);
  });
});
