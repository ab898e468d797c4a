// Event time on the Flink runner (issue 28): a source.jsonl with timestampField gives records
// their time and watermarks by the local rule, a keyed process sees ctx.timestamp and
// ctx.watermark as locally, sets event-time timers in Flink's timer service and onTimer fires
// through the worker with the timer's time on what it emits; lines without a time are skipped
// with onBadTimestamp "skip"; the output equals the local engine's, each key's records in order.
// On an embedded MiniCluster.
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  describeRun,
  makeTempDir,
  readJsonl,
  removeTempDirs,
  runCli,
  writeJob,
  writeJsonl,
} from './cliHarness.js';
import { byKey, FLINK_TIMEOUT, ON_FLINK } from './flinkHarness.js';

afterAll(removeTempDirs);

/** Sums each key's values per 100 ms of event time; the sum goes out when the watermark passes. */
const SUMS = `async function process(r, ctx) {
  const sum = ctx.state.value('sum');
  await sum.set(((await sum.get()) ?? 0) + r.v);
  const end = r.t - (r.t % 100) + 99;
  ctx.timers.eventTime(end);
  ctx.emit({ k: r.k, t: r.t, at: ctx.timestamp, watermark: String(ctx.watermark) });
}
async function onTimer(ts, ctx) {
  const sum = ctx.state.value('sum');
  ctx.emit({ k: ctx.key, end: ts, sum: await sum.get(), at: ctx.timestamp, domain: ctx.timeDomain });
  await sum.clear();
}`;

/** Downstream: what time each record came with (the timer's, for the sums). */
const STAMP = 'function map(r, ctx) { return { ...r, came: ctx.timestamp ?? null }; }';

function job(source: Record<string, unknown> = {}) {
  return {
    format: 'pipewright.job/1',
    name: 'sums',
    settings: { maxParallelism: 128, checkpointIntervalMs: 200 },
    operators: [
      {
        id: 'in',
        kind: 'source.jsonl',
        parallelism: 1,
        params: { path: 'in.jsonl', timestampField: 't', maxOutOfOrdernessMs: 20, ...source },
      },
      { id: 'sums', kind: 'process', parallelism: 2, params: { code: SUMS } },
      { id: 'stamp', kind: 'map', parallelism: 2, params: { code: STAMP } },
      { id: 'out', kind: 'sink.jsonl', parallelism: 1, params: { path: 'out.jsonl' } },
    ],
    edges: [
      { id: 'e1', from: 'in', to: 'sums', partition: 'hash', key: 'k' },
      { id: 'e2', from: 'sums', to: 'stamp', partition: 'forward' },
      { id: 'e3', from: 'stamp', to: 'out', partition: 'rebalance' },
    ],
  };
}

/** Mostly in order, some records up to 15 ms late (within the bound: none is dropped). */
function events(count: number): { k: string; t: number; v: number }[] {
  return Array.from({ length: count }, (_, i) => ({
    k: `k${i % 7}`,
    t: 1_000_000 + i * 3 - (i % 5 === 0 ? 15 : 0),
    v: i % 11,
  }));
}

/** The sink's records from `pipewright run` and from `pipewright flink`. */
async function runBoth(
  theJob: unknown,
  rows: readonly unknown[],
): Promise<[Record<string, unknown>[], Record<string, unknown>[]]> {
  const outputs: Record<string, unknown>[][] = [];
  for (const engine of ['run', 'flink'] as const) {
    const dir = await makeTempDir('pipewright-flink-time-');
    await writeJsonl(path.join(dir, 'in.jsonl'), rows);
    await writeJob(path.join(dir, 'sums.job.json'), theJob as never);
    const args =
      engine === 'run'
        ? ['run', path.join(dir, 'sums.job.json'), '--quiet', '--threads', '1']
        : ['flink', path.join(dir, 'sums.job.json'), '--quiet'];
    const result = await runCli(args, ON_FLINK);
    expect(result.code, describeRun(result)).toBe(0);
    outputs.push(await readJsonl<Record<string, unknown>>(path.join(dir, 'out.jsonl')));
  }
  return outputs as [Record<string, unknown>[], Record<string, unknown>[]];
}

describe('event time on Flink (MiniCluster)', () => {
  it(
    "gives timers, watermarks and record times the local engine's output",
    async () => {
      const [local, flink] = await runBoth(job(), events(3000));
      const sums = local.filter((r) => r.end !== undefined);
      // The job does what it says: sums per key and 100 ms, the last ones at the end of input.
      expect(sums.length).toBeGreaterThan(100);
      expect(sums.every((r) => r.at === r.end && r.came === r.end && r.domain === 'eventTime')).toBe(true);
      expect(local.some((r) => r.watermark === '-Infinity')).toBe(true);
      expect(flink).toHaveLength(local.length);
      expect(byKey(flink, 'k')).toEqual(byKey(local, 'k'));
    },
    2 * FLINK_TIMEOUT,
  );

  it(
    'skips lines without a time with onBadTimestamp "skip", as locally',
    async () => {
      // Every 10th record's time is missing, not a date, or null: left out on both engines.
      const rows = events(1000).map((r, i) =>
        i % 10 !== 3 ? r : i % 30 === 3 ? { k: r.k, v: r.v } : { ...r, t: i % 20 === 3 ? 'soon' : null },
      );
      const [local, flink] = await runBoth(job({ onBadTimestamp: 'skip' }), rows);
      const records = local.filter((r) => r.end === undefined);
      expect(records).toHaveLength(900);
      expect(flink).toHaveLength(local.length);
      expect(byKey(flink, 'k')).toEqual(byKey(local, 'k'));
    },
    2 * FLINK_TIMEOUT,
  );
});
