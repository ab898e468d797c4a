// Jobs built as objects, validated, and run by the real engine (SES user code, LevelDB state in
// a temp dir) on both executors (test/executors.ts): determinism, backpressure, feedback loops,
// routing, both state backends, side outputs, failures and the exactly-once sink. Tests that
// watch the deterministic order itself (an observer of every delivery) run on JobRun only.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeDifference } from '../../test/checkpointHelpers.js';
import { EXECUTORS, type Executor, openJob, runJob as runOn } from '../../test/executors.js';
import { fn, makeJob, sink, generator as source } from '../../test/jobBuilders.js';
import { describeKeyOrderDifference, linesByKey } from '../../test/threadRuns.js';
import { JobError } from '../graph/jobError.js';
import { keyGroupOf, subtaskOfKeyGroup } from '../graph/keyGroups.js';
import type { Job } from '../graph/schema.js';
import type { JobMetrics } from '../metrics/jobMetrics.js';
import { SLICE_RECORDS } from '../runtime/deterministicExecutor.js';
import type { DeliveryObserver } from '../runtime/subtask.js';
import { CHANNEL_CAPACITY, THREAD_CHANNEL_CAPACITY } from './channelWiring.js';
import { JobRun } from './jobRun.js';

let root: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'pipewright-jobrun-'));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function jobDir(files: Record<string, string> = {}): Promise<string> {
  const dir = await mkdtemp(join(root, 'job-'));
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
  return dir;
}

/** Runs a job to its end on `executor`. */
async function runJob(job: Job, dir: string, executor: Executor): Promise<{ metrics: JobMetrics }> {
  return runOn(executor, job, { jobDir: dir, stateDir: join(dir, 'state') });
}

/**
 * Runs a job on JobRun with an observer of every delivery, in order (in-process and in one
 * order: the deterministic executor only); `observe` may read the run (e.g. its metrics).
 */
async function runObserved(
  job: Job,
  dir: string,
  observe: (run: () => JobRun) => DeliveryObserver,
): Promise<{ metrics: JobMetrics }> {
  let run: JobRun | undefined;
  const observer = observe(() => run!);
  run = await JobRun.open(job, { jobDir: dir, stateDir: join(dir, 'state'), observer });
  return run.run();
}

async function readJsonl<T = Record<string, unknown>>(path: string): Promise<T[]> {
  const text = await readFile(path, 'utf8');
  return text
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line) as T);
}

function jsonl(records: readonly unknown[]): string {
  return records.map((r) => `${JSON.stringify(r)}\n`).join('');
}

function operatorMetrics(metrics: JobMetrics, id: string) {
  const op = metrics.operators.find((o) => o.id === id);
  expect(op, id).toBeDefined();
  return op!;
}

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the run to fail');
}

describe('determinism', () => {
  const events = Array.from({ length: 1000 }, (_, j) => ({ i: 100_000 + j, k: `k${j % 17}`, r: j }));
  const determinismJob = () =>
    makeJob(
      'determinism',
      [
        source(
          'gen',
          'function generate(i, ctx) { return { i, k: "k" + (i % 23), r: Math.floor(ctx.random() * 1000) }; }',
          4000,
          2,
          7,
        ),
        { id: 'file', kind: 'source.jsonl', params: { path: 'events.jsonl' } },
        fn(
          'split',
          'flatMap',
          'function flatMap(r) { return r.r % 3 === 0 ? [r, { ...r, copy: true }] : [r]; }',
          2,
        ),
        fn(
          'count',
          'process',
          `async function process(r, ctx) {
          const c = ctx.state.value('c');
          const n = (c.get() ?? 0) + 1;
          c.set(n);
          if (r.i % 10 === 0) await null;
          ctx.emit({ k: r.k, i: r.i, copy: r.copy === true, n, s: ctx.subtask });
        }`,
          3,
        ),
        sink('out', 'out.jsonl', 2),
      ],
      [
        { id: 'gen-split', from: 'gen', to: 'split', partition: 'rebalance' },
        { id: 'split-count', from: 'split', to: 'count', partition: 'hash', key: 'k' },
        { id: 'file-count', from: 'file', to: 'count', partition: 'hash', key: 'k' },
        { id: 'count-out', from: 'count', to: 'out', partition: 'rebalance' },
      ],
    );

  async function traced() {
    const dir = await jobDir({ 'events.jsonl': jsonl(events) });
    const hash = createHash('sha256');
    let deliveries = 0;
    await runObserved(determinismJob(), dir, () => (subtask, channel, envelope) => {
      deliveries++;
      hash.update(
        `${subtask.label}<-${channel.edge.id}/${channel.fromSubtask}:${JSON.stringify(envelope.value)}\n`,
      );
    });
    const output = await readFile(join(dir, 'out.jsonl'), 'utf8');
    return { trace: hash.digest('hex'), deliveries, output };
  }

  // The order of every delivery is the deterministic executor's promise (and only JobRun has observers).
  it('the same job and input give the same deliveries in the same order, and the same output', async () => {
    const first = await traced();
    const second = await traced();
    expect(second.trace).toBe(first.trace);
    expect(second.output).toBe(first.output);
    // gen -> split, then every record split -> count or file -> count, and count -> out.
    expect(first.deliveries).toBe(4000 + 2 * first.output.split('\n').filter(Boolean).length);
  });

  it.each(EXECUTORS)(
    '%s: every record comes out once, and each key counts its records 1..n',
    async (executor) => {
      const run = async (on: Executor) => {
        const dir = await jobDir({ 'events.jsonl': jsonl(events) });
        const { metrics } = await runJob(determinismJob(), dir, on);
        return { out: (await readFile(join(dir, 'out.jsonl'), 'utf8')).split('\n').filter(Boolean), metrics };
      };
      const { out, metrics } = await run(executor);
      const copies = out.filter((line) => line.includes('"copy":true')).length;
      expect(out.length).toBe(4000 + 1000 + copies);
      expect(copies).toBeGreaterThan(1000);
      expect(operatorMetrics(metrics, 'count').recordsIn).toBe(out.length);
      // Value state counted each key's records: per key, n runs 1..count.
      const byKey = new Map<string, number[]>();
      for (const line of out) {
        const { k, n } = JSON.parse(line) as { k: string; n: number };
        byKey.set(k, [...(byKey.get(k) ?? []), n]);
      }
      for (const [k, ns] of byKey) {
        expect(
          [...ns].sort((a, b) => a - b),
          k,
        ).toEqual(ns.map((_, i) => i + 1));
      }
      // The same records as on one thread; which got which n depends on how count's three inputs
      // interleave, which threads do not fix.
      const withoutN = (lines: readonly string[]) =>
        lines.map((line) => {
          const { n: _n, ...rest } = JSON.parse(line) as Record<string, unknown>;
          return JSON.stringify(rest);
        });
      const reference = executor === 'deterministic' ? out : (await run('deterministic')).out;
      expect(describeDifference(withoutN(out), withoutN(reference))).toBe('');
    },
  );
});

