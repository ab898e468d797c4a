// Exactly once for source.redis and sink.redis (issue 16, "Must show"): a job killed with
// `kill -9` at random moments (one of them while a checkpoint is being written) and restored
// with `--restore latest` until it finishes ends with exactly what a run that never failed gives:
//  - source.redis -> sink.jsonl: the same output lines (the source resumes after the last entry
//    a checkpoint's split names, and stopAt "last" stays the entry that was last at the first start);
//  - sink.jsonl's twin sink.redis fed by source.jsonl: the stream holds the clean run's entries,
//    as a multiset and without a duplicate (every record is unique), also when the restores run
//    at another parallelism than the first run.
// Kill times come from a seeded PRNG: the seed is printed, and PIPEWRIGHT_TEST_SEED=<seed>
// repeats them (as far as a machine's timing allows).
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  between,
  crashAndRestore,
  describeAttempts,
  describeDifference,
  describeResult,
  expectRestoredToEnd,
  type KillPlan,
  outputLines,
  randomFor as randomForSeed,
  runToEnd,
  testSeed,
} from '../checkpointHelpers.js';
import { type JobDocument, makeTempDir, removeTempDirs, writeJob } from '../cliHarness.js';
import { dropStreams, jsonOf, redis, uniqueStream } from './redisStreams.js';
import { describeWithServer, REDIS_URL } from './servers.js';

afterAll(async () => {
  await dropStreams();
  await removeTempDirs();
});

const seed = testSeed();
const randomFor = (label: string) => randomForSeed(seed, label);

const RECORDS = 100_000;
/**
 * The sink's job writes more: at 100k records a restored run on an idle machine could finish
 * within KILL_WITHIN_MS of its first checkpoint, before its kill, and the test then saw too few
 * kills (CI, 3 -> 3: one kill of three).
 */
const SINK_RECORDS = 400_000;
/**
 * Kill delays after a run's first checkpoint of its own, up to this: a run spends most of its
 * time starting (seconds on a loaded machine), so delays are not scaled by the clean run's time.
 */
const KILL_WITHIN_MS = 300;
const CHECKPOINT_MS = 60;
const OUT = 'out.jsonl';

interface Run {
  readonly dir: string;
  readonly jobPath: string;
  readonly checkpointDir: string;
}

async function makeRun(label: string, job: JobDocument): Promise<Run> {
  const dir = await makeTempDir(`pipewright-redis-restore-${label}-`);
  const jobPath = path.join(dir, 'job.json');
  await writeJob(jobPath, job);
  return { dir, jobPath, checkpointDir: path.join(dir, '.pipewright', job.name, 'checkpoints') };
}

function settings(intervalMs: number) {
  return { checkpointIntervalMs: intervalMs, checkpointsRetained: 3, threads: 1 };
}

/**
 * Kills: each at a random moment within KILL_WITHIN_MS after a checkpoint of the run's own (a
 * restore has something new to resume from); the second while a checkpoint is being written.
 */
function kills(random: () => number, count = 3): KillPlan[] {
  return Array.from({ length: count }, (_, i) => ({
    delayMs: between(random, 0, KILL_WITHIN_MS),
    afterCheckpoint: true,
    duringCheckpoint: i === 1,
  }));
}

function expectSame(actual: readonly string[], expected: readonly string[], context: string): void {
  const difference = describeDifference(actual, expected);
  expect(difference, `${context}\n${difference}`).toBe('');
}

