// `window` on the Flink runner (issue 28): Flink's window operator gives the local window kind's
// output: tumbling windows with an offset, sliding and session windows, count, sum, min, max and
// avg of fractional numbers (written as JavaScript writes them), composite keys, allowed
// lateness (a window fires again for a late record) and the late port (records late for every
// window, unchanged); code aggregates folded in a worker, session merges replayed in the local
// engine's order, and their failures. On an embedded MiniCluster, against the local engine.
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

/** The job's sinks' lines, sorted, from `pipewright run` and from `pipewright flink`. */
async function runBoth(
  name: string,
  job: unknown,
  rows: readonly unknown[],
  sinks: readonly string[],
): Promise<[Record<string, string[]>, Record<string, string[]>]> {
  const outputs: Record<string, string[]>[] = [];
  for (const engine of ['run', 'flink'] as const) {
    const dir = await makeTempDir('pipewright-flink-windows-');
    await writeJsonl(path.join(dir, 'in.jsonl'), rows);
    await writeJob(path.join(dir, `${name}.job.json`), job as never);
    const args =
      engine === 'run'
        ? ['run', path.join(dir, `${name}.job.json`), '--quiet', '--threads', '1']
        : ['flink', path.join(dir, `${name}.job.json`), '--quiet'];
    const result = await runCli(args, ON_FLINK);
    expect(result.code, describeRun(result)).toBe(0);
    const bySink: Record<string, string[]> = {};
    for (const id of sinks) {
      // The lines as written: a number is compared as its text (`2`, not `2.0`).
      const text = await readFile(path.join(dir, `${id}.jsonl`), 'utf8');
      bySink[id] = text
        .split('\n')
        .filter((line) => line !== '')
        .sort();
    }
    outputs.push(bySink);
  }
  return outputs as [Record<string, string[]>, Record<string, string[]>];
}

/**
 * A code aggregate whose value shows how it was built: `ids` in the order add and merge put them
 * (a merge of sessions that came in another order than their starts shows out of order), `m` the
 * merges, `s` a sum of fractions (its digits change with the order of additions).
 */
const RECORDING = [
  'function createAccumulator() { return { n: 0, m: 0, s: 0, ids: [] }; }',
  'function add(acc, r) { acc.n++; acc.s += r.v; acc.ids.push(r.i); return acc; }',
  'function merge(a, b) { return { n: a.n + b.n, m: a.m + b.m + 1, s: a.s + b.s, ids: a.ids.concat(b.ids) }; }',
  "function result(acc) { return { n: acc.n, m: acc.m, s: acc.s, ids: acc.ids.join(' ') }; }",
].join('\n');

function codeJob(code: string) {
  const aggregate = { aggregate: 'code', code };
  return {
    format: 'pipewright.job/1',
    name: 'code-windows',
    settings: { maxParallelism: 128, checkpointIntervalMs: 200 },
    operators: [
      {
        id: 'in',
        kind: 'source.jsonl',
        parallelism: 1,
        params: { path: 'in.jsonl', timestampField: 't', maxOutOfOrdernessMs: 60 },
      },
      window('tumbling', {
        type: 'tumbling',
        sizeMs: 100,
        offsetMs: -30,
        allowedLatenessMs: 120,
        ...aggregate,
      }),
      window('sliding', { type: 'sliding', sizeMs: 100, slideMs: 40, ...aggregate }),
      window('sessions', { type: 'session', gapMs: 20, allowedLatenessMs: 100, ...aggregate }),
      sink('t'),
      sink('s'),
      sink('m'),
      sink('late'),
    ],
    edges: [
      { id: 'e1', from: 'in', to: 'tumbling', partition: 'hash', key: 'k' },
      { id: 'e2', from: 'in', to: 'sliding', partition: 'hash', key: 'k' },
      { id: 'e3', from: 'in', to: 'sessions', partition: 'hash', key: ['k', 'g'] },
      { id: 'o1', from: 'tumbling', to: 't', partition: 'rebalance' },
      { id: 'o2', from: 'sliding', to: 's', partition: 'rebalance' },
      { id: 'o3', from: 'sessions', to: 'm', partition: 'rebalance' },
      { id: 'o4', from: 'sessions', fromPort: 'late', to: 'late', partition: 'rebalance' },
    ],
  };
}