describe('backpressure', () => {
  const COUNT = 200_000;
  const FANNED = 8000;
  const operators = [
    source('gen', 'function generate(i) { return { i, pad: "x".repeat(200 + (i % 50)) }; }', COUNT),
    // The first records fan out 16-fold: a slice of them overfills the channels to slow.
    fn(
      'fan',
      'flatMap',
      `function flatMap(r) {
        if (r.i >= ${FANNED}) return [r];
        const out = [r];
        for (let c = 1; c < 16; c++) out.push({ i: -(r.i * 16 + c), pad: r.pad });
        return out;
      }`,
      2,
    ),
    // Async: the engine awaits it before the subtask takes its next record. One subtask, so
    // a slice of fan's output (128 records x 16) would all go into one channel unchecked.
    fn(
      'slow',
      'process',
      'async function process(r, ctx) { if (r.i % 1000 === 0) await null; ctx.emit(r); }',
    ),
    fn('slim', 'map', 'function map(r) { return { i: r.i }; }', 3),
    sink('out', 'out.jsonl', 3),
  ];
  const edges = [
    { id: 'gen-fan', from: 'gen', to: 'fan', partition: 'rebalance' },
    { id: 'fan-slow', from: 'fan', to: 'slow', partition: 'hash', key: 'i' },
    { id: 'slow-slim', from: 'slow', to: 'slim', partition: 'rebalance' },
    { id: 'slim-out', from: 'slim', to: 'out', partition: 'forward' },
  ];
  const job = () => makeJob('backpressure', operators, edges);
  // Input channels of each subtask: one per upstream subtask, or one for forward.
  const parallelism = new Map(operators.map((op) => [op.id, op.parallelism ?? 1]));
  const inputChannels = (id: string) =>
    edges
      .filter((e) => e.to === id)
      .reduce((n, e) => n + (e.partition === 'forward' ? 1 : parallelism.get(e.from)!), 0);
  // A subtask yields once a send fills a channel, so a channel holds at most its capacity
  // plus what one record emits (at most 16 here), plus the end-of-stream marker. On several
  // threads a channel between two threads holds THREAD_CHANNEL_CAPACITY, and a source makes a
  // slice of records before it looks again: on one thread it runs only once everything below it
  // is drained, but on several it runs beside its consumer, so its channel may take a slice more.
  const bound = (id: string, threads = false) =>
    inputChannels(id) *
    (threads ? Math.max(CHANNEL_CAPACITY, THREAD_CHANNEL_CAPACITY) + SLICE_RECORDS : CHANNEL_CAPACITY + 16);
  /** Throws at a subtask holding more than its bound; gives each subtask's queue. */
  const checkQueues = (metrics: JobMetrics, maxQueued: Map<string, number>, threads = false) => {
    for (const op of metrics.operators) {
      for (const s of op.subtasks) {
        const label = `${op.id}#${s.subtask}`;
        maxQueued.set(label, Math.max(maxQueued.get(label) ?? 0, s.queued));
        if (s.queued > bound(op.id, threads)) {
          throw new Error(`${label} holds ${s.queued} items, more than ${bound(op.id, threads)}`);
        }
      }
    }
  };
  const expectEveryRecord = async (dir: string, metrics: JobMetrics) => {
    const extra = FANNED * 15;
    expect(operatorMetrics(metrics, 'out').recordsIn).toBe(COUNT + extra);
    const out = await readJsonl<{ i: number }>(join(dir, 'out.jsonl'));
    expect(out).toHaveLength(COUNT + extra);
    const seen = new Set(out.map((r) => r.i));
    expect(seen.size).toBe(COUNT + extra);
    for (let i = 0; i < COUNT; i++) if (!seen.has(i)) throw new Error(`record ${i} is missing`);
  };

  // Samples every 499th delivery and each channel's fill exactly: an observer, JobRun only.
  it('no subtask ever holds more than its channels can take, and every record arrives', async () => {
    const maxQueued = new Map<string, number>();
    let samples = 0;
    let deliveries = 0;
    // Per channel, exactly: what a channel held just before this delivery took an item from it.
    let fullest = 0;
    const dir = await jobDir();
    const { metrics } = await runObserved(job(), dir, (run) => (_subtask, channel) => {
      fullest = Math.max(fullest, channel.size + 1);
      if (++deliveries % 499 !== 0) return;
      samples++;
      checkQueues(run().metrics(), maxQueued);
    });
    expect(samples).toBeGreaterThan(1000);
    // The fan-out filled slow's channels: backpressure held fan back, and the samples saw it.
    expect(maxQueued.get('slow#0')).toBeGreaterThan(CHANNEL_CAPACITY / 2);
    expect(fullest).toBeGreaterThanOrEqual(CHANNEL_CAPACITY);
    expect(fullest).toBeLessThanOrEqual(CHANNEL_CAPACITY + 15);
    await expectEveryRecord(dir, metrics);
  });

  it('parallel: no subtask holds more than its channels can take in any report, and every record arrives', async () => {
    const dir = await jobDir();
    const run = await openJob('parallel', job(), { jobDir: dir, stateDir: join(dir, 'state') });
    const maxQueued = new Map<string, number>();
    let overflow: unknown;
    // The threads report their figures now and then: each report is checked.
    const sampler = setInterval(() => {
      const metrics = run.metrics();
      try {
        if (metrics !== undefined) checkQueues(metrics, maxQueued, true);
      } catch (error) {
        overflow ??= error;
      }
    }, 5);
    const { metrics } = await run.run().finally(() => clearInterval(sampler));
    expect(overflow).toBeUndefined();
    expect(maxQueued.size).toBe(1 + 2 + 1 + 3 + 3);
    await expectEveryRecord(dir, metrics);
  });
});

