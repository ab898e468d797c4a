// Faults of a run on several threads (`--threads 2`), through the real CLI: user code that throws
// in a worker fails the run with the one line the deterministic executor writes; a worker that
// dies (out of memory) fails it in one line naming the operator and the subtask, and
// `--restore latest` with fixed code resumes to exactly the clean output; and SIGTERM stops the
// run cleanly, its restore ending with the clean output. That a fast source and a slow operator
// on another thread keep the queues within the channels' capacity is checked here in the soak
// tier (parallelFaults.soak.test.ts, 13 s of work by design) and in this process on every run
// (engine/deploy/jobRun.test.ts, "backpressure").
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGG_OUTPUT, aggJob, writeAggInput } from './aggJob.js';
import {
  cliBin,
  describeDifference,
  describeResult,
  finish,
  inspectCheckpointDir,
  multisetDifference,
  outputLines,
  runToEnd,
  startCli,
  startNode,
  waitUntil,
} from './checkpointHelpers.js';
import {
  describeRun,
  type JobDocument,
  makeTempDir,
  removeTempDirs,
  runCli,
  writeJob,
} from './cliHarness.js';

afterAll(removeTempDirs);

/** src (JSONL, {id, k}) -> `operator` (process, keyed by k, at parallelism 2) -> out. */
function keyedProcessJob(
  operator: string,
  code: string,
  settings: Record<string, unknown> = {},
): JobDocument {
  return {
    format: 'pipewright.job/1',
    name: 'faults',
    settings: { checkpointIntervalMs: 0, ...settings },
    operators: [
      { id: 'src', kind: 'source.jsonl', parallelism: 1, params: { path: 'in.jsonl' } },
      { id: operator, kind: 'process', parallelism: 2, params: { code } },
      { id: 'out', kind: 'sink.jsonl', parallelism: 1, params: { path: 'out.jsonl' } },
    ],
    edges: [
      { id: 'in', from: 'src', to: operator, partition: 'hash', key: 'k' },
      { id: 'done', from: operator, to: 'out', partition: 'rebalance' },
    ],
  };
}

async function writeKeyedInput(dir: string, records: number): Promise<void> {
  const lines = Array.from({ length: records }, (_, i) => JSON.stringify({ id: i + 1, k: `k${i % 7}` }));
  await writeFile(path.join(dir, 'in.jsonl'), `${lines.join('\n')}\n`);
}

/** Lines of stderr that say something (a run with --quiet prints only errors). */
const saying = (stderr: string) => stderr.split('\n').filter((line) => line.trim() !== '');
/** What an engine stack trace or an internal failure looks like. */
const ENGINE_TRACE = /internal error|\n\s+at |file:\/\/|\.js:\d+:\d+/;

// -------------------------------------------------------------------------- a user-code error

describe('user code that throws in a worker', () => {
  const THROWS = `function process(r, ctx) {
  if (r.id === 1500) throw new Error('cannot take record 1500');
  ctx.emit(r);
}`;

  it('fails the run with exit 1 and the same one line as on one thread: operator, subtask, file:line', async () => {
    const stderrOf = new Map<number, string>();
    for (const threads of [1, 2]) {
      const dir = await makeTempDir(`pipewright-throws-${threads}-`);
      await writeKeyedInput(dir, 3000);
      await writeJob(path.join(dir, 'job.json'), keyedProcessJob('picky', THROWS));
      const result = await runCli(['run', 'job.json', '--quiet', '--threads', String(threads)], { cwd: dir });
      expect(result.code, `--threads ${threads}\n${describeRun(result)}`).toBe(1);
      expect(saying(result.stderr), `--threads ${threads}: one line\n${describeRun(result)}`).toHaveLength(1);
      expect(result.stderr).not.toMatch(ENGINE_TRACE);
      stderrOf.set(threads, result.stderr);
    }
    // Record 1500 has key k2, which the hash edge sends to subtask 1 of 2.
    expect(stderrOf.get(1)).toMatch(
      /operator "picky" \(subtask \d of 2\) failed on the record from in\.jsonl:1500: cannot take record 1500/,
    );
    expect(stderrOf.get(2)).toBe(stderrOf.get(1));
  });
});

// ------------------------------------------------------------------------------ a worker dies

