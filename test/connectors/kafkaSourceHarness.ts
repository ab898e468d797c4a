// What the source.kafka tests need: topics with unique names (removed after), records produced
// with the client's Producer, and a job source.kafka -> sink.jsonl built for a run in-process or
// written for the CLI.
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Admin, Producer, stringSerializers } from '@platformatic/kafka';
import type { Job } from '../../engine/graph/schema.js';
import type { JobDocument } from '../cliHarness.js';
import { makeJob } from '../jobBuilders.js';
import { createTopic } from './kafkaSinkTopic.js';
import { KAFKA_BROKERS } from './servers.js';

export interface Produced {
  readonly partition: number;
  readonly value: string;
  readonly key?: string;
  readonly headers?: Record<string, string>;
  /** The record's Kafka timestamp (ms); the producer's clock when absent. */
  readonly timestamp?: number;
}

const made = new Set<string>();

function admin(): Admin {
  return new Admin({ clientId: 'pipewright-test', bootstrapBrokers: KAFKA_BROKERS.split(','), retries: 3 });
}

export async function withAdmin<T>(use: (admin: Admin) => Promise<T>): Promise<T> {
  const client = admin();
  try {
    return await use(client);
  } finally {
    await client.close();
  }
}

export async function makeTopic(prefix: string, partitions: number): Promise<string> {
  const name = `${prefix}-${randomBytes(4).toString('hex')}`;
  await createTopic(KAFKA_BROKERS, name, partitions);
  made.add(name);
  return name;
}

export async function addPartitions(topic: string, count: number): Promise<void> {
  await withAdmin((a) => a.createPartitions({ topics: [{ name: topic, count }] }));
}

export async function removeTopics(): Promise<void> {
  if (made.size === 0) return;
  await withAdmin((a) => a.deleteTopics({ topics: [...made] })).catch(() => {});
  made.clear();
}

/** Sends the records, in order, batch by batch (acks from the leader). */
export async function produce(topic: string, records: readonly Produced[], batch = 5_000): Promise<void> {
  const producer = new Producer({
    clientId: 'pipewright-test-producer',
    bootstrapBrokers: KAFKA_BROKERS.split(','),
    serializers: stringSerializers,
    // A send retried on a loaded machine must not write its records twice.
    idempotent: true,
  });
  try {
    for (let i = 0; i < records.length; i += batch) {
      await producer.send({
        messages: records.slice(i, i + batch).map((r) => ({
          topic,
          partition: r.partition,
          value: r.value,
          ...(r.key === undefined ? {} : { key: r.key }),
          ...(r.headers === undefined ? {} : { headers: r.headers }),
          ...(r.timestamp === undefined ? {} : { timestamp: BigInt(r.timestamp) }),
        })),
      });
    }
  } finally {
    await producer.close();
  }
}

/** `count` JSON records {id, p} spread round-robin over `partitions`. */
export function numbered(count: number, partitions: number, from = 0): Produced[] {
  return Array.from({ length: count }, (_, i) => ({
    partition: (from + i) % partitions,
    value: JSON.stringify({ id: from + i, p: (from + i) % partitions }),
  }));
}

/** The job's document: kafka (params) -> sink.jsonl at `out`. */
export function kafkaJobDocument(
  params: Record<string, unknown>,
  options: { parallelism?: number; out?: string; settings?: Record<string, unknown> } = {},
): JobDocument {
  return {
    format: 'pipewright.job/1',
    name: 'kafka-read',
    settings: { checkpointIntervalMs: 0, ...options.settings },
    operators: [
      {
        id: 'kafka',
        kind: 'source.kafka',
        parallelism: options.parallelism ?? 1,
        params: { bootstrapServers: KAFKA_BROKERS, ...params },
      },
      { id: 'out', kind: 'sink.jsonl', parallelism: 1, params: { path: options.out ?? 'out.jsonl' } },
    ],
    edges: [{ id: 'kafka-out', from: 'kafka', to: 'out', partition: 'rebalance' }],
  };
}

export function kafkaJob(
  params: Record<string, unknown>,
  options: { parallelism?: number; out?: string; settings?: Record<string, unknown> } = {},
): Job {
  const doc = kafkaJobDocument(params, options);
  return makeJob(doc.name, doc.operators, doc.edges, doc.settings);
}

export async function outputOf(dir: string, file = 'out.jsonl'): Promise<unknown[]> {
  const text = await readFile(join(dir, file), 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as unknown);
}

/** Records' ids, sorted: the multiset of what was read. */
export function idsOf(records: readonly unknown[]): number[] {
  return records.map((r) => (r as { id: number }).id).sort((a, b) => a - b);
}

export const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);