describe.each(EXECUTORS)('feedback loops (%s)', (executor) => {
  it('a record goes round a feedback edge as often as it asks, then out; the job ends (parallelism 3)', async () => {
    const COUNT = 600;
    const job = makeJob(
      'loop',
      [
        source('gen', 'function generate(i) { return { id: "r" + i, hops: i % 9, start: i % 9 }; }', COUNT),
        fn(
          'loop',
          'process',
          `function process(r, ctx) {
            const visits = ctx.state.value('visits');
            const n = (visits.get() ?? 0) + 1;
            visits.set(n);
            if (r.hops > 0) ctx.emit({ id: r.id, hops: r.hops - 1, start: r.start }, 'again');
            else ctx.emit({ id: r.id, start: r.start, visits: n, subtask: ctx.subtask, key: ctx.key });
          }`,
          3,
        ),
        sink('out', 'out.jsonl'),
      ],
      [
        { id: 'in', from: 'gen', to: 'loop', partition: 'hash', key: 'id' },
        {
          id: 'round',
          from: 'loop',
          fromPort: 'again',
          to: 'loop',
          partition: 'hash',
          key: 'id',
          feedback: true,
        },
        { id: 'done', from: 'loop', to: 'out', partition: 'rebalance' },
      ],
    );
    const dir = await jobDir();
    const { metrics } = await runJob(job, dir, executor);
    const out = await readJsonl<{ id: string; start: number; visits: number; subtask: number; key: string }>(
      join(dir, 'out.jsonl'),
    );
    expect(out).toHaveLength(COUNT);
    const expected = Array.from({ length: COUNT }, (_, i) => ({
      id: `r${i}`,
      start: i % 9,
      visits: (i % 9) + 1,
      subtask: subtaskOfKeyGroup(keyGroupOf(`r${i}`, 128), 3, 128),
      key: `r${i}`,
    }));
    const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
    expect([...out].sort(byId)).toEqual(expected.sort(byId));
    // Each record entered once and came round `start` times.
    const rounds = expected.reduce((n, r) => n + r.start, 0);
    expect(operatorMetrics(metrics, 'loop').recordsIn).toBe(COUNT + rounds);
    expect(new Set(out.map((r) => r.subtask))).toEqual(new Set([0, 1, 2]));
  });

  it('a loop whose records multiply still ends, with every record out exactly once', async () => {
    const job = makeJob(
      'splitting-loop',
      [
        source('gen', 'function generate(i) { return { id: String(i), hops: i % 10 }; }', 40),
        fn(
          'split',
          'process',
          `function process(r, ctx) {
            if (r.hops === 0) { ctx.emit(r); return; }
            ctx.emit({ id: r.id + '.0', hops: r.hops - 1 }, 'again');
            ctx.emit({ id: r.id + '.1', hops: r.hops - 1 }, 'again');
          }`,
          3,
        ),
        sink('out', 'out.jsonl', 2),
      ],
      [
        { id: 'in', from: 'gen', to: 'split', partition: 'hash', key: 'id' },
        {
          id: 'round',
          from: 'split',
          fromPort: 'again',
          to: 'split',
          partition: 'hash',
          key: 'id',
          feedback: true,
        },
        { id: 'done', from: 'split', to: 'out', partition: 'rebalance' },
      ],
    );
    const dir = await jobDir();
    await runJob(job, dir, executor);
    const out = await readJsonl<{ id: string; hops: number }>(join(dir, 'out.jsonl'));
    const expected: string[] = [];
    const leaves = (id: string, hops: number): void => {
      if (hops === 0) expected.push(id);
      else for (const half of ['.0', '.1']) leaves(id + half, hops - 1);
    };
    for (let i = 0; i < 40; i++) leaves(String(i), i % 10);
    expect(out.every((r) => r.hops === 0)).toBe(true);
    expect(out.map((r) => r.id).sort()).toEqual(expected.sort());
    // 4 x (2^0 + ... + 2^9)
    expect(out.length).toBe(4 * 1023);
  });

  it('a two-operator loop (A -> B -> feedback A) ends with every record out, laps exact', async () => {
    const COUNT = 500;
    const job = makeJob(
      'two-operator-loop',
      [
        source('gen', 'function generate(i) { return { id: i, want: i % 6 }; }', COUNT),
        fn(
          'A',
          'process',
          `function process(r, ctx) {
            const seen = ctx.state.value('seen');
            seen.set((seen.get() ?? 0) + 1);
            ctx.emit({ ...r, laps: (r.laps ?? 0) + 1, seenByA: seen.get() });
          }`,
          2,
        ),
        fn(
          'B',
          'process',
          `function process(r, ctx) {
            const passes = ctx.state.list('passes');
            passes.add(r.laps);
            if (r.laps < r.want) ctx.emit(r, 'again');
            else ctx.emit({ ...r, bSubtask: ctx.subtask });
          }`,
          3,
        ),
        sink('out', 'out.jsonl'),
      ],
      [
        { id: 'in', from: 'gen', to: 'A', partition: 'hash', key: 'id' },
        { id: 'AB', from: 'A', to: 'B', partition: 'hash', key: 'id' },
        { id: 'back', from: 'B', fromPort: 'again', to: 'A', partition: 'hash', key: 'id', feedback: true },
        { id: 'done', from: 'B', to: 'out', partition: 'rebalance' },
      ],
    );
    const dir = await jobDir();
    const { metrics } = await runJob(job, dir, executor);
    const out = await readJsonl<{
      id: number;
      want: number;
      laps: number;
      seenByA: number;
      bSubtask: number;
    }>(join(dir, 'out.jsonl'));
    expect(out.map((r) => r.id).sort((a, b) => a - b)).toEqual(Array.from({ length: COUNT }, (_, i) => i));
    for (const r of out) {
      const laps = Math.max(1, r.want);
      expect(r).toEqual({
        id: r.id,
        want: r.id % 6,
        laps,
        seenByA: laps,
        bSubtask: subtaskOfKeyGroup(keyGroupOf(r.id, 128), 3, 128),
      });
    }
    const totalLaps = out.reduce((n, r) => n + r.laps, 0);
    expect(operatorMetrics(metrics, 'A').recordsIn).toBe(totalLaps);
    expect(operatorMetrics(metrics, 'B').recordsIn).toBe(totalLaps);
  });
});