await describeWithServer(
  'redis',
  'source.redis: kill -9 at random moments, then --restore latest until done',
  () => {
    let stream: string;
    let clean: { lines: string[]; ms: number };

    /** The stream -> a map tagging each record -> out.jsonl at parallelism 2. */
    const job = (intervalMs: number): JobDocument => ({
      format: 'pipewright.job/1',
      name: 'redis-source-restore',
      settings: settings(intervalMs),
      operators: [
        { id: 'in', kind: 'source.redis', params: { url: REDIS_URL, stream, stopAt: 'last' } },
        {
          id: 'tag',
          kind: 'map',
          parallelism: 2,
          params: { code: 'function map(r) { return { r, seen: true }; }' },
        },
        { id: 'out', kind: 'sink.jsonl', parallelism: 2, params: { path: OUT } },
      ],
      edges: [
        { id: 'e1', from: 'in', to: 'tag', partition: 'rebalance' },
        { id: 'e2', from: 'tag', to: 'out', partition: 'rebalance' },
      ],
    });

    beforeAll(async () => {
      stream = uniqueStream('source-restore');
      const c = await redis();
      for (let at = 0; at < RECORDS; at += 1000) {
        const multi = c.multi();
        for (let i = at; i < at + 1000; i++) {
          // Every tenth entry is a field entry, the others JSON.
          if (i % 10 === 0) multi.xAdd(stream, '*', { i: String(i), kind: 'fields' });
          else multi.xAdd(stream, '*', { json: JSON.stringify({ i, kind: 'json' }) });
        }
        await multi.exec();
      }
      const run = await makeRun('clean', job(0));
      const started = Date.now();
      const result = await runToEnd(['run', run.jobPath, '--quiet', '--trust'], run.dir);
      const ms = Date.now() - started;
      expect(result.code, describeResult(result)).toBe(0);
      clean = { lines: await outputLines(path.join(run.dir, OUT)), ms };
      console.log(`source.redis: a clean run took ${ms} ms`);
    }, 180_000);

    it('the clean run read every entry once', () => {
      expect(clean.lines).toHaveLength(RECORDS);
      expect(new Set(clean.lines.map((l) => (JSON.parse(l) as { r: { i: unknown } }).r.i)).size).toBe(
        RECORDS,
      );
    });

    it('ends with exactly the output of a run that never failed', async () => {
      const run = await makeRun('kill', job(CHECKPOINT_MS));
      // Entries added once the first run has opened (it took a checkpoint) are past stopAt
      // "last": no restore may read them.
      const addLate = async () => {
        const c = await redis();
        for (let i = 0; i < 50; i++) await c.xAdd(stream, '*', { json: JSON.stringify({ late: i }) });
      };
      const attempts = await crashAndRestore({
        ...run,
        cwd: run.dir,
        kills: kills(randomFor('source')),
        beforeAttempt: async (attempt) => {
          if (attempt === 1) await addLate();
        },
      });
      const context = `seed ${seed}\n${describeAttempts(attempts)}`;
      console.log(`source.redis:\n${context}`);
      expectRestoredToEnd(attempts, 3, context);
      expect(
        attempts.some((a) => a.killedWhileWriting.length > 0),
        `no kill hit a checkpoint being written\n${context}`,
      ).toBe(true);
      expectSame(await outputLines(path.join(run.dir, OUT)), clean.lines, context);
    }, 300_000);
  },
);

await describeWithServer(
  'redis',
  'sink.redis: kill -9 at random moments, then --restore latest until done',
  () => {
    let input: string;
    let clean: { entries: string[]; ms: number };

    /** input.jsonl -> sink.redis at `parallelism`. */
    const job = (stream: string, intervalMs: number, parallelism: number): JobDocument => ({
      format: 'pipewright.job/1',
      name: 'redis-sink-restore',
      settings: settings(intervalMs),
      operators: [
        { id: 'in', kind: 'source.jsonl', params: { path: input } },
        { id: 'out', kind: 'sink.redis', parallelism, params: { url: REDIS_URL, stream } },
      ],
      edges: [{ id: 'e', from: 'in', to: 'out', partition: 'rebalance' }],
    });

    beforeAll(async () => {
      const fixtures = await makeTempDir('pipewright-redis-restore-input-');
      input = path.join(fixtures, 'input.jsonl');
      const lines = Array.from({ length: SINK_RECORDS }, (_, i) =>
        JSON.stringify({ i, text: `record ${i}` }),
      );
      writeFileSync(input, `${lines.join('\n')}\n`);
      const stream = uniqueStream('sink-clean');
      const run = await makeRun('sink-clean', job(stream, 0, 3));
      const started = Date.now();
      const result = await runToEnd(['run', run.jobPath, '--quiet', '--trust'], run.dir);
      const ms = Date.now() - started;
      expect(result.code, describeResult(result)).toBe(0);
      clean = { entries: await jsonOf(stream), ms };
      console.log(`sink.redis: a clean run took ${ms} ms`);
    }, 180_000);

    it('the clean run wrote every record once', () => {
      expect(clean.entries).toHaveLength(SINK_RECORDS);
      expect(new Set(clean.entries).size).toBe(SINK_RECORDS);
    });

    it.each([
      [3, 3],
      [3, 1],
    ])(
      "at parallelism %i, restored at %i, the stream holds exactly the clean run's entries",
      async (first, then) => {
        const stream = uniqueStream(`sink-kill-${first}-${then}`);
        const run = await makeRun(`sink-kill-${first}-${then}`, job(stream, CHECKPOINT_MS, first));
        const attempts = await crashAndRestore({
          ...run,
          cwd: run.dir,
          kills: kills(randomFor(`sink ${first} -> ${then}`)),
          beforeAttempt: (attempt) =>
            writeJob(run.jobPath, job(stream, CHECKPOINT_MS, attempt === 0 ? first : then)),
        });
        const context = `seed ${seed}\n${describeAttempts(attempts)}`;
        console.log(`sink.redis ${first} -> ${then}:\n${context}`);
        expectRestoredToEnd(attempts, 3, context);
        expect(
          attempts.some((a) => a.killedWhileWriting.length > 0),
          `no kill hit a checkpoint being written\n${context}`,
        ).toBe(true);
        const entries = await jsonOf(stream);
        expectSame(entries, clean.entries, context);
        expect(new Set(entries).size, context).toBe(entries.length);
      },
      300_000,
    );
  },
);
