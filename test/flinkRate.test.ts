// ratePerSec of the sources made in a worker (source.nexmark, source.generator) on the Flink
// runner (issue 28): each reader makes its share of the rate (Flink's RateLimiter, as the local
// engine's pacer shares it), so 1,500 records at 150 a second take about ten seconds, and the
// records are the local engine's. On an embedded MiniCluster, against `pipewright run`.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { describeRun, makeTempDir, removeTempDirs, runCli, writeJob } from './cliHarness.js';
import { FLINK_TIMEOUT, ON_FLINK } from './flinkHarness.js';

afterAll(removeTempDirs);

const SOURCES = { nexmark: 'bids', generator: 'gen' } as const;

function job() {
  return {
    format: 'pipewright.job/1',
    name: 'paced',
    settings: { maxParallelism: 128, checkpointIntervalMs: 500 },
    operators: [
      { id: 'bids', kind: 'source.nexmark', parallelism: 2, params: { count: 1500, ratePerSec: 150 } },
      {
        id: 'gen',
        kind: 'source.generator',
        parallelism: 2,
        params: {
          count: 1500,
          ratePerSec: 150,
          code: 'function generate(i, ctx) { return { i, r: ctx.random(), sub: ctx.subtask }; }',
        },
      },
      { id: 'nexmark', kind: 'sink.jsonl', parallelism: 1, params: { path: 'nexmark.jsonl' } },
      { id: 'generator', kind: 'sink.jsonl', parallelism: 1, params: { path: 'generator.jsonl' } },
    ],
    edges: [
      { id: 'e1', from: 'bids', to: 'nexmark', partition: 'rebalance' },
      { id: 'e2', from: 'gen', to: 'generator', partition: 'rebalance' },
    ],
  };
}

describe('ratePerSec on Flink (MiniCluster)', () => {
  it(
    "paces the worker-made sources' readers and keeps the local engine's records",
    async () => {
      const outputs: Record<string, string[]>[] = [];
      for (const engine of ['run', 'flink'] as const) {
        const dir = await makeTempDir('pipewright-flink-rate-');
        await writeJob(path.join(dir, 'paced.job.json'), job() as never);
        const args =
          engine === 'run'
            ? ['run', path.join(dir, 'paced.job.json'), '--quiet', '--threads', '1']
            : ['flink', path.join(dir, 'paced.job.json')];
        const started = Date.now();
        const result = await runCli(args, ON_FLINK);
        const tookMs = Date.now() - started;
        expect(result.code, describeRun(result)).toBe(0);
        // 1,500 at 150 a second: ten seconds, less a second's burst the limiter may allow at
        // first. On Flink counted from the job's start (its run time), not the JVM's.
        const ran =
          engine === 'run' ? tookMs : Number(/on Flink in ([0-9.]+) s/.exec(result.stdout)?.[1]) * 1000;
        expect(ran, describeRun(result)).toBeGreaterThan(8000);
        const bySink: Record<string, string[]> = {};
        for (const id of Object.keys(SOURCES)) {
          const text = await readFile(path.join(dir, `${id}.jsonl`), 'utf8');
          bySink[id] = text
            .split('\n')
            .filter((line) => line !== '')
            .sort();
        }
        outputs.push(bySink);
      }
      const [local, flink] = outputs as [Record<string, string[]>, Record<string, string[]>];
      for (const id of Object.keys(SOURCES)) {
        expect(local[id], id).toHaveLength(1500);
        expect(flink[id], id).toEqual(local[id]);
      }
    },
    2 * FLINK_TIMEOUT,
  );
});