describe.each(EXECUTORS)('routing (%s)', (executor) => {
  const keys = [
    'alpha',
    'beta',
    '',
    0,
    1,
    '1',
    -7,
    2 ** 40,
    1.5,
    true,
    ['a', 1],
    { nested: 'object' },
    '\u00e9t\u00e9',
  ];

  it('hash: every record with key k is processed by the subtask that owns its key group', async () => {
    const job = makeJob(
      'hash-routing',
      [
        source(
          'gen',
          `const KEYS = ${JSON.stringify(keys)};
          function generate(i) { return { i, k: KEYS[i % KEYS.length], item: { owner: 'o' + (i % 31) } }; }`,
          2000,
          3,
        ),
        fn(
          'byK',
          'process',
          'function process(r, ctx) { ctx.emit({ i: r.i, k: r.k, key: ctx.key, subtask: ctx.subtask, p: ctx.parallelism }); }',
          4,
        ),
        fn(
          'byOwnerAndK',
          'process',
          'function process(r, ctx) { ctx.emit({ i: r.i, key: ctx.key, subtask: ctx.subtask }); }',
          4,
        ),
        sink('outK', 'k.jsonl'),
        sink('outOwner', 'owner.jsonl'),
      ],
      [
        { id: 'gen-k', from: 'gen', to: 'byK', partition: 'hash', key: 'k' },
        { id: 'gen-owner', from: 'gen', to: 'byOwnerAndK', partition: 'hash', key: ['item.owner', 'k'] },
        { id: 'k-out', from: 'byK', to: 'outK', partition: 'rebalance' },
        { id: 'owner-out', from: 'byOwnerAndK', to: 'outOwner', partition: 'rebalance' },
      ],
      { maxParallelism: 128 },
    );
    const dir = await jobDir();
    await runJob(job, dir, executor);
    const byK = await readJsonl<{ i: number; k: unknown; key: unknown; subtask: number; p: number }>(
      join(dir, 'k.jsonl'),
    );
    expect(byK).toHaveLength(2000);
    for (const r of byK) {
      expect(r.k).toEqual(keys[r.i % keys.length]);
      expect(r.key).toEqual(r.k);
      expect(r.p).toBe(4);
      expect(r.subtask, JSON.stringify(r.k)).toBe(subtaskOfKeyGroup(keyGroupOf(r.k, 128), 4, 128));
    }
    const owner = await readJsonl<{ i: number; key: unknown; subtask: number }>(join(dir, 'owner.jsonl'));
    expect(owner).toHaveLength(2000);
    for (const r of owner) {
      const key = [`o${r.i % 31}`, keys[r.i % keys.length]];
      expect(r.key).toEqual(key);
      expect(r.subtask).toBe(subtaskOfKeyGroup(keyGroupOf(key, 128), 4, 128));
    }
    expect(new Set(owner.map((r) => r.subtask))).toEqual(new Set([0, 1, 2, 3]));
  });

  it('forward keeps the subtask index; rebalance goes round robin; broadcast reaches every subtask', async () => {
    const COUNT = 400;
    const job = makeJob(
      'partitions',
      [
        source('gen4', 'function generate(i, ctx) { return { i, from: ctx.subtask }; }', COUNT, 4),
        fn('fwd', 'map', 'function map(r, ctx) { return { ...r, at: ctx.subtask }; }', 4),
        source('gen2', 'function generate(i, ctx) { return { i, from: ctx.subtask }; }', COUNT, 2),
        fn('rr', 'map', 'function map(r, ctx) { return { ...r, at: ctx.subtask }; }', 4),
        source('gen1', 'function generate(i) { return { i }; }', COUNT),
        fn('bc', 'map', 'function map(r, ctx) { return { ...r, at: ctx.subtask }; }', 3),
        sink('outFwd', 'fwd.jsonl', 4),
        sink('outRr', 'rr.jsonl'),
        sink('outBc', 'bc.jsonl'),
      ],
      [
        { id: 'e-fwd', from: 'gen4', to: 'fwd', partition: 'forward' },
        { id: 'e-rr', from: 'gen2', to: 'rr', partition: 'rebalance' },
        { id: 'e-bc', from: 'gen1', to: 'bc', partition: 'broadcast' },
        { id: 'fwd-out', from: 'fwd', to: 'outFwd', partition: 'forward' },
        { id: 'rr-out', from: 'rr', to: 'outRr', partition: 'rebalance' },
        { id: 'bc-out', from: 'bc', to: 'outBc', partition: 'rebalance' },
      ],
    );
    const dir = await jobDir();
    const { metrics } = await runJob(job, dir, executor);
    type Row = { i: number; from: number; at: number };
    const fwd = await readJsonl<Row>(join(dir, 'fwd.jsonl'));
    expect(fwd.map((r) => r.i).sort((a, b) => a - b)).toEqual(Array.from({ length: COUNT }, (_, i) => i));
    for (const r of fwd) {
      // Generator subtask s makes i = s, s + 4, ...; forward keeps it on subtask s.
      expect(r.from).toBe(r.i % 4);
      expect(r.at).toBe(r.from);
    }
    // A parallel sink writes its parts in subtask order: subtask 0's records first.
    expect(fwd.map((r) => r.at)).toEqual([...fwd.map((r) => r.at)].sort());

    const rr = await readJsonl<Row>(join(dir, 'rr.jsonl'));
    expect(rr).toHaveLength(COUNT);
    for (const r of rr) {
      // Producer s sends its n-th record (i = s + 2n) to subtask (s + n) mod 4.
      const n = (r.i - r.from) / 2;
      expect(r.at, `record ${r.i}`).toBe((r.from + n) % 4);
    }
    expect(operatorMetrics(metrics, 'rr').subtasks.map((s) => s.recordsIn)).toEqual([100, 100, 100, 100]);

    const bc = await readJsonl<Row>(join(dir, 'bc.jsonl'));
    expect(bc).toHaveLength(3 * COUNT);
    const pairs = new Set(bc.map((r) => `${r.i}@${r.at}`));
    expect(pairs.size).toBe(3 * COUNT);
    for (let i = 0; i < COUNT; i++) for (const at of [0, 1, 2]) expect(pairs.has(`${i}@${at}`)).toBe(true);
  });

  it('a record emitted over several edges is a separate copy on each', async () => {
    const job = makeJob(
      'copies',
      [
        source('gen', 'function generate(i) { return { i, tags: [] }; }', 50),
        fn('tagA', 'map', 'function map(r) { r.tags.push("a"); return r; }'),
        fn('tagB', 'map', 'function map(r) { r.tags.push("b"); return r; }', 2),
        sink('outA', 'a.jsonl'),
        sink('outB', 'b.jsonl'),
      ],
      [
        { id: 'gen-a', from: 'gen', to: 'tagA', partition: 'forward' },
        { id: 'gen-b', from: 'gen', to: 'tagB', partition: 'broadcast' },
        { id: 'a-out', from: 'tagA', to: 'outA', partition: 'forward' },
        { id: 'b-out', from: 'tagB', to: 'outB', partition: 'rebalance' },
      ],
    );
    const dir = await jobDir();
    await runJob(job, dir, executor);
    const a = await readJsonl<{ tags: string[] }>(join(dir, 'a.jsonl'));
    const b = await readJsonl<{ tags: string[] }>(join(dir, 'b.jsonl'));
    expect(a).toHaveLength(50);
    expect(b).toHaveLength(100);
    expect(a.every((r) => JSON.stringify(r.tags) === '["a"]')).toBe(true);
    expect(b.every((r) => JSON.stringify(r.tags) === '["b"]')).toBe(true);
  });
});

