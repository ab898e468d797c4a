// Feedback edges on the Flink runner (issue 29, docs/flink-loops-design.md): a job with one loop
// head operator runs end to end on an embedded MiniCluster, its feedback records handed from
// LoopTail to LoopHead through the in-JVM queue, checkpoints every 100 ms taken while records
// circulate (each one logged by the head until the tail's sentinel), and the bounded job ends by
// the control source's rule. The output is `pipewright run`'s: as a set for `bounce` (its output
// depends only on each record), and by parallelEquivalence.test.ts's rules for owner-has-items.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bounceJob, expectedBounce } from './bounceJob.js';
import {
  copyExample,
  describeRun,
  makeTempDir,
  readJsonl,
  removeTempDirs,
  runCli,
  writeJob,
  writeJsonl,
} from './cliHarness.js';
import { FLINK_TIMEOUT, ON_FLINK } from './flinkHarness.js';

afterAll(removeTempDirs);

/** test/loopCheckpoint.test.ts's `bounce`, smaller, each line saying the edge it came by last. */
const BOUNCE = {
  count: 1500,
  settings: { maxParallelism: 128, checkpointIntervalMs: 100 },
  withInput: true,
} as const;

/**
 * A loop head's timers after its input ended (design note §1.4): every record goes round 4 times
 * and its 4th round sets an event-time timer far past the input's times and a processing-time one
 * the next day (one per key). Both fire only in the final firing (TELL): the event-time ones come
 * after the final watermark. Each event-time firing sends a record round again, whose own timer is
 * set while the head drains and fires then too.
 */
const TIMERS = `async function process(r, ctx) {
  if (r.hop < 4) ctx.emit({ k: r.k, t: r.t, hop: r.hop + 1 }, 'again');
  if (r.hop === 4) {
    ctx.timers.eventTime(r.t + 100000);
    ctx.timers.processingTime(Math.ceil((ctx.timers.currentProcessingTime() + 3600000) / 86400000) * 86400000);
  }
  if (r.hop === 10) ctx.timers.eventTime(r.t + 100001);
  ctx.emit({ k: r.k, t: r.t, hop: r.hop, input: ctx.input, at: ctx.timestamp });
}
async function onTimer(ts, ctx) {
  if (ctx.timeDomain === 'processingTime') {
    ctx.emit({ k: ctx.key, fired: ctx.timeDomain });
    return;
  }
  ctx.emit({ k: ctx.key, fired: ctx.timeDomain, ts });
  if ((ts - 100000) % 10 === 0) ctx.emit({ k: ctx.key, t: ts - 100000, hop: 10 }, 'again');
}`;

function timersJob() {
  return {
    format: 'pipewright.job/1',
    name: 'loop-timers',
    settings: { maxParallelism: 128, checkpointIntervalMs: 100 },
    operators: [
      { id: 'in', kind: 'source.jsonl', parallelism: 1, params: { path: 'in.jsonl', timestampField: 't' } },
      { id: 'p', kind: 'process', parallelism: 2, params: { code: TIMERS } },
      { id: 'out', kind: 'sink.jsonl', parallelism: 1, params: { path: 'out.jsonl' } },
    ],
    edges: [
      { id: 'in', from: 'in', to: 'p', partition: 'hash', key: 'k' },
      { id: 'again', from: 'p', fromPort: 'again', to: 'p', partition: 'hash', key: 'k', feedback: true },
      { id: 'done', from: 'p', to: 'out', partition: 'rebalance' },
    ],
  };
}

/**
 * A loop whose body is another operator: the head sends a record to a map at another parallelism
 * (rebalance), whose feedback edge takes it back, so the tail is built after an operator that
 * comes after the head.
 */
function bodyJob() {
  return {
    format: 'pipewright.job/1',
    name: 'loop-body',
    settings: { maxParallelism: 128, checkpointIntervalMs: 100 },
    operators: [
      { id: 'in', kind: 'source.jsonl', parallelism: 1, params: { path: 'in.jsonl' } },
      {
        id: 'h',
        kind: 'process',
        parallelism: 3,
        params: {
          code: `async function process(r, ctx) {
  const n = ctx.state.value('n');
  await n.set(((await n.get()) ?? 0) + 1);
  if (r.hops > 0) ctx.emit(r, 'body');
  else ctx.emit({ i: r.i, k: r.k, via: ctx.input });
}`,
        },
      },
      {
        id: 'b',
        kind: 'map',
        parallelism: 2,
        params: { code: 'function map(r) { return { ...r, k: (r.k * 7 + 1) % 13, hops: r.hops - 1 }; }' },
      },
      { id: 'out', kind: 'sink.jsonl', parallelism: 1, params: { path: 'out.jsonl' } },
    ],
    edges: [
      { id: 'e1', from: 'in', to: 'h', partition: 'hash', key: 'k' },
      { id: 'e2', from: 'h', fromPort: 'body', to: 'b', partition: 'rebalance' },
      { id: 'back', from: 'b', to: 'h', partition: 'hash', key: 'k', feedback: true },
      { id: 'e3', from: 'h', to: 'out', partition: 'rebalance' },
    ],
  };
}

async function sortedLines(file: string): Promise<string[]> {
  return (await readFile(file, 'utf8'))
    .split('\n')
    .filter((l) => l !== '')
    .sort();
}

interface Ownership {
  event: string;
  owner: string;
  item: string;
  seq: number;
}

