// Soak: source.kafka exactly once across crashes: a job reading a 4-partition topic at parallelism 3
// (bounded by stopAt "latest") into a JSON Lines sink, killed with kill -9 at random moments and
// restored with `--restore latest` until it finishes, writes exactly the records of a clean run,
// each once; also restored at other parallelisms (3 -> 2 and 3 -> 4), where the partitions are
// dealt again by the same owner function. Kill times come from a seeded PRNG: random here,
// printed; PIPEWRIGHT_TEST_SEED repeats them (as far as a machine's timing allows). `npm test` has
// one kill per kind, at fixed moments, in kafkaRestore.test.ts.
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
  randomFor,
  runToEnd,
  testSeed,
} from '../checkpointHelpers.js';
import { makeTempDir, removeTempDirs, writeJob } from '../cliHarness.js';
import { kafkaJobDocument, makeTopic, numbered, produce, removeTopics } from './kafkaSourceHarness.js';
import { withKeepAlive } from './keepAlive.js';
import { describeWithServer } from './servers.js';

const RECORDS = 150_000;
const PARTITIONS = 4;
const CHECKPOINT_MS = 50;
const seed = testSeed();

let topic: string;
let clean: string[];
let cleanMs: number;

afterAll(async () => {
  await removeTopics();
  await removeTempDirs();
});

function job(parallelism: number) {
  return kafkaJobDocument(
    { topic, stopAt: 'latest' },
    { parallelism, settings: { checkpointIntervalMs: CHECKPOINT_MS, checkpointsRetained: 3 } },
  );
}

async function makeRun(label: string, parallelism: number) {
  const dir = await makeTempDir(`pipewright-kafka-restore-${label}-`);
  const jobPath = path.join(dir, 'read.job.json');
  await writeJob(jobPath, job(parallelism));
  return { dir, jobPath, checkpointDir: path.join(dir, '.pipewright', 'kafka-read', 'checkpoints') };
}

await describeWithServer('kafka', 'source.kafka killed and restored', () => {
  beforeAll(async () => {
    topic = await makeTopic('src-restore', PARTITIONS);
    await produce(topic, numbered(RECORDS, PARTITIONS));
    const run = await makeRun('clean', 3);
    const started = Date.now();
    const result = await runToEnd(['run', run.jobPath, '--quiet'], run.dir);
    cleanMs = Date.now() - started;
    expect(result.code, describeResult(result)).toBe(0);
    clean = await outputLines(path.join(run.dir, 'out.jsonl'));
    console.log(`kafka source: a clean run of ${RECORDS} records took ${cleanMs} ms`);
  });

  it('reads, run clean, every record once', () => {
    const ids = clean.map((line) => (JSON.parse(line) as { id: number }).id).sort((a, b) => a - b);
    expect(ids).toEqual(Array.from({ length: RECORDS }, (_, i) => i));
  });

  it.each([
    [3, 3],
    [3, 2],
    [3, 4],
  ])(
    'kill -9 at random moments at parallelism %i, restored at %i: exactly the clean run',
    async (from, to) => {
      const random = randomFor(seed, `kafka ${from}->${to}`);
      const run = await makeRun(`kill-${from}-${to}`, from);
      // Soon after a checkpoint of the run's own (most of a CLI run's time on a loaded machine is
      // its start, not the reading). Three kills at one parallelism; two when rescaling (each restore there is a rescale or not).
      const kills: KillPlan[] = (from === to ? [0, 1, 2] : [0, 1]).map(() => ({
        delayMs: between(random, 0, 400),
        afterCheckpoint: true,
      }));
      const attempts = await crashAndRestore({
        ...run,
        cwd: run.dir,
        kills,
        // The killed runs go on until killed (keepAlive.ts): a random delay after a checkpoint
        // could otherwise come after the run had read everything and exited 0.
        beforeAttempt: (attempt) =>
          writeJob(
            run.jobPath,
            withKeepAlive(job(attempt === 0 ? from : to), ['out'], attempt >= kills.length),
          ),
      });
      const context = `seed ${seed}\n${describeAttempts(attempts)}`;
      console.log(`kafka source ${from} -> ${to}:\n${context}`);
      expectRestoredToEnd(attempts, 1, context);
      const difference = describeDifference(await outputLines(path.join(run.dir, 'out.jsonl')), clean);
      expect(difference, context).toBe('');
    },
  );
});
