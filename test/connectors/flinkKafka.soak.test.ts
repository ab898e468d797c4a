// Soak: source.kafka and sink.kafka on Flink through a TaskManager's loss (issue 28). A job Kafka
// topic -> keyed running sum -> Kafka topic runs on a Flink cluster of the test's own (the shared
// one is never disturbed; Kafka is the shared broker, on topics of the test's own); a
// TaskManager is killed with -9 mid-run and started again. Flink restores the source's offsets
// and the sums from the last checkpoint, and the sink's transactions that checkpoint did not
// cover are aborted: the output topic read back read_committed is exactly the clean output, no
// record lost or written twice, and no transaction is left open.
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { type JobDocument, makeTempDir, removeTempDirs, writeJob } from '../cliHarness.js';
import { byKey } from '../flinkHarness.js';
import { KEYED_SUM, keyedSums, rest, runThroughTaskManagerKill, soakRecords } from './flinkClusterWatch.js';
import { readCommitted } from './kafkaSinkTopic.js';
import { makeTopic, type Produced, produce, removeTopics } from './kafkaSourceHarness.js';
import { type PrivateFlink, startPrivateFlink } from './privateServers.js';
import { describeWithServers, KAFKA_BROKERS } from './servers.js';

let cluster: PrivateFlink | undefined;
afterAll(async () => {
  await cluster?.close();
  await removeTopics();
  await removeTempDirs();
});

const KEYS = 300;
const PARTITIONS = 4;
/** Several seconds of the job's work at parallelism 4 here, so that the kill lands mid-run. */
const RECORDS = 300_000;

/** The input, each key's records in one partition (a keyed topic), and the sums it must give, by key. */
function inputAndExpected() {
  const records = soakRecords(RECORDS, KEYS);
  const input: Produced[] = records.map((r) => ({
    partition: (r.i % KEYS) % PARTITIONS,
    value: JSON.stringify(r),
  }));
  return { input, expected: byKey(keyedSums(records), 'k') };
}

function job(name: string, inTopic: string, outTopic: string): JobDocument {
  return {
    format: 'pipewright.job/1',
    name,
    settings: { checkpointIntervalMs: 300 },
    operators: [
      {
        id: 'in',
        kind: 'source.kafka',
        parallelism: 4,
        params: { bootstrapServers: KAFKA_BROKERS, topic: inTopic, stopAt: 'latest' },
      },
      {
        id: 'acc',
        kind: 'process',
        parallelism: 4,
        params: {
          code: KEYED_SUM,
        },
      },
      {
        id: 'out',
        kind: 'sink.kafka',
        parallelism: 4,
        params: { bootstrapServers: KAFKA_BROKERS, topic: outTopic, keyField: 'k' },
      },
    ],
    edges: [
      { id: 'in-acc', from: 'in', to: 'acc', partition: 'hash', key: 'k' },
      { id: 'acc-out', from: 'acc', to: 'out', partition: 'forward' },
    ],
  };
}

await describeWithServers(
  ['kafka', 'flink'],
  'source.kafka and sink.kafka on Flink when a TaskManager dies',
  () => {
    it('gives exactly the clean output, read_committed, when a TaskManager is killed with -9 mid-run', async () => {
      const { input, expected } = inputAndExpected();
      const inTopic = await makeTopic('flink-kafka-kill-in', PARTITIONS);
      const outTopic = await makeTopic('flink-kafka-kill-out', 3);
      await produce(inTopic, input);
      cluster = await startPrivateFlink();
      const dir = await makeTempDir('pipewright-flink-kafka-kill-');
      const name = `kafka-tm-kill-${path.basename(dir)}`;
      const jobPath = path.join(dir, 'job.job.json');
      await writeJob(jobPath, job(name, inTopic, outTopic));
      // At parallelism 4 the job takes all 4 slots, so it has subtasks on the TaskManager killed.
      const { code, stdout, stderr, jobId } = await runThroughTaskManagerKill(cluster, jobPath, name);
      expect(code, `${stdout}\n${stderr}`).toBe(0);
      const written = await readCommitted(KAFKA_BROKERS, outTopic);
      expect(written.openTransactions).toBe(false);
      const records = written.values.map((v) => JSON.parse(v) as Record<string, unknown>);
      expect(records.length).toBe(RECORDS);
      expect(byKey(records, 'k')).toEqual(expected);
      expect(written.keys).toEqual(records.map((r) => r.k));
      // The loss was the job's to recover from, not a kill after its end.
      const { exceptionHistory } = await rest<{ exceptionHistory: { entries: unknown[] } }>(
        cluster.url,
        `/jobs/${jobId}/exceptions`,
      );
      expect(exceptionHistory.entries.length).toBeGreaterThan(0);
    });
  },
);