describe.each(EXECUTORS)('state backends (%s)', (executor) => {
  it('LevelDB and memory give identical output and state sizes for the same keyed job', async () => {
    const events = Array.from({ length: 4000 }, (_, j) => ({
      j,
      k: `user-${j % 37}`,
      item: j % 11 === 0 ? { sku: j % 13 } : `item-${(j * 7) % 101}`,
      op: j % 50 === 49 ? 'list' : j % 5 === 0 ? 'del' : 'add',
    }));
    const code = `async function process(r, ctx) {
      const items = ctx.state.map('items');
      const n = ctx.state.value('n');
      const log = ctx.state.list('log');
      if (r.op === 'add') {
        if (!items.has(r.item)) n.set((n.get() ?? 0) + 1);
        items.set(r.item, { at: r.j, by: ctx.key });
      } else if (r.op === 'del') {
        if (items.delete(r.item)) n.set(n.get() - 1);
      }
      log.add(r.j);
      if (r.op === 'list') {
        const entries = [];
        for await (const [item, v] of items.entries()) entries.push([item, v.at]);
        const logged = [];
        for await (const j of log.values()) logged.push(j);
        log.clear();
        if (r.j % 200 === 199) { items.clear(); n.clear(); }
        ctx.emit({ k: r.k, j: r.j, n: n.get() ?? 0, entries, logged });
      } else {
        ctx.emit({ k: r.k, j: r.j, n: n.get() ?? 0 });
      }
    }`;
    const run = async (stateBackend: 'level' | 'memory') => {
      const job = makeJob(
        `backends-${stateBackend}`,
        [
          { id: 'events', kind: 'source.jsonl', params: { path: 'events.jsonl' } },
          fn('count', 'process', code, 3),
          sink('out', 'out.jsonl'),
        ],
        [
          { id: 'in', from: 'events', to: 'count', partition: 'hash', key: 'k' },
          { id: 'out', from: 'count', to: 'out', partition: 'rebalance' },
        ],
        { stateBackend },
      );
      const dir = await jobDir({ 'events.jsonl': jsonl(events) });
      const { metrics } = await runJob(job, dir, executor);
      const subtaskDirs = existsSync(join(dir, 'state', 'subtasks'))
        ? (await readdir(join(dir, 'state', 'subtasks'))).sort()
        : [];
      return { output: await readFile(join(dir, 'out.jsonl'), 'utf8'), metrics, subtaskDirs };
    };
    const level = await run('level');
    const memory = await run('memory');
    expect(level.subtaskDirs).toEqual(['count-0', 'count-1', 'count-2']);
    expect(memory.subtaskDirs).toEqual([]);
    // Each key's lines in the same order, and the same lines; on one thread the same bytes (on
    // several, the sink takes count's three subtasks' records in the order they come).
    const lines = (text: string) => text.split('\n').filter(Boolean);
    expect(describeDifference(lines(level.output), lines(memory.output))).toBe('');
    const byK = (text: string) => linesByKey(lines(text), (r) => r.k as string);
    expect(describeKeyOrderDifference(byK(level.output), byK(memory.output))).toBe('');
    if (executor === 'deterministic') expect(level.output).toBe(memory.output);
    const stateOf = (metrics: JobMetrics) =>
      operatorMetrics(metrics, 'count').subtasks.map((s) => [s.stateEntries, s.stateBytes]);
    expect(stateOf(level.metrics)).toEqual(stateOf(memory.metrics));
    expect(operatorMetrics(level.metrics, 'count').stateEntries).toBeGreaterThan(100);

    // And both are right: the same job as a plain program.
    const maps = new Map<string, Map<string, number>>();
    const logs = new Map<string, number[]>();
    const expected = new Map<number, unknown>();
    for (const r of events) {
      const items = maps.get(r.k) ?? new Map<string, number>();
      maps.set(r.k, items);
      const log = logs.get(r.k) ?? [];
      logs.set(r.k, log);
      const item = typeof r.item === 'string' ? r.item : JSON.stringify(r.item);
      if (r.op === 'add') items.set(item, r.j);
      else if (r.op === 'del') items.delete(item);
      log.push(r.j);
      if (r.op === 'list') {
        // Map state iterates in key order: string keys as they are, others after \x01.
        const order = (key: string) => (items.has(key) && key.startsWith('{') ? `\x01${key}` : key);
        const entries = [...items.keys()]
          .sort((a, b) => (order(a) < order(b) ? -1 : order(a) > order(b) ? 1 : 0))
          .map((key) => [key.startsWith('{') ? JSON.parse(key) : key, items.get(key)]);
        const logged = [...log];
        log.length = 0;
        if (r.j % 200 === 199) items.clear();
        expected.set(r.j, { k: r.k, j: r.j, n: items.size, entries, logged });
      } else {
        expected.set(r.j, { k: r.k, j: r.j, n: items.size });
      }
    }
    const out = level.output
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { j: number });
    expect(out).toHaveLength(events.length);
    expect(out.filter((r) => 'entries' in r).length).toBe(80);
    for (const r of out) expect(r, `record ${r.j}`).toEqual(expected.get(r.j));
  });
});

