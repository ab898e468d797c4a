// Soak: source.redis and sink.redis on Flink through a TaskManager's loss (issue 28). A job Redis
// stream -> keyed running sum -> Redis stream runs on a Flink cluster of the test's own (the
// shared one is never disturbed; Redis is the shared server, on streams of the test's own); a
// TaskManager is killed with -9 mid-run and started again. Flink restores the source's last id
// and the sums from the last checkpoint, and the sink's committer adds nothing that the marker
// says is in the stream already: the output stream is exactly the clean output, no entry lost or
// written twice, and every writer's lineage is marked as ended.
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { type JobDocument, makeTempDir, removeTempDirs, writeJob } from '../cliHarness.js';
import { byKey } from '../flinkHarness.js';
import { KEYED_SUM, keyedSums, rest, runThroughTaskManagerKill, soakRecords } from './flinkClusterWatch.js';
import { type PrivateFlink, startPrivateFlink } from './privateServers.js';
import { addJson, dropStreams, jsonOf, redis, uniqueStream } from './redisStreams.js';
import { describeWithServers, REDIS_URL } from './servers.js';

let cluster: PrivateFlink | undefined;
afterAll(async () => {
  await cluster?.close();
  await dropStreams();
  await removeTempDirs();
});

const KEYS = 300;
/** Several seconds of the job's work at parallelism 4 here, so that the kill lands mid-run. */
const RECORDS = 300_000;

/** The input records and the sums they must give, by key. */
function inputAndExpected() {
  const input = soakRecords(RECORDS, KEYS);
  return { input, expected: byKey(keyedSums(input), 'k') };
}

function job(name: string, inStream: string, outStream: string): JobDocument {
  return {
    format: 'pipewright.job/1',
    name,
    settings: { checkpointIntervalMs: 300 },
    operators: [
      {
        id: 'in',
        kind: 'source.redis',
        parallelism: 4,
        params: { url: REDIS_URL, stream: inStream, stopAt: 'last' },
      },
      { id: 'acc', kind: 'process', parallelism: 4, params: { code: KEYED_SUM } },
      { id: 'out', kind: 'sink.redis', parallelism: 4, params: { url: REDIS_URL, stream: outStream } },
    ],
    edges: [
      { id: 'in-acc', from: 'in', to: 'acc', partition: 'hash', key: 'k' },
      { id: 'acc-out', from: 'acc', to: 'out', partition: 'forward' },
    ],
  };
}

await describeWithServers(
  ['redis', 'flink'],
  'source.redis and sink.redis on Flink when a TaskManager dies',
  () => {
    it('gives exactly the clean output when a TaskManager is killed with -9 mid-run', async () => {
      const { input, expected } = inputAndExpected();
      const inStream = uniqueStream('flink-kill-in');
      const outStream = uniqueStream('flink-kill-out');
      await addJson(inStream, input);
      cluster = await startPrivateFlink();
      const dir = await makeTempDir('pipewright-flink-redis-kill-');
      const name = `redis-tm-kill-${path.basename(dir)}`;
      const jobPath = path.join(dir, 'job.job.json');
      await writeJob(jobPath, job(name, inStream, outStream));
      // At parallelism 4 the job takes all 4 slots, so it has subtasks on the TaskManager killed.
      const { code, stdout, stderr, jobId } = await runThroughTaskManagerKill(cluster, jobPath, name);
      expect(code, `${stdout}\n${stderr}`).toBe(0);
      const records = (await jsonOf(outStream)).map((text) => JSON.parse(text) as Record<string, unknown>);
      expect(records.length).toBe(RECORDS);
      expect(byKey(records, 'k')).toEqual(expected);
      const marker = await (await redis()).hGetAll(`pipewright:commits:{${outStream}}`);
      expect(Object.values(marker).length).toBeGreaterThanOrEqual(4);
      expect(Object.values(marker).every((value) => value === 'end')).toBe(true);
      // The loss was the job's to recover from, not a kill after its end.
      const { exceptionHistory } = await rest<{ exceptionHistory: { entries: unknown[] } }>(
        cluster.url,
        `/jobs/${jobId}/exceptions`,
      );
      expect(exceptionHistory.entries.length).toBeGreaterThan(0);
    });
  },
);
