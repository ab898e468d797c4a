// source.kafka unbounded: a partition added to the topic while the job runs is found (within
// partitionDiscoveryMs) and read from its start, by the subtask its owner function names; and
// the offsets of completed checkpoints are committed to groupId (never before they complete).
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { waitUntil } from '../checkpointHelpers.js';
import { makeTempDir, removeTempDirs } from '../cliHarness.js';
import { openJob } from '../executors.js';
import {
  addPartitions,
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
import { describeWithServer } from './servers.js';

afterAll(async () => {
  await removeTopics();
  await removeTempDirs();
});

async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  if (!(await waitUntil(check, { timeoutMs: 60_000, everyMs: 100 })))
    throw new Error(`timed out waiting until ${what}`);
}

await describeWithServer('kafka', 'source.kafka unbounded', () => {
  it('finds a new partition during the run and commits checkpointed offsets to its group', async () => {
    const topic = await makeTopic('src-discover', 1);
    const groupId = `g-${topic}`;
    await produce(topic, numbered(5, 1));
    const dir = await makeTempDir('pipewright-kafka-discover-');
    const job = kafkaJob(
      { topic, partitionDiscoveryMs: 200, groupId },
      { parallelism: 2, settings: { checkpointIntervalMs: 100 } },
    );
    const run = await openJob('deterministic', job, {
      jobDir: dir,
      stateDir: join(dir, 'state'),
      checkpointDir: join(dir, 'checkpoints'),
    });
    const finished = run.run();
    const outLength = async () => (await outputOf(dir)).length;
    try {
      await until('the first 5 records are written', async () => (await outLength()) >= 5);
      await addPartitions(topic, 2);
      await produce(
        topic,
        range(5, 10).map((id) => ({ partition: 1, value: JSON.stringify({ id, p: 1 }) })),
      );
      await until("the new partition's records are written", async () => (await outLength()) >= 10);
      const committedOffsets = async () =>
        withAdmin(async (a) => {
          const [group] = await a.listConsumerGroupOffsets({ groups: [groupId] });
          const partitions = group?.topics.find((t) => t.name === topic)?.partitions ?? [];
          return partitions.map((p) => [p.partitionIndex, Number(p.committedOffset)]).sort();
        });
      await until('the group has the offsets', async () => {
        const offsets = await committedOffsets();
        return (
          JSON.stringify(offsets) ===
          JSON.stringify([
            [0, 5],
            [1, 5],
          ])
        );
      });
    } finally {
      run.stop();
      await finished;
    }
    expect(idsOf(await outputOf(dir))).toEqual(range(0, 10));
  });
});
