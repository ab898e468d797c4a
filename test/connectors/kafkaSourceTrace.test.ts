// A debug run reading a real Kafka topic: the trace of a record names it as Kafka does, by topic,
// partition and offset, not by a number that means nothing without them.
import { afterAll, expect, it } from 'vitest';
import { debugSession, jobFolder, stepToEnd } from '../debugJobs.js';
import { kafkaJob, makeTopic, numbered, produce, removeTopics } from './kafkaSourceHarness.js';
import { describeWithServer } from './servers.js';

afterAll(async () => {
  await removeTopics();
});

const PARTITIONS = 3;
const RECORDS = 12;

await describeWithServer('kafka', 'tracing a record read from Kafka', () => {
  it('names the record a sink step took by its topic, partition and offset', async () => {
    const topic = await makeTopic('src-trace', PARTITIONS);
    // Record i goes to partition i % 3, so it is that partition's record (offset) i div 3.
    await produce(topic, numbered(RECORDS, PARTITIONS));
    const debug = await debugSession(kafkaJob({ topic, stopAt: 'latest' }), await jobFolder());
    try {
      const views = await stepToEnd(debug);
      const written = views.filter((v) => v.operator === 'out' && v.kind === 'record');
      expect(written).toHaveLength(RECORDS);
      for (const view of written) {
        const { id, p } = view.record as { id: number; p: number };
        const trace = debug.trace(view.seq, 'received');
        expect(trace.inputs).toEqual([
          {
            operator: 'kafka',
            subtask: 0,
            position: Math.floor(id / PARTITIONS),
            where: `Kafka topic "${topic}" partition ${p} offset ${Math.floor(id / PARTITIONS)}`,
            record: { id, p },
          },
        ]);
      }
    } finally {
      await debug.close();
    }
  });
});
