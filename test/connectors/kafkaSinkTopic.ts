// What the sink.kafka tests need of a topic: made and removed with a unique name, and read back
// whole as a read_committed consumer sees it. The read is done here with the protocol's Fetch
// (READ_COMMITTED) up to each partition's last stable offset, dropping control batches and the
// batches of aborted transactions with source.kafka's own filter (tested on its own in
// kafkaSourceFetchedRecords.test.ts), so that it does not depend on a consumer's handling of
// transactions; it also says whether any transaction is still open.
import { randomBytes } from 'node:crypto';
import { Admin, ConnectionPool, FetchIsolationLevels, fetchV12 } from '@platformatic/kafka';
import { fetchedRecords } from '../../engine/operators/kafka/source/fetchedRecords.js';

export function uniqueName(prefix: string): string {
  return `${prefix}-${randomBytes(4).toString('hex')}`;
}

function admin(brokers: string): Admin {
  return new Admin({ clientId: 'pipewright-test', bootstrapBrokers: brokers.split(','), retries: 3 });
}

/**
 * Makes the topic and returns once the broker's metadata shows every partition with a leader:
 * createTopics answers when the controller has the topic, and a metadata request a moment later
 * (a connection test, a source's first look) may still hear "unknown topic" on a loaded machine.
 */
export async function createTopic(brokers: string, name: string, partitions: number): Promise<void> {
  const client = admin(brokers);
  try {
    await client.createTopics({ topics: [name], partitions, replicas: 1 });
    const deadline = Date.now() + 30_000;
    for (;;) {
      const ready = await client
        .metadata({ topics: [name], forceUpdate: true })
        .then((m) => {
          const topic = m.topics.get(name);
          return (
            topic !== undefined &&
            topic.partitionsCount === partitions &&
            topic.partitions.every((p) => p.leader >= 0)
          );
        })
        .catch(() => false);
      if (ready) return;
      if (Date.now() > deadline)
        throw new Error(`Kafka topic "${name}" has no leader for every partition after 30 s`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    await client.close();
  }
}

export async function deleteTopic(brokers: string, name: string): Promise<void> {
  const client = admin(brokers);
  try {
    await client.deleteTopics({ topics: [name] });
  } catch {
    // Already gone, or the broker stopped: nothing to clean.
  } finally {
    await client.close();
  }
}

export interface TopicContents {
  /** Values (UTF-8) of committed records, partition by partition in offset order. */
  readonly values: string[];
  readonly keys: (string | null)[];
  /** Whether some transaction is still open (last stable offset behind the high watermark). */
  readonly openTransactions: boolean;
}

/** Every record of `topic` a read_committed consumer reads now. */
export async function readCommitted(brokers: string, topic: string): Promise<TopicContents> {
  const client = admin(brokers);
  const pool = new ConnectionPool('pipewright-test-read');
  try {
    const metadata = await client.metadata({ topics: [topic] });
    const info = metadata.topics.get(topic)!;
    const values: string[] = [];
    const keys: (string | null)[] = [];
    let openTransactions = false;
    for (let partition = 0; partition < info.partitionsCount; partition++) {
      const leader = metadata.brokers.get(info.partitions[partition]!.leader)!;
      const connection = await pool.get({ host: leader.host, port: leader.port });
      let offset = 0;
      for (;;) {
        const response = await fetchV12.api.async(
          connection,
          0,
          1,
          8 << 20,
          FetchIsolationLevels.READ_COMMITTED,
          0,
          -1,
          [
            {
              topicId: topic,
              partitions: [
                {
                  partition,
                  currentLeaderEpoch: -1,
                  fetchOffset: BigInt(offset),
                  lastFetchedEpoch: -1,
                  partitionMaxBytes: 8 << 20,
                },
              ],
            },
          ],
          [],
          '',
        );
        const part = response.responses[0]!.partitions[0]!;
        const stable = Number(part.lastStableOffset);
        if (part.lastStableOffset < part.highWatermark) openTransactions = true;
        const chunk = fetchedRecords(part, offset);
        offset = chunk.nextOffset;
        for (const record of chunk.records) {
          values.push(record.value === null ? '' : record.value.toString('utf8'));
          keys.push(record.key === null || record.key.length === 0 ? null : record.key.toString('utf8'));
        }
        if (offset >= stable || (part.records ?? []).length === 0) break;
      }
    }
    return { values, keys, openTransactions };
  } finally {
    await pool.close();
    await client.close();
  }
}
