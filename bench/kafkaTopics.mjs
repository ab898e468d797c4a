// What the connector benchmarks need of Kafka: topics made and removed, a JSONL file produced
// into a topic (keyed, so that a key's records stay in order in one partition), and a topic read
// back whole as a read_committed consumer sees it. The read-back uses the protocol's Fetch
// (READ_COMMITTED) up to each partition's last stable offset, dropping control batches and the
// batches of aborted transactions with source.kafka's own filter (from dist/, as
// test/connectors/kafkaSinkTopic.ts does from the sources), so that the check does not depend on
// the consumer whose speed is being measured.
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import {
  Admin,
  ConnectionPool,
  FetchIsolationLevels,
  fetchV12,
  Producer,
  stringSerializers,
} from '@platformatic/kafka';

const admin = (brokers) =>
  new Admin({ clientId: 'pipewright-bench', bootstrapBrokers: brokers.split(','), retries: 3 });

export async function createTopic(brokers, name, partitions) {
  const client = admin(brokers);
  try {
    await client.createTopics({ topics: [name], partitions, replicas: 1 });
  } finally {
    await client.close();
  }
}

export async function deleteTopics(brokers, names) {
  if (names.length === 0) return;
  const client = admin(brokers);
  try {
    await client.deleteTopics({ topics: names });
  } catch {
    // Already gone: nothing to clean.
  } finally {
    await client.close();
  }
}

/** Whether a broker answers at `brokers` (one line saying why not, or undefined). */
export async function kafkaProblem(brokers) {
  const client = new Admin({
    clientId: 'pipewright-bench',
    bootstrapBrokers: brokers.split(','),
    retries: 0,
  });
  try {
    await client.metadata({ topics: [] });
    return undefined;
  } catch (e) {
    return `no Kafka broker answers at ${brokers} (${e.message.split('\n')[0]})`;
  } finally {
    await client.close().catch(() => {});
  }
}

/** Produces every line of a JSONL file whose records have a string `k` field, keyed by it. */
export async function produceJsonl(brokers, topic, path, batch = 5000) {
  const producer = new Producer({
    clientId: 'pipewright-bench-load',
    bootstrapBrokers: brokers.split(','),
    serializers: stringSerializers,
    idempotent: true,
  });
  const rl = createInterface({ input: createReadStream(path), crlfDelay: Number.POSITIVE_INFINITY });
  let messages = [];
  let count = 0;
  try {
    for await (const line of rl) {
      if (line.length === 0) continue;
      messages.push({ topic, key: JSON.parse(line).k, value: line });
      if (messages.length === batch) {
        await producer.send({ messages });
        count += messages.length;
        messages = [];
      }
    }
    if (messages.length > 0) await producer.send({ messages });
    return count + messages.length;
  } finally {
    await producer.close();
  }
}

/**
 * Calls `onValue(value)` (UTF-8) for every record of `topic` a read_committed consumer reads now.
 * Returns { count, openTransactions } (a transaction still open: last stable offset behind the
 * high watermark).
 */
export async function readCommitted(brokers, topic, onValue) {
  // Imported here, not at the top: the suites that never read a topic back run without dist/.
  const { fetchedRecords } = await import('../dist/engine/operators/kafka/source/fetchedRecords.js');
  const client = admin(brokers);
  const pool = new ConnectionPool('pipewright-bench-read');
  let count = 0;
  let openTransactions = false;
  try {
    const metadata = await client.metadata({ topics: [topic] });
    const info = metadata.topics.get(topic);
    for (let partition = 0; partition < info.partitionsCount; partition++) {
      const leader = metadata.brokers.get(info.partitions[partition].leader);
      const connection = await pool.get({ host: leader.host, port: leader.port });
      let offset = 0;
      for (;;) {
        const response = await fetchV12.api.async(
          connection,
          0,
          1,
          16 << 20,
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
                  partitionMaxBytes: 16 << 20,
                },
              ],
            },
          ],
          [],
          '',
        );
        const part = response.responses[0].partitions[0];
        const stable = Number(part.lastStableOffset);
        if (part.lastStableOffset < part.highWatermark) openTransactions = true;
        const chunk = fetchedRecords(part, offset);
        offset = chunk.nextOffset;
        for (const record of chunk.records) {
          count++;
          onValue(record.value === null ? '' : record.value.toString('utf8'));
        }
        if (offset >= stable || (part.records ?? []).length === 0) break;
      }
    }
    return { count, openTransactions };
  } finally {
    await pool.close();
    await client.close();
  }
}