describe('a job with a loop on Flink', () => {
  it(
    'bounce: every record round its loop, as `pipewright run` gives it',
    async () => {
      const dir = await makeTempDir();
      const job = path.join(dir, 'bounce.job.json');
      await writeJob(job, bounceJob(BOUNCE));
      const local = await runCli(['run', job, '--quiet', '--threads', '1']);
      expect(local.code, describeRun(local)).toBe(0);
      const expected = await sortedLines(path.join(dir, 'out.jsonl'));
      expect(expected).toEqual(expectedBounce(BOUNCE.count, true));

      const flinkDir = await makeTempDir();
      const flinkJob = path.join(flinkDir, 'bounce.job.json');
      await writeJob(flinkJob, bounceJob(BOUNCE));
      const flink = await runCli(['flink', flinkJob, '--quiet'], ON_FLINK);
      expect(flink.code, describeRun(flink)).toBe(0);
      expect(await sortedLines(path.join(flinkDir, 'out.jsonl'))).toEqual(expected);
    },
    FLINK_TIMEOUT,
  );

  it(
    "a loop head's timers fire in its final firing and while it drains, as locally",
    async () => {
      const records = Array.from({ length: 40 }, (_, i) => ({ k: `k${i % 7}`, t: 1000 + i * 10, hop: 0 }));
      const run = async (command: string, ...args: string[]) => {
        const dir = await makeTempDir();
        await writeJsonl(path.join(dir, 'in.jsonl'), records);
        await writeJob(path.join(dir, 'timers.job.json'), timersJob());
        const ran = await runCli([command, path.join(dir, 'timers.job.json'), '--quiet', ...args], ON_FLINK);
        expect(ran.code, describeRun(ran)).toBe(0);
        return sortedLines(path.join(dir, 'out.jsonl'));
      };
      const expected = await run('run', '--threads', '1');
      // 40 records × 5 rounds, 40 + 40 event-time firings, 40 records sent round by them, 7 keys'
      // processing-time firing.
      expect(expected).toHaveLength(327);
      expect(await run('flink')).toEqual(expected);
    },
    FLINK_TIMEOUT,
  );

  it(
    'a loop through a body operator gives the local lines',
    async () => {
      const records = Array.from({ length: 300 }, (_, i) => ({ k: i % 13, i, hops: 3 + (i % 5) }));
      const run = async (command: string) => {
        const dir = await makeTempDir();
        await writeJsonl(path.join(dir, 'in.jsonl'), records);
        await writeJob(path.join(dir, 'body.job.json'), bodyJob());
        const ran = await runCli([command, path.join(dir, 'body.job.json'), '--quiet'], ON_FLINK);
        expect(ran.code, describeRun(ran)).toBe(0);
        return sortedLines(path.join(dir, 'out.jsonl'));
      };
      const expected = await run('run');
      expect(expected).toHaveLength(300);
      expect(await run('flink')).toEqual(expected);
    },
    FLINK_TIMEOUT,
  );

  it(
    'owner-has-items: owned and released as locally, each move waits at most once, the same owners',
    async () => {
      const localCopy = await copyExample('owner-has-items');
      const local = await runCli(['run', localCopy.jobPath, '--quiet', '--threads', '1']);
      expect(local.code, describeRun(local)).toBe(0);

      const flinkCopy = await copyExample('owner-has-items');
      const job = JSON.parse(await readFile(flinkCopy.jobPath, 'utf8')) as {
        settings: Record<string, unknown>;
      };
      // Checkpoints while items travel round the feedback edge, so the heads log them.
      job.settings.checkpointIntervalMs = 100;
      await writeJob(flinkCopy.jobPath, job);
      const flink = await runCli(['flink', flinkCopy.jobPath, '--quiet'], ON_FLINK);
      expect(flink.code, describeRun(flink)).toBe(0);

      const output = 'out/ownership.jsonl';
      const expected = await sortedLines(path.join(localCopy.dir, output));
      const actual = await sortedLines(path.join(flinkCopy.dir, output));
      // parallelEquivalence.test.ts's rule: "waiting" depends on how input and feedback
      // interleave; everything else is the same set of lines (subtasks included: Flink's key
      // groups are the local engine's).
      const waiting = (l: string) => l.includes('"event":"waiting"');
      expect(actual.filter((l) => !waiting(l))).toEqual(expected.filter((l) => !waiting(l)));
      const events = (
        await readJsonl<{ seq: number; type: string }>(path.join(flinkCopy.dir, 'events.jsonl'))
      )
        .filter((e) => e.type === 'move')
        .map((e) => e.seq);
      const moves = new Set(events);
      const waits = actual.filter(waiting).map((l) => (JSON.parse(l) as Ownership).seq);
      for (const seq of waits) expect(moves.has(seq), `waiting seq ${seq} is not a move`).toBe(true);
      expect(new Set(waits).size, 'a move waited twice').toBe(waits.length);

      const owners = (lines: readonly string[]) => {
        const last = new Map<string, Ownership>();
        for (const r of lines.map((l) => JSON.parse(l) as Ownership)) {
          if (r.event !== 'owned') continue;
          const seen = last.get(r.item);
          if (seen === undefined || seen.seq < r.seq) last.set(r.item, r);
        }
        return new Map([...last].map(([item, r]) => [item, r.owner]));
      };
      expect(owners(actual)).toEqual(owners(expected));
    },
    FLINK_TIMEOUT,
  );
});