describe('a worker that runs out of memory', () => {
  // Far enough into the input that a checkpoint completes first even on a fast machine (at
  // 30,000 a Node 24 run once got to it before any had).
  const RECORDS = 130_000;
  const HOGS_AT = 120_000;
  const hogging = `function process(r, ctx) {
  if (r.id === ${HOGS_AT}) {
    const all = [];
    for (;;) all.push(new Array(100000).fill(r.id));
  }
  ctx.emit(r);
}`;
  const fixed = 'function process(r, ctx) {\n  ctx.emit(r);\n}';

  it('fails the run in one line naming the operator and subtask; --restore latest with fixed code ends with the clean output', async () => {
    const dir = await makeTempDir('pipewright-oom-');
    await writeKeyedInput(dir, RECORDS);
    const jobPath = path.join(dir, 'job.json');
    // Slow enough to take checkpoints (every 40 ms) before the record that exhausts the heap.
    const settings = { checkpointIntervalMs: 40 };
    await writeJob(jobPath, keyedProcessJob('hog', hogging, settings));
    // A small heap for every thread of the process, so the allocation ends soon.
    const run = startNode(
      ['--max-old-space-size=256', cliBin, 'run', 'job.json', '--quiet', '--threads', '2'],
      dir,
    );
    const died = await finish(run, 60_000, 'the run that runs out of memory');
    expect(died.code, describeResult(died)).toBe(1);
    expect(saying(died.stderr), describeResult(died)).toHaveLength(1);
    expect(died.stderr).toMatch(/out of memory/);
    expect(died.stderr).toMatch(/operator "hog" \(subtask [01] of 2\)/);
    expect(died.stderr).not.toMatch(ENGINE_TRACE);
    const checkpoints = inspectCheckpointDir(
      path.join(dir, '.pipewright', 'faults', 'checkpoints'),
    ).completed;
    expect(checkpoints.length, 'checkpoints before the worker died').toBeGreaterThan(0);

    await writeJob(jobPath, keyedProcessJob('hog', fixed, settings));
    const restored = await runToEnd(['run', 'job.json', '--restore', 'latest', '--threads', '2'], dir);
    expect(restored.code, describeResult(restored)).toBe(0);
    expect(restored.stderr).toMatch(/restoring checkpoint \d+/);
    const expected = Array.from({ length: RECORDS }, (_, i) => JSON.stringify({ id: i + 1, k: `k${i % 7}` }));
    const lines = await outputLines(path.join(dir, 'out.jsonl'));
    expect(describeDifference(lines, expected)).toBe('');
  }, 120_000);
});

// ------------------------------------------------------------------------------ SIGTERM

describe('SIGTERM to a run on 2 threads', () => {
  const RECORDS = 150_000;
  let input: string;
  let clean: string[];

  beforeAll(async () => {
    const fixtures = await makeTempDir('pipewright-sigterm-inputs-');
    input = path.join(fixtures, 'records.jsonl');
    writeAggInput(input, RECORDS, 2_000);
    const dir = await makeTempDir('pipewright-sigterm-clean-');
    const jobPath = path.join(dir, 'agg.job.json');
    await writeJob(jobPath, aggJob(input, { intervalMs: 0, parallelism: 2 }));
    const result = await runToEnd(['run', jobPath, '--quiet', '--trust', '--threads', '1'], dir);
    expect(result.code, describeResult(result)).toBe(0);
    clean = await outputLines(path.join(dir, AGG_OUTPUT));
    expect(clean).toHaveLength(RECORDS);
  }, 60_000);

  it('stops it cleanly mid-run (exit 0), and --restore latest ends with exactly the clean output', async () => {
    const dir = await makeTempDir('pipewright-sigterm-');
    const jobPath = path.join(dir, 'agg.job.json');
    await writeJob(jobPath, aggJob(input, { intervalMs: 80, parallelism: 2 }));
    const checkpointDir = path.join(dir, '.pipewright', 'agg', 'checkpoints');
    const run = startCli(['run', jobPath, '--trust', '--threads', '2'], dir);
    const checkpointed = await waitUntil(() => inspectCheckpointDir(checkpointDir).completed.length > 0, {
      run,
      timeoutMs: 60_000,
    });
    run.child.kill('SIGTERM');
    const stopped = await finish(run, 30_000, 'the run stopped by SIGTERM');
    expect(checkpointed, `no checkpoint before the run ended\n${describeResult(stopped)}`).toBe(true);
    expect(stopped.code, describeResult(stopped)).toBe(0);
    expect(stopped.stderr).toContain('SIGTERM: stopping cleanly');
    const atStop = await outputLines(path.join(dir, AGG_OUTPUT));
    expect(atStop.length, 'the stop came before the end of the input').toBeLessThan(RECORDS);
    // What the stop published belongs to the clean output (each line once).
    expect(multisetDifference(atStop, clean).extra, 'lines the clean run has not').toEqual([]);

    const restored = await runToEnd(
      ['run', jobPath, '--trust', '--restore', 'latest', '--threads', '2', '--quiet'],
      dir,
    );
    expect(restored.code, describeResult(restored)).toBe(0);
    const lines = await outputLines(path.join(dir, AGG_OUTPUT));
    expect(describeDifference(lines, clean)).toBe('');
  }, 120_000);
});
