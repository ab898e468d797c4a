// source.redis and sink.redis under a real kill -9 (issue 16, "Must show"), in one job: a stream
// read by source.redis (bounded by stopAt "last") into sink.redis, killed and restored with
// `--restore latest` until it ends, the sink at parallelism 3 and then at 1. The source resumes
// after the last entry a checkpoint's split names, and stopAt "last" stays the entry that was
// last at the first start (entries added after it are never read); the sink's commits, redone by
// a restore, add nothing twice. The output stream then holds one entry for each input entry
// (each is unique) and nothing else. Kills at random moments, more of them, at full size and
// each kind on its own: redisRestore.soak.test.ts. (Restores at fixed steps in this process, as
// test/stepFailures.ts makes them, do not fit here: stepping a run stalls once a subtask waits on
// its server.)
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import {
  crashAndRestore,
  describeAttempts,
  describeDifference,
  expectRestoredToEnd,
  type KillPlan,
} from '../checkpointHelpers.js';
import { type JobDocument, makeTempDir, removeTempDirs, writeJob } from '../cliHarness.js';
import { withKeepAlive } from './keepAlive.js';
import { dropStreams, jsonOf, redis, uniqueStream } from './redisStreams.js';
import { describeWithServer, REDIS_URL } from './servers.js';

afterAll(async () => {
  await dropStreams();
  await removeTempDirs();
});

const RECORDS = 10_000;

/** The input stream -> sink.redis at `parallelism`. */
function job(input: string, output: string, parallelism: number): JobDocument {
  return {
    format: 'pipewright.job/1',
    name: 'redis-restore',
    settings: { checkpointIntervalMs: 50, checkpointsRetained: 3 },
    operators: [
      { id: 'in', kind: 'source.redis', params: { url: REDIS_URL, stream: input, stopAt: 'last' } },
      { id: 'out', kind: 'sink.redis', parallelism, params: { url: REDIS_URL, stream: output } },
    ],
    edges: [{ id: 'in-out', from: 'in', to: 'out', partition: 'rebalance' }],
  };
}

/**
 * Writes the input: every tenth entry a field entry, the others one "json" field; what the sink
 * must write for them, as the text of its entries' "json" field.
 */
async function writeInput(stream: string): Promise<string[]> {
  const c = await redis();
  const expected: string[] = [];
  for (let at = 0; at < RECORDS; at += 1000) {
    const multi = c.multi();
    for (let i = at; i < at + 1000; i++) {
      if (i % 10 === 0) {
        multi.xAdd(stream, '*', { i: String(i), kind: 'fields' });
        expected.push(JSON.stringify({ i: String(i), kind: 'fields' }));
      } else {
        multi.xAdd(stream, '*', { json: JSON.stringify({ i, kind: 'json' }) });
        expected.push(JSON.stringify({ i, kind: 'json' }));
      }
    }
    await multi.exec();
  }
  return expected;
}

await describeWithServer('redis', 'source.redis -> sink.redis under kill -9', () => {
  it('killed with the sink at parallelism 3, restored at 1: one output entry for each input entry', async () => {
    const input = uniqueStream('restore-in');
    const output = uniqueStream('restore-out');
    const expected = await writeInput(input);
    const dir = await makeTempDir('pipewright-redis-restore-');
    const jobPath = path.join(dir, 'redis-restore.job.json');
    // Right after a checkpoint completes; then, in the restored run, while one is being written.
    // The killed runs go on until killed (keepAlive.ts); the last one runs to its end.
    const kills: KillPlan[] = [
      { delayMs: 0, afterCheckpoint: true },
      { delayMs: 0, duringCheckpoint: true },
    ];
    const attempts = await crashAndRestore({
      jobPath,
      cwd: dir,
      checkpointDir: path.join(dir, '.pipewright', 'redis-restore', 'checkpoints'),
      kills,
      beforeAttempt: async (attempt) => {
        // Entries added once the first run has opened (it took a checkpoint) are past stopAt
        // "last": no restore may read them.
        if (attempt === 1) {
          const c = await redis();
          for (let i = 0; i < 50; i++) await c.xAdd(input, '*', { json: JSON.stringify({ late: i }) });
        }
        await writeJob(
          jobPath,
          withKeepAlive(job(input, output, attempt === 0 ? 3 : 1), ['out'], attempt >= kills.length),
        );
      },
    });
    const context = describeAttempts(attempts);
    expectRestoredToEnd(attempts, kills.length, context);
    const entries = await jsonOf(output);
    expect(describeDifference(entries, expected), context).toBe('');
  });
});