describe.each(EXECUTORS)('side outputs (%s)', (executor) => {
  it('ctx.emit(r, port) goes only over the edges of that port; a port with no edge drops the record', async () => {
    const COUNT = 1000;
    const job = makeJob(
      'side-outputs',
      [
        source('gen', 'function generate(i) { return { i }; }', COUNT),
        fn(
          'split',
          'process',
          `function process(r, ctx) {
            if (r.i % 5 === 0) ctx.emit(r, 'nowhere');
            else if (r.i % 2 === 1) ctx.emit(r, 'odd');
            else ctx.emit(r);
          }`,
          2,
        ),
        sink('evens', 'evens.jsonl'),
        sink('odds', 'odds.jsonl', 2),
        fn('oddsToo', 'map', 'function map(r) { return { odd: r.i }; }'),
        sink('oddsTooOut', 'odds-too.jsonl'),
      ],
      [
        { id: 'in', from: 'gen', to: 'split', partition: 'rebalance' },
        { id: 'to-evens', from: 'split', to: 'evens', partition: 'rebalance' },
        { id: 'to-odds', from: 'split', fromPort: 'odd', to: 'odds', partition: 'hash', key: 'i' },
        { id: 'to-odds-too', from: 'split', fromPort: 'odd', to: 'oddsToo', partition: 'rebalance' },
        { id: 'odds-too-out', from: 'oddsToo', to: 'oddsTooOut', partition: 'forward' },
      ],
    );
    const dir = await jobDir();
    const { metrics } = await runJob(job, dir, executor);
    const all = Array.from({ length: COUNT }, (_, i) => i);
    const evens = all.filter((i) => i % 5 !== 0 && i % 2 === 0);
    const odds = all.filter((i) => i % 5 !== 0 && i % 2 === 1);
    const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
    const read = async (file: string) => (await readJsonl<{ i: number }>(join(dir, file))).map((r) => r.i);
    expect(sorted(await read('evens.jsonl'))).toEqual(evens);
    expect(sorted(await read('odds.jsonl'))).toEqual(odds);
    const oddsToo = (await readJsonl<{ odd: number }>(join(dir, 'odds-too.jsonl'))).map((r) => r.odd);
    expect(sorted(oddsToo)).toEqual(odds);
    // Dropped records went nowhere and are not counted as sent.
    expect(operatorMetrics(metrics, 'split').recordsOut).toBe(evens.length + 2 * odds.length);
    // Each operator has one input edge: what it took is what went over that edge.
    const recordsIn = Object.fromEntries(metrics.operators.map((op) => [op.id, op.recordsIn]));
    expect(recordsIn).toEqual({
      gen: COUNT,
      split: COUNT,
      evens: evens.length,
      odds: odds.length,
      oddsToo: odds.length,
      oddsTooOut: odds.length,
    });
  });
});

