// source.generator on the Flink runner (issue 28): record i made by the user's generate in a
// worker beside each reader, so the records, their split across subtasks (ctx.subtask), their
// ctx.random draws and their event times are the local engine's; indexes whose generate returns
// null give none; an async generate is awaited; a throw fails the job in the local engine's
// line. On an embedded MiniCluster, against `pipewright run`.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { describeRun, makeTempDir, removeTempDirs, runCli, writeJob } from './cliHarness.js';
import { FLINK_TIMEOUT, ON_FLINK } from './flinkHarness.js';

afterAll(removeTempDirs);

const TIMED = `function generate(i, ctx) {
  if (i === THROW_AT) throw new RangeError('no ' + i);
  if (i % 17 === 3) return null;
  return { i, k: 'k' + (i % 4), r: ctx.random(), t: 1000000 + i * 2 - (i % 5) * 3, sub: ctx.subtask };
}`;

const ASYNC = `async function generate(i, ctx) {
  await null;
  return i % 5 === 0 ? undefined : { i, r: ctx.random(), of: ctx.parallelism, sub: ctx.subtask, at: ctx.timestamp ?? null };
}`;

function job(throwAt: number) {
  return {
    format: 'pipewright.job/1',
    name: 'generators',
    settings: { maxParallelism: 128, checkpointIntervalMs: 200 },
    operators: [
      {
        id: 'gen',
        kind: 'source.generator',
        parallelism: 2,
        params: {
          count: 2000,
          seed: 7,
          timestampField: 't',
          maxOutOfOrdernessMs: 5,
          code: TIMED.replace('THROW_AT', String(throwAt)),
        },
      },
      { id: 'agen', kind: 'source.generator', parallelism: 3, params: { count: 500, code: ASYNC } },
      {
        id: 'w',
        kind: 'window',
        parallelism: 2,
        params: { type: 'tumbling', sizeMs: 50, aggregate: 'sum', field: 'r' },
      },
      { id: 'sums', kind: 'sink.jsonl', parallelism: 1, params: { path: 'sums.jsonl' } },
      { id: 'all', kind: 'sink.jsonl', parallelism: 1, params: { path: 'all.jsonl' } },
      { id: 'async', kind: 'sink.jsonl', parallelism: 1, params: { path: 'async.jsonl' } },
    ],
    edges: [
      { id: 'e1', from: 'gen', to: 'w', partition: 'hash', key: 'k' },
      { id: 'e2', from: 'w', to: 'sums', partition: 'rebalance' },
      { id: 'e3', from: 'gen', to: 'all', partition: 'rebalance' },
      { id: 'e4', from: 'agen', to: 'async', partition: 'rebalance' },
    ],
  };
}

const SINKS = ['sums', 'all', 'async'];

describe('source.generator on Flink (MiniCluster)', () => {
  it(
    "makes the local engine's records, split and times, and fails in its words",
    async () => {
      const outputs: Record<string, string[]>[] = [];
      for (const engine of ['run', 'flink'] as const) {
        const dir = await makeTempDir('pipewright-flink-generator-');
        await writeJob(path.join(dir, 'gen.job.json'), job(-1) as never);
        const args =
          engine === 'run'
            ? ['run', path.join(dir, 'gen.job.json'), '--quiet', '--threads', '1']
            : ['flink', path.join(dir, 'gen.job.json'), '--quiet'];
        const result = await runCli(args, ON_FLINK);
        expect(result.code, describeRun(result)).toBe(0);
        const bySink: Record<string, string[]> = {};
        for (const id of SINKS) {
          const text = await readFile(path.join(dir, `${id}.jsonl`), 'utf8');
          bySink[id] = text
            .split('\n')
            .filter((line) => line !== '')
            .sort();
        }
        outputs.push(bySink);
      }
      const [local, flink] = outputs as [Record<string, string[]>, Record<string, string[]>];
      // Nulls left out; both subtasks made records; windows summed the records' draws by time.
      expect(local.all).toHaveLength(2000 - 118);
      expect(new Set(local.all!.map((r) => JSON.parse(r).sub))).toEqual(new Set([0, 1]));
      expect(local.async).toHaveLength(400);
      expect(local.sums!.length).toBeGreaterThan(50);
      for (const id of SINKS) expect(flink[id], id).toEqual(local[id]);

      const dir = await makeTempDir('pipewright-flink-generator-');
      await writeJob(path.join(dir, 'gen.job.json'), job(1234) as never);
      const failed = await runCli(['flink', path.join(dir, 'gen.job.json'), '--quiet'], ON_FLINK);
      expect(failed.code, describeRun(failed)).toBe(1);
      expect(failed.stderr.trim()).toBe(
        'pipewright: operator "gen" (subtask 0 of 2) failed: RangeError: no 1234',
      );
    },
    3 * FLINK_TIMEOUT,
  );
});
