// The parallel executor (`--threads 2`, `--threads 3`) writes what the deterministic one
// (`--threads 1`) writes: on every example in assets/examples/ and on random jobs (seeded; the
// seed is printed and PIPEWRIGHT_TEST_SEED repeats it), the same multiset of lines, and each
// key's lines in the same order. `npm test` tries 4 random jobs of a fixed seed on 2 threads; the
// soak tier runs this file again with 30 of a random one, on 2 and 3.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { validateJob } from '../engine/graph/validation/validateJob.js';
import { describeDifference, testSeed } from './checkpointHelpers.js';
import { describeRun, examplesDir, type JobDocument, readJob, removeTempDirs } from './cliHarness.js';
import { RANDOM_JOB_OUTPUT, randomJob } from './randomJobs.js';
import {
  describeAgainst,
  describeKeyOrderDifference,
  linesByKey,
  runAtThreads,
  sinkPaths,
  type ThreadRun,
} from './threadRuns.js';
import { SOAK } from './tier.js';

afterAll(removeTempDirs);

const seed = testSeed('random jobs');
// 3 threads (another placement of the same subtasks) in the soak tier only: a third of this file's
// time in npm test, where 2 already sends every kind of channel across threads.
const THREADS: readonly number[] = SOAK ? [2, 3] : [2];
const RANDOM_JOBS = SOAK ? 30 : 4;

/** A job at --threads 1 and at each of THREADS, all of which must succeed. */
async function runAll(job: JobDocument, inputs: ReadonlyMap<string, string>, context: string) {
  const reference = await runAtThreads(job, inputs, 1);
  expect(reference.result.code, `${context}\n--threads 1:\n${describeRun(reference.result)}`).toBe(0);
  const others: ThreadRun[] = [];
  for (const threads of THREADS) {
    const run = await runAtThreads(job, inputs, threads);
    expect(run.result.code, `${context}\n--threads ${threads}:\n${describeRun(run.result)}`).toBe(0);
    others.push(run);
  }
  return { reference, others };
}

// ------------------------------------------------------------------------------------ examples

interface ExampleRule {
  /** The key of an output record whose lines keep their order, if the example has one. */
  readonly keyOf?: (record: Record<string, unknown>) => string | undefined;
  /**
   * Lines that depend on how input and feedback interleave, which no executor fixes: they are
   * left out of the comparison and checked by `checkOrderDependent` instead.
   */
  readonly orderDependent?: (line: string) => boolean;
  readonly checkOrderDependent?: (lines: readonly string[], inputs: ReadonlyMap<string, string>) => void;
}

const RULES: Record<string, ExampleRule> = {
  'word-count': { keyOf: (r) => r.word as string },
  'bar-state': { keyOf: (r) => r.barId as string },
  // A move "waits" when it overtakes its item round the feedback edge: how often that happens
  // depends on timing. Whichever waited, each move waits at most once, and only moves wait.
  'owner-has-items': {
    orderDependent: (line) => line.includes('"event":"waiting"'),
    checkOrderDependent: (lines, inputs) => {
      const events = [...inputs.values()]
        .join('')
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as { seq: number; type: string });
      const moves = new Set(events.filter((e) => e.type === 'move').map((e) => e.seq));
      const waits = lines.map((l) => (JSON.parse(l) as { seq: number }).seq);
      for (const seq of waits) expect(moves.has(seq), `waiting seq ${seq} is not a move`).toBe(true);
      expect(new Set(waits).size, 'a move waited twice').toBe(waits.length);
    },
  },
};

const exampleNames = (await readdir(examplesDir, { withFileTypes: true }))
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

/** The example's job and every input file beside it (not its output or state). */
async function loadExample(name: string): Promise<{ job: JobDocument; inputs: Map<string, string> }> {
  const dir = path.join(examplesDir, name);
  const job = await readJob(path.join(dir, `${name}.job.json`));
  const inputs = new Map<string, string>();
  for (const op of job.operators as JobDocument[]) {
    if (op.kind === 'source.jsonl') {
      inputs.set(op.params.path as string, await readFile(path.join(dir, op.params.path as string), 'utf8'));
    }
  }
  return { job, inputs };
}

