// What the connector benchmarks need of Kafka: topics made and removed, a JSONL file produced
// into a topic (keyed, so that a key's records stay in order in one partition), and a topic read
// back whole as a read_committed consumer sees it. The read-back uses the protocol's Fetch
// (READ_COMMITTED) up to each partition's last stable offset, dropping control batches and the
// batches of aborted transactions, as test/connectors/kafkaSinkTopic.ts does, so that the check
// does not depend on the consumer whose speed is being measured.
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

const IS_TRANSACTIONAL = 0x10;
const IS_CONTROL = 0x20;

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
      let offset = 0n;
      const abortedProducers = new Set();
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
                  fetchOffset: offset,
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
        const stable = part.lastStableOffset;
        if (stable < part.highWatermark) openTransactions = true;
        const aborted = [...part.abortedTransactions].sort((a, b) =>
          a.firstOffset < b.firstOffset ? -1 : 1,
        );
        for (const batch of part.records ?? []) {
          const first = batch.firstOffset;
          const last = first + BigInt(batch.lastOffsetDelta);
          if (last < offset) continue;
          while (aborted.length > 0 && aborted[0].firstOffset <= last)
            abortedProducers.add(aborted.shift().producerId);
          offset = last + 1n;
          const transactional = (batch.attributes & IS_TRANSACTIONAL) !== 0;
          if ((batch.attributes & IS_CONTROL) !== 0) {
            const key = batch.records[0]?.key;
            if (key && key.length >= 4 && key.readInt16BE(2) === 0) abortedProducers.delete(batch.producerId);
            continue;
          }
          if (transactional && abortedProducers.has(batch.producerId)) continue;
          for (const record of batch.records) {
            count++;
            onValue(record.value === null ? '' : record.value.toString('utf8'));
          }
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
