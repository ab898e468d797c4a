// source.kafka and sink.kafka under a real kill -9 (issue 16, "Must show"), in one job: a
// 4-partition topic read by source.kafka (bounded by stopAt "latest") -> map -> sink.kafka, once
// exactly once and once at least once, killed and restored with `--restore latest`, the
// parallelism of all three changed between the runs (3 -> 1 -> 2): the partitions are dealt again
// by the same owner function, each with the end offset its first open fixed, and the restore at
// parallelism 1 aborts what the sink subtasks gone left open. The exactly-once topic then holds,
// read as a read_committed consumer reads it, exactly one output record per input record and no
// open transaction; the at-least-once topic holds every one. Kills at random moments, more of
// them, at full size and each kind on its own: kafkaSourceRestore.soak.test.ts and
// kafkaSinkRestore.soak.test.ts. (Restores at fixed steps in this process, as
// test/stepFailures.ts makes them, do not fit here: stepping a run stalls once a subtask waits on
// its broker.)
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  crashAndRestore,
  describeAttempts,
  describeDifference,
  expectRestoredToEnd,
  type KillPlan,
} from '../checkpointHelpers.js';
import { type JobDocument, makeTempDir, removeTempDirs, writeJob } from '../cliHarness.js';
import { readCommitted } from './kafkaSinkTopic.js';
import { makeTopic, numbered, produce, removeTopics } from './kafkaSourceHarness.js';
import { withKeepAlive } from './keepAlive.js';
import { describeWithServer, KAFKA_BROKERS } from './servers.js';

const RECORDS = 6_000;
const PARTITIONS = 4;
const MAP_CODE =
  'function map(record) {\n  return { id: record.id, p: record.p, doubled: record.id * 2 };\n}';

let input: string;
/** What each sink writes: the map's output for every record of the input, as JSON text. */
let expected: string[];

afterAll(async () => {
  await removeTopics();
  await removeTempDirs();
});

function job(topics: { exactlyOnce: string; atLeastOnce: string }, parallelism: number): JobDocument {
  const sink = (id: string, topic: string, guarantee: string) => ({
    id,
    kind: 'sink.kafka',
    parallelism,
    params: {
      bootstrapServers: KAFKA_BROKERS,
      topic,
      keyField: 'id',
      deliveryGuarantee: guarantee,
      // Of this test's own: runs of the same job elsewhere on the shared broker would fence it.
      transactionalIdPrefix: `${topic}-${id}`,
    },
  });
  return {
    format: 'pipewright.job/1',
    name: 'kafka-restore',
    settings: { checkpointIntervalMs: 100, checkpointsRetained: 3 },
    operators: [
      {
        id: 'in',
        kind: 'source.kafka',
        parallelism,
        params: { bootstrapServers: KAFKA_BROKERS, topic: input, stopAt: 'latest' },
      },
      { id: 'double', kind: 'map', parallelism, params: { code: MAP_CODE } },
      sink('exactly', topics.exactlyOnce, 'exactly-once'),
      sink('at-least', topics.atLeastOnce, 'at-least-once'),
    ],
    edges: [
      { id: 'in-double', from: 'in', to: 'double', partition: 'rebalance' },
      { id: 'double-exactly', from: 'double', to: 'exactly', partition: 'forward' },
      { id: 'double-at-least', from: 'double', to: 'at-least', partition: 'forward' },
    ],
  };
}

await describeWithServer('kafka', 'source.kafka -> sink.kafka under kill -9', () => {
  beforeAll(async () => {
    input = await makeTopic('pw-restore-in', PARTITIONS);
    const records = numbered(RECORDS, PARTITIONS);
    await produce(input, records);
    expected = records.map((r) => {
      const { id, p } = JSON.parse(r.value) as { id: number; p: number };
      return JSON.stringify({ id, p, doubled: id * 2 });
    });
  });

  it('killed at parallelism 3, restored at 1, then 2: exactly once, and at least once', async () => {
    const topics = {
      exactlyOnce: await makeTopic('pw-restore-exactly', 3),
      atLeastOnce: await makeTopic('pw-restore-at-least', 3),
    };
    const parallelismOf = [3, 1, 2];
    const dir = await makeTempDir('pipewright-kafka-restore-');
    const jobPath = path.join(dir, 'kafka-restore.job.json');
    // Right after a checkpoint completes; then, in the restored run, while one is being written.
    // The killed runs go on until killed (keepAlive.ts); the last one runs to its end.
    const kills: KillPlan[] = [
      { delayMs: 0, afterCheckpoint: true },
      { delayMs: 0, duringCheckpoint: true },
    ];
    const attempts = await crashAndRestore({
      jobPath,
      cwd: dir,
      checkpointDir: path.join(dir, '.pipewright', 'kafka-restore', 'checkpoints'),
      kills,
      beforeAttempt: (attempt) =>
        writeJob(
          jobPath,
          withKeepAlive(job(topics, parallelismOf[attempt] ?? 2), ['double'], attempt >= kills.length),
        ),
    });
    const context = describeAttempts(attempts);
    expectRestoredToEnd(attempts, kills.length, context);
    const [exactly, atLeast] = await Promise.all([
      readCommitted(KAFKA_BROKERS, topics.exactlyOnce),
      readCommitted(KAFKA_BROKERS, topics.atLeastOnce),
    ]);
    expect(describeDifference(exactly.values, expected), context).toBe('');
    expect(exactly.openTransactions, context).toBe(false);
    expect(new Set(atLeast.values), context).toEqual(new Set(expected));
  });
});