/**
 * Out of order within the bound and beyond: a third of the records up to 80 ms back (sessions
 * made late, then bridged by later records), every 29th 400 ms back (late for every window).
 */
function disordered(count: number) {
  let t = 1_000_000;
  return Array.from({ length: count }, (_, i) => {
    t += 1 + ((i * 5) % 7);
    const back = i % 29 === 28 ? 400 : (i * 7919) % 13 < 4 ? ((i * 31) % 9) * 10 : 0;
    return { k: `k${i % 3}`, g: i % 2, t: t - back, v: (i % 13) / 4 - 1.1, i };
  });
}

describe('windows on Flink (MiniCluster)', () => {
  it(
    "give the local window kind's results, lateness and late records included",
    async () => {
      const [local, flink] = await runBoth('windows', job(), events(3000), SINKS);
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

  it(
    "run a code aggregate in a worker to the local engine's lines: merges, refirings, late records",
    async () => {
      const sinks = ['t', 's', 'm', 'late'];
      const [local, flink] = await runBoth('code-windows', codeJob(RECORDING), disordered(3000), sinks);
      const values = (lines: readonly string[]) =>
        lines.map((line) => (JSON.parse(line) as { value: { m: number; ids: string } }).value);
      // Sessions merged, some in another order than they came (merge's order is the local one).
      const sessions = values(local.m!);
      expect(sessions.some((v) => v.m > 0)).toBe(true);
      const outOfOrder = (ids: string) => {
        const n = ids.split(' ').map(Number);
        return n.some((id, i) => i > 0 && id < n[i - 1]!);
      };
      expect(sessions.some((v) => outOfOrder(v.ids))).toBe(true);
      expect(local.m!.some((r) => r.startsWith('{"key":["k'))).toBe(true);
      // Tumbling windows fired again for records within the lateness; some records were too late.
      const fired = local.t!.map((r) => JSON.stringify({ ...JSON.parse(r), value: 0 }));
      expect(new Set(fired).size).toBeLessThan(fired.length);
      expect(local.late!.length).toBeGreaterThan(0);
      for (const id of sinks) expect(flink[id], id).toEqual(local[id]);
    },
    2 * FLINK_TIMEOUT,
  );

  it(
    "fails a job whose aggregate throws with the local engine's line",
    async () => {
      const code = RECORDING.replace(
        'acc.n++;',
        "if (r.i === 1500) throw new RangeError('bad ' + r.k); acc.n++;",
      );
      // Only the tumbling window's code throws, so both engines fail at the same operator.
      const bad = codeJob(RECORDING);
      bad.operators[1]!.params = { ...bad.operators[1]!.params, code };
      const lines: string[] = [];
      for (const engine of ['run', 'flink'] as const) {
        const dir = await makeTempDir('pipewright-flink-windows-');
        await writeJsonl(path.join(dir, 'in.jsonl'), disordered(3000));
        await writeJob(path.join(dir, 'bad.job.json'), bad as never);
        const args = [
          engine,
          path.join(dir, 'bad.job.json'),
          '--quiet',
          ...(engine === 'run' ? ['--threads', '1'] : []),
        ];
        const result = await runCli(args, ON_FLINK);
        expect(result.code, describeRun(result)).toBe(1);
        lines.push(result.stderr.trim());
      }
      // On Flink the line names no source line (the record came through the window's state).
      expect(lines[0]).toMatch(
        /^pipewright: operator "tumbling" \(subtask 1 of 2\) failed on the record from in\.jsonl:1501: RangeError: bad k0$/,
      );
      expect(lines[1]).toBe(lines[0]!.replace(' on the record from in.jsonl:1501', ''));
    },
    2 * FLINK_TIMEOUT,
  );
});