describe.each(EXECUTORS)('failures (%s)', (executor) => {
  const lines = Array.from({ length: 10 }, (_, j) => ({ n: j + 1 }));

  async function failingRun(job: Job, files: Record<string, string>) {
    const dir = await jobDir(files);
    const error = await rejection(runJob(job, dir, executor));
    expect(error).toBeInstanceOf(JobError);
    const left = (await readdir(dir)).filter((name) => name.includes('inprogress'));
    expect(left).toEqual([]);
    return { dir, error: error as JobError };
  }

  it('user code throwing on the 5th record fails the run, naming the operator and file:line; no output', async () => {
    const job = makeJob(
      'throws',
      [
        { id: 'events', kind: 'source.jsonl', params: { path: 'file.jsonl' } },
        fn(
          'boom',
          'process',
          'function process(r, ctx) { if (r.n === 5) throw new Error("five is too many"); ctx.emit(r); }',
        ),
        sink('out', 'out.jsonl'),
      ],
      [
        { id: 'in', from: 'events', to: 'boom', partition: 'rebalance' },
        { id: 'out', from: 'boom', to: 'out', partition: 'forward' },
      ],
    );
    const { dir, error } = await failingRun(job, { 'file.jsonl': jsonl(lines) });
    expect(error.message).toContain('operator "boom"');
    expect(error.message).toContain('file.jsonl:5');
    expect(error.message).toContain('five is too many');
    // Across threads a failure comes back as its message (as from ThreadedJobRun): the id is JobRun's.
    if (executor === 'deterministic') expect(error.operatorId).toBe('boom');
    expect(existsSync(join(dir, 'out.jsonl'))).toBe(false);

    // Blank lines count as lines; an earlier output stays as it was.
    const withBlank = `${jsonl(lines.slice(0, 2))}\n${jsonl(lines.slice(2))}`;
    const second = await failingRun(job, { 'file.jsonl': withBlank, 'out.jsonl': 'earlier output\n' });
    expect(second.error.message).toContain('file.jsonl:6');
    expect(await readFile(join(second.dir, 'out.jsonl'), 'utf8')).toBe('earlier output\n');
  });

  it('leaves no part of a sink subtask whose input had ended when another subtask failed', async () => {
    // Subtask 0 of every operator gets the even records, subtask 1 the odd ones: sink subtask 0
    // has its whole input, and has closed its part, when map subtask 1 fails on the last record.
    const job = makeJob(
      'one-ends-first',
      [
        source('gen', 'function generate(i) { return { i }; }', 40, 2),
        fn(
          'late',
          'map',
          'function map(r) { if (r.i === 39) throw new Error("the last one"); return r; }',
          2,
        ),
        sink('out', 'out.jsonl', 2),
      ],
      [
        { id: 'in', from: 'gen', to: 'late', partition: 'forward' },
        { id: 'out', from: 'late', to: 'out', partition: 'forward' },
      ],
    );
    const { error } = await failingRun(job, {});
    expect(error.message).toContain('the last one');
  });

  it('names the source line of a record that failed further down, and the subtask', async () => {
    const job = makeJob(
      'throws-downstream',
      [
        { id: 'events', kind: 'source.jsonl', params: { path: 'file.jsonl' } },
        fn('double', 'flatMap', 'function flatMap(r) { return [r, { n: -r.n }]; }', 2),
        fn(
          'late',
          'process',
          'async function process(r, ctx) { await null; if (r.n === -5) throw new RangeError("negative five"); ctx.emit(r); }',
          3,
        ),
        sink('out', 'out.jsonl', 3),
      ],
      [
        { id: 'in', from: 'events', to: 'double', partition: 'rebalance' },
        { id: 'mid', from: 'double', to: 'late', partition: 'hash', key: 'n' },
        { id: 'out', from: 'late', to: 'out', partition: 'forward' },
      ],
    );
    const { dir, error } = await failingRun(job, { 'file.jsonl': jsonl(lines) });
    const subtask = subtaskOfKeyGroup(keyGroupOf(-5, 128), 3, 128);
    expect(error.message).toContain(`operator "late" (subtask ${subtask} of 3)`);
    expect(error.message).toContain('file.jsonl:5');
    expect(error.message).toContain('negative five');
    expect(existsSync(join(dir, 'out.jsonl'))).toBe(false);
  });

  it('names the generator record that failed', async () => {
    const job = makeJob(
      'generator-throws',
      [
        source('gen', 'function generate(i) { if (i === 4) throw new Error("no fifth"); return { i }; }', 10),
        sink('out', 'out.jsonl'),
      ],
      [{ id: 'out', from: 'gen', to: 'out', partition: 'forward' }],
    );
    const { dir, error } = await failingRun(job, {});
    expect(error.message).toContain('operator "gen"');
    expect(error.message).toContain('no fifth');
    expect(existsSync(join(dir, 'out.jsonl'))).toBe(false);
  });

  it('keyed state in an operator without hash inputs fails, naming the edge', async () => {
    // The validator reads `ctx.state.value(`; a computed property gets past it to the runtime.
    const job = makeJob(
      'unkeyed-state',
      [
        source('gen', 'function generate(i) { return { i }; }', 10),
        fn(
          'counts',
          'process',
          'function process(r, ctx) { const s = ctx["state"]; s.value("n").set(r.i); ctx.emit(r); }',
        ),
        sink('out', 'out.jsonl'),
      ],
      [
        { id: 'not-keyed', from: 'gen', to: 'counts', partition: 'rebalance' },
        { id: 'out', from: 'counts', to: 'out', partition: 'forward' },
      ],
    );
    const { dir, error } = await failingRun(job, {});
    expect(error.message).toContain('operator "counts"');
    expect(error.message).toMatch(/keyed state needs every input hash-partitioned.*edge "not-keyed"/);
    expect(existsSync(join(dir, 'out.jsonl'))).toBe(false);

    // A map function may use keyed state too, with the same rule.
    const mapJob = makeJob(
      'unkeyed-map-state',
      [
        source('gen', 'function generate(i) { return { i }; }', 10),
        fn('m', 'map', 'function map(r, ctx) { ctx.state.list("seen").add(r.i); return r; }'),
        sink('out', 'out.jsonl'),
      ],
      [
        { id: 'broadcast-in', from: 'gen', to: 'm', partition: 'broadcast' },
        { id: 'out', from: 'm', to: 'out', partition: 'forward' },
      ],
    );
    const mapped = await failingRun(mapJob, {});
    expect(mapped.error.message).toMatch(/operator "m".*edge "broadcast-in"/);
  });

  it('a timer time that is not a whole number of ms fails, naming the operator and the record', async () => {
    const job = makeJob(
      'timers',
      [
        source('gen', 'function generate(i) { return { i, k: "k" + (i % 3) }; }', 10),
        fn('timed', 'process', 'function process(r, ctx) { ctx.timers.eventTime("soon"); ctx.emit(r); }', 2),
        sink('out', 'out.jsonl'),
      ],
      [
        { id: 'in', from: 'gen', to: 'timed', partition: 'hash', key: 'k' },
        { id: 'out', from: 'timed', to: 'out', partition: 'rebalance' },
      ],
    );
    const { dir, error } = await failingRun(job, {});
    expect(error.message).toContain('operator "timed"');
    expect(error.message).toContain(
      'ctx.timers.eventTime(timestamp): timestamp must be a whole number of ms (got soon)',
    );
    expect(error.message).toContain('generator "gen" record 0');
    expect(existsSync(join(dir, 'out.jsonl'))).toBe(false);
  });

  it('onTimer that throws fails the run, naming the operator, the timer and its key', async () => {
    const job = makeJob(
      'timer-throws',
      [
        source('gen', 'function generate(i) { return { i, k: "k" + (i % 3) }; }', 10),
        fn(
          'timed',
          'process',
          'function process(r, ctx) { ctx.timers.processingTime(0); }\nfunction onTimer(t, ctx) { throw new Error("no " + ctx.key); }',
          2,
        ),
        sink('out', 'out.jsonl'),
      ],
      [
        { id: 'in', from: 'gen', to: 'timed', partition: 'hash', key: 'k' },
        { id: 'out', from: 'timed', to: 'out', partition: 'rebalance' },
      ],
    );
    const { dir, error } = await failingRun(job, {});
    expect(error.message).toMatch(
      /operator "timed" \(subtask \d of 2\) failed: onTimer \(processing-time timer 0, key "k\d"\): no k\d$/,
    );
    expect(existsSync(join(dir, 'out.jsonl'))).toBe(false);
  });
});

