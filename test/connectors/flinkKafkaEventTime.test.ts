// Event time from source.kafka on the Flink cluster (issue 28): the record's Kafka timestamp, or
// its timestampField, and watermarks by the local rule (the subtask's highest time so far minus
// the bound, over every partition it reads). A keyed tumbling window with its late port, fed
// out-of-order records of one partition, through a map, gives on Flink the windows and the late records
// `pipewright run` gives: the same records are late only if the watermarks fall between the same
// records. A record without its time is left out with onBadTimestamp "skip", and otherwise fails
// the job with the local engine's line.
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
import { FLINK_TIMEOUT, ON_FLINK } from '../flinkHarness.js';
import { makeTopic, type Produced, produce, removeTopics } from './kafkaSourceHarness.js';
import { describeWithServers, FLINK_URL, KAFKA_BROKERS } from './servers.js';

afterAll(async () => {
  await removeTopics();
  await removeTempDirs();
});

const T0 = Date.UTC(2026, 0, 1);
const RECORDS = 600;

/** The time of record i: mostly rising, every 7th 80 ms back (later than the 50 ms bound allows). */
function timeOf(i: number): number {
  return T0 + i * 10 - (i % 7 === 3 ? 80 : i % 5 === 1 ? 30 : 0);
}

function input(inField: boolean): Produced[] {
  return Array.from({ length: RECORDS }, (_, i) => {
    const record: Record<string, unknown> = { k: `k${i % 4}`, i };
    // Record 100 has no time in its field: skipped, or the job fails, as locally.
    if (inField && i !== 100) record.t = i % 2 === 0 ? timeOf(i) : new Date(timeOf(i)).toISOString();
    return { partition: 0, value: JSON.stringify(record), ...(inField ? {} : { timestamp: timeOf(i) }) };
  });
}

function job(name: string, topic: string, source: Record<string, unknown>): JobDocument {
  return {
    format: 'pipewright.job/1',
    name,
    settings: { checkpointIntervalMs: 500 },
    operators: [
      {
        id: 'in',
        kind: 'source.kafka',
        params: {
          bootstrapServers: KAFKA_BROKERS,
          topic,
          stopAt: 'latest',
          maxOutOfOrdernessMs: 50,
          ...source,
        },
      },
      // Watermarks pass a worker without onTimer among the records (PROTOCOL.md).
      { id: 'pass', kind: 'map', params: { code: 'function map(r) { return r; }' } },
      {
        id: 'counts',
        kind: 'window',
        parallelism: 2,
        params: { type: 'tumbling', sizeMs: 100, aggregate: 'count' },
      },
      { id: 'out', kind: 'sink.jsonl', params: { path: 'out.jsonl' } },
      { id: 'late', kind: 'sink.jsonl', params: { path: 'late.jsonl' } },
    ],
    edges: [
      { id: 'in-pass', from: 'in', to: 'pass', partition: 'forward' },
      { id: 'pass-counts', from: 'pass', to: 'counts', partition: 'hash', key: 'k' },
      { id: 'counts-out', from: 'counts', to: 'out', partition: 'rebalance' },
      { id: 'counts-late', from: 'counts', fromPort: 'late', to: 'late', partition: 'rebalance' },
    ],
  };
}

async function lines(file: string): Promise<string[]> {
  return (await readFile(file, 'utf8'))
    .split('\n')
    .filter((l) => l !== '')
    .sort();
}

async function runBoth(topic: string, source: Record<string, unknown>) {
  const runs = [];
  for (const engine of ['local', 'flink'] as const) {
    const dir = await makeTempDir(`pipewright-flink-kafka-time-${engine}-`);
    const jobPath = path.join(dir, 'job.job.json');
    await writeJob(jobPath, job(`${path.basename(dir)}`, topic, source));
    const ran =
      engine === 'local'
        ? await runCli(['run', jobPath, '--quiet'])
        : await runCli(['flink', jobPath, '--cluster', FLINK_URL, '--quiet'], ON_FLINK);
    runs.push({ ran, dir });
  }
  return runs;
}

await describeWithServers(['kafka', 'flink'], 'event time from source.kafka on Flink', () => {
  it(
    "gives the local engine's windows and late records, by Kafka timestamp and by timestampField",
    async () => {
      const byTimestamp = await makeTopic('flink-kafka-time', 1);
      await produce(byTimestamp, input(false));
      const byField = await makeTopic('flink-kafka-field', 1);
      await produce(byField, input(true));
      for (const [topic, source] of [
        [byTimestamp, {}],
        [byField, { timestampField: 't', onBadTimestamp: 'skip' }],
      ] as const) {
        const [local, flink] = await runBoth(topic, source);
        for (const { ran } of [local!, flink!]) expect(ran.code, describeRun(ran)).toBe(0);
        const late = await lines(path.join(local!.dir, 'late.jsonl'));
        // The disorder makes late records: the test means nothing without them.
        expect(late.length).toBeGreaterThan(10);
        expect(await lines(path.join(flink!.dir, 'late.jsonl'))).toEqual(late);
        expect(await lines(path.join(flink!.dir, 'out.jsonl'))).toEqual(
          await lines(path.join(local!.dir, 'out.jsonl')),
        );
      }
    },
    4 * FLINK_TIMEOUT,
  );

  it(
    "fails a record without its time with the local engine's line",
    async () => {
      const topic = await makeTopic('flink-kafka-no-time', 1);
      await produce(topic, input(true).slice(0, 120));
      const [local, flink] = await runBoth(topic, { timestampField: 't' });
      const line = `operator "in": Kafka topic "${topic}" partition 0 offset 100 cannot be read: it has no timestamp in field "t" (a number of ms or an ISO date)`;
      for (const { ran } of [local!, flink!]) {
        expect(ran.code, describeRun(ran)).toBe(1);
        expect(ran.stderr).toContain(line);
      }
    },
    2 * FLINK_TIMEOUT,
  );
});