describe('every example writes the same output on every thread count', () => {
  it('has examples to compare', () => {
    expect(exampleNames.length).toBeGreaterThanOrEqual(3);
  });

  it.each(exampleNames)('%s', async (name) => {
    const { job, inputs } = await loadExample(name);
    const rule = RULES[name] ?? {};
    const { reference, others } = await runAll(job, inputs, `example ${name}`);
    for (const sink of sinkPaths(job)) {
      const expected = reference.outputs.get(sink)!;
      expect(expected.length, `${name}: ${sink} is empty at --threads 1`).toBeGreaterThan(0);
      const compared = (lines: readonly string[]) => lines.filter((l) => !rule.orderDependent?.(l));
      for (const run of others) {
        const lines = run.outputs.get(sink)!;
        const difference = describeDifference(compared(lines), compared(expected));
        expect(difference, describeAgainst(run, reference, sink)).toBe('');
        if (rule.orderDependent !== undefined) {
          rule.checkOrderDependent?.(lines.filter(rule.orderDependent), inputs);
        }
        if (rule.keyOf !== undefined) {
          const order = describeKeyOrderDifference(
            linesByKey(lines, rule.keyOf),
            linesByKey(expected, rule.keyOf),
          );
          expect(order, `${name} --threads ${run.threads}: each key's lines in the same order`).toBe('');
        }
      }
    }
  });
});

// --------------------------------------------------------------------------------- random jobs

/** Keyed operators' lines on port "counts": {by, k, n, ...}. */
const countKey = (record: Record<string, unknown>) =>
  typeof record.by === 'string' && typeof record.n === 'number'
    ? `${record.by}/${String(record.k)}`
    : undefined;

describe(`random jobs (seed ${seed})`, () => {
  const seeds = Array.from({ length: RANDOM_JOBS }, (_, i) => (seed + i * 7919) >>> 0);

  /** Every third job has a loop round a feedback edge. */
  const jobOf = (jobSeed: number) => randomJob(jobSeed, { loop: seeds.indexOf(jobSeed) % 3 === 0 });

  it('are valid jobs, a third of them with a loop', () => {
    const jobs = seeds.map(jobOf);
    const kinds = new Set(jobs.flatMap((j) => (j.job.operators as JobDocument[]).map((op) => op.kind)));
    const partitions = new Set(jobs.flatMap((j) => (j.job.edges as JobDocument[]).map((e) => e.partition)));
    console.log(
      `random jobs: ${jobs.filter((j) => j.loop).length} loops; kinds ${[...kinds].join(', ')}; partitions ${[...partitions].join(', ')}`,
    );
    for (const { job, summary } of jobs) {
      const { problems } = validateJob(job);
      expect(problems, summary).toEqual([]);
    }
    expect(jobs.filter((j) => j.loop).length).toBeGreaterThanOrEqual(RANDOM_JOBS / 3);
  });

  it.each(seeds)('job %i', async (jobSeed) => {
    const { job, inputs, summary } = jobOf(jobSeed);
    const context = `PIPEWRIGHT_TEST_SEED=${seed}\n${summary}`;
    const { reference, others } = await runAll(job, inputs, context);
    const expected = reference.outputs.get(RANDOM_JOB_OUTPUT)!;
    expect(expected.length, `${context}\nno output at --threads 1`).toBeGreaterThan(0);
    for (const run of others) {
      const lines = run.outputs.get(RANDOM_JOB_OUTPUT)!;
      expect(
        describeDifference(lines, expected),
        `${context}\n${describeAgainst(run, reference, RANDOM_JOB_OUTPUT)}`,
      ).toBe('');
      const order = describeKeyOrderDifference(linesByKey(lines, countKey), linesByKey(expected, countKey));
      expect(order, `${context}\n--threads ${run.threads}: each key's lines in the same order`).toBe('');
    }
  });
});