describe('sink.jsonl', () => {
  // Watches the sink's file at each delivery to it: an observer, JobRun only.
  it('publishes nothing until the end, then once: the parts joined in subtask order', async () => {
    const COUNT = 3000;
    const job = makeJob(
      'sink-parts',
      [
        source(
          'gen',
          'function generate(i, ctx) { return { i, gen: ctx.subtask, text: "line " + i }; }',
          COUNT,
          2,
        ),
        fn('tag', 'map', 'function map(r, ctx) { return { ...r, tag: ctx.subtask }; }', 3),
        sink('out', 'nested/dir/out.jsonl', 3),
      ],
      [
        { id: 'in', from: 'gen', to: 'tag', partition: 'rebalance' },
        { id: 'to-sink', from: 'tag', to: 'out', partition: 'rebalance' },
      ],
    );
    const dir = await jobDir();
    const target = join(dir, 'nested', 'dir', 'out.jsonl');
    const parts: string[][] = [[], [], []];
    let checks = 0;
    await runObserved(job, dir, () => (subtask, _channel, envelope) => {
      if (subtask.operator.id !== 'out') return;
      parts[subtask.subtask]!.push(JSON.stringify(envelope.value));
      if (parts.flat().length % 100 === 1) {
        checks++;
        if (existsSync(target)) throw new Error('the sink published its file before the job ended');
      }
    });
    expect(checks).toBeGreaterThan(10);
    expect(parts.map((p) => p.length)).toEqual([1000, 1000, 1000]);
    const text = await readFile(target, 'utf8');
    expect(text).toBe(
      parts
        .flat()
        .map((line) => `${line}\n`)
        .join(''),
    );
    const records = text
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { i: number });
    expect(records.map((r) => r.i).sort((a, b) => a - b)).toEqual(Array.from({ length: COUNT }, (_, i) => i));
    expect(await readdir(join(dir, 'nested', 'dir'))).toEqual(['out.jsonl']);
  });

  it.each(EXECUTORS)(
    "%s: publishes the parts joined in subtask order, each producer's records in its order",
    async (executor) => {
      const COUNT = 3000;
      // A forward edge into the sink: which part a record is in is the `at` of its map subtask.
      const job = makeJob(
        'sink-parts-forward',
        [
          source('gen', 'function generate(i, ctx) { return { i, gen: ctx.subtask }; }', COUNT, 2),
          fn('at', 'map', 'function map(r, ctx) { return { ...r, at: ctx.subtask }; }', 3),
          sink('out', 'nested/dir/out.jsonl', 3),
        ],
        [
          { id: 'in', from: 'gen', to: 'at', partition: 'rebalance' },
          { id: 'to-sink', from: 'at', to: 'out', partition: 'forward' },
        ],
      );
      const dir = await jobDir();
      await runJob(job, dir, executor);
      const records = await readJsonl<{ i: number; gen: number; at: number }>(
        join(dir, 'nested', 'dir', 'out.jsonl'),
      );
      expect(records.map((r) => r.i).sort((a, b) => a - b)).toEqual(
        Array.from({ length: COUNT }, (_, i) => i),
      );
      const parts = records.map((r) => r.at);
      expect(parts).toEqual([...parts].sort());
      expect(new Set(parts)).toEqual(new Set([0, 1, 2]));
      for (const at of [0, 1, 2]) {
        for (const gen of [0, 1]) {
          const is = records.filter((r) => r.at === at && r.gen === gen).map((r) => r.i);
          expect(is, `part ${at}, from gen#${gen}`).toEqual([...is].sort((a, b) => a - b));
        }
      }
      expect(await readdir(join(dir, 'nested', 'dir'))).toEqual(['out.jsonl']);
    },
  );
});
