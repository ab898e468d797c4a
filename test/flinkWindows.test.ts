// `window` on the Flink runner (issue 28): Flink's window operator gives the local window kind's
// output: tumbling windows with an offset, sliding and session windows, count, sum, min, max and
// avg of fractional numbers (written as JavaScript writes them), composite keys, allowed
// lateness (a window fires again for a late record) and the late port (records late for every
// window, unchanged). On an embedded MiniCluster, against the local engine.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { describeRun, makeTempDir, removeTempDirs, runCli, writeJob, writeJsonl } from './cliHarness.js';
import { FLINK_TIMEOUT, ON_FLINK } from './flinkHarness.js';

afterAll(removeTempDirs);

const window = (id: string, params: Record<string, unknown>) => ({
  id,
  kind: 'window',
  parallelism: 2,
  params,
});
const sink = (id: string) => ({ id, kind: 'sink.jsonl', parallelism: 1, params: { path: `${id}.jsonl` } });

function job() {
  return {
    format: 'pipewright.job/1',
    name: 'windows',
    settings: { maxParallelism: 128, checkpointIntervalMs: 200 },
    operators: [
      { id: 'in', kind: 'source.jsonl', parallelism: 1, params: { path: 'in.jsonl', timestampField: 't' } },
      window('tumbling', {
        type: 'tumbling',
        sizeMs: 100,
        offsetMs: -30,
        aggregate: 'avg',
        field: 'v',
        allowedLatenessMs: 60,
      }),
      window('sliding', { type: 'sliding', sizeMs: 100, slideMs: 40, aggregate: 'min', field: 'v' }),
      window('sessions', { type: 'session', gapMs: 25, aggregate: 'sum', field: 'n.x' }),
      window('counts', { type: 'tumbling', sizeMs: 250, aggregate: 'count' }),
      window('highest', { type: 'tumbling', sizeMs: 250, aggregate: 'max', field: 'v' }),
      sink('avg'),
      sink('min'),
      sink('sum'),
      sink('count'),
      sink('max'),
      sink('late'),
    ],
    edges: [
      { id: 'e1', from: 'in', to: 'tumbling', partition: 'hash', key: 'k' },
      { id: 'e2', from: 'in', to: 'sliding', partition: 'hash', key: 'k' },
      { id: 'e3', from: 'in', to: 'sessions', partition: 'hash', key: ['k', 'g'] },
      { id: 'e4', from: 'in', to: 'counts', partition: 'hash', key: 'g' },
      { id: 'e5', from: 'in', to: 'highest', partition: 'hash', key: 'k' },
      { id: 'o1', from: 'tumbling', to: 'avg', partition: 'rebalance' },
      { id: 'o2', from: 'sliding', to: 'min', partition: 'rebalance' },
      { id: 'o3', from: 'sessions', to: 'sum', partition: 'rebalance' },
      { id: 'o4', from: 'counts', to: 'count', partition: 'rebalance' },
      { id: 'o5', from: 'highest', to: 'max', partition: 'rebalance' },
      { id: 'o6', from: 'tumbling', fromPort: 'late', to: 'late', partition: 'rebalance' },
    ],
  };
}

/** Mostly in time order; every 37th record 90 ms late (some within the lateness, some beyond). */
function events(count: number) {
  let t = 1_000_000;
  return Array.from({ length: count }, (_, i) => {
    t += 1 + (i % 7);
    return {
      k: `k${i % 5}`,
      g: i % 3,
      t: i % 37 === 36 ? t - 90 : t,
      v: (i % 13) / 4 - 1.1,
      n: { x: (i % 9) * 0.3 },
      i,
    };
  });
}

const SINKS = ['avg', 'min', 'sum', 'count', 'max', 'late'];

describe('windows on Flink (MiniCluster)', () => {
  it(
    "give the local window kind's results, lateness and late records included",
    async () => {
      const outputs: Record<string, string[]>[] = [];
      for (const engine of ['run', 'flink'] as const) {
        const dir = await makeTempDir('pipewright-flink-windows-');
        await writeJsonl(path.join(dir, 'in.jsonl'), events(3000));
        await writeJob(path.join(dir, 'windows.job.json'), job() as never);
        const args =
          engine === 'run'
            ? ['run', path.join(dir, 'windows.job.json'), '--quiet', '--threads', '1']
            : ['flink', path.join(dir, 'windows.job.json'), '--quiet'];
        const result = await runCli(args, ON_FLINK);
        expect(result.code, describeRun(result)).toBe(0);
        const bySink: Record<string, string[]> = {};
        for (const id of SINKS) {
          // The lines as written: a number is compared as its text (`2`, not `2.0`).
          const text = await readFile(path.join(dir, `${id}.jsonl`), 'utf8');
          bySink[id] = text
            .split('\n')
            .filter((line) => line !== '')
            .sort();
        }
        outputs.push(bySink);
      }
      const [local, flink] = outputs as [Record<string, string[]>, Record<string, string[]>];
      // The job exercises what it says: fractional values, refirings, late records, composite keys.
      expect(local.avg!.some((r) => /"value":-?\d+\.\d+/.test(r))).toBe(true);
      const fired = local.avg!.map((r) => JSON.stringify({ ...JSON.parse(r), value: 0 }));
      expect(new Set(fired).size).toBeLessThan(fired.length);
      expect(local.late!.length).toBeGreaterThan(0);
      expect(local.sum!.some((r) => r.startsWith('{"key":["k'))).toBe(true);
      for (const id of SINKS) expect(flink[id], id).toEqual(local[id]);
    },
    2 * FLINK_TIMEOUT,
  );
});
