// The keyed job of the custom kinds tests (customKinds.test.ts and .soak.test.ts): a source kind
// and a sink kind that live in test code only (test/kinds/sourceCounter and test/kinds/sinkCollect)
// around a map and a keyed process, what its output must be, and the runner a child process runs
// it with.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { Job } from '../engine/graph/schema.js';
import { validateJob } from '../engine/graph/validation/validateJob.js';
import { describeDifference, type RunningCli, startNode } from './checkpointHelpers.js';
import { compiledRunner } from './kinds/compileKinds.js';
import { collectedLines } from './kinds/sinkCollect/collectFiles.js';

// ------------------------------------------------------------------------------------ the job

/** Keys are runs of KEY_WIDTH numbers; COUNT splits evenly at parallelism 1, 2 and 3 on key bounds. */
export const COUNT = 4200;
const KEY_WIDTH = 100;
const KEYS = COUNT / KEY_WIDTH;

const MAP_CODE = `function map(record, ctx) {
  return { k: Math.floor(record.n / ${KEY_WIDTH}), n: record.n };
}`;

/** Per key, a running count and sum in keyed state: a record lost or repeated changes every later line. */
const PROCESS_CODE = `function process(record, ctx) {
  const total = ctx.state.value('total');
  const t = total.get() ?? { count: 0, sum: 0 };
  t.count += 1;
  t.sum += record.n;
  total.set(t);
  ctx.emit({ k: record.k, n: record.n, count: t.count, sum: t.sum });
}`;

export interface JobShape {
  readonly parallelism: number;
  readonly perPoll: number;
  readonly pauseMs: number;
}

/**
 * src (source.counter) -> keyOf (map) -> total (process, keyed by k) -> out (sink.collect). The
 * forward edges keep a key's records in one reader's order (a key's numbers lie in one split).
 */
export function jobDocument({ parallelism, perPoll, pauseMs }: JobShape): Record<string, unknown> {
  return {
    format: 'pipewright.job/1',
    name: 'custom-kinds',
    settings: { checkpointIntervalMs: 50 },
    operators: [
      { id: 'src', kind: 'source.counter', parallelism, params: { count: COUNT, perPoll, pauseMs } },
      { id: 'keyOf', kind: 'map', parallelism, params: { code: MAP_CODE } },
      { id: 'total', kind: 'process', parallelism, params: { code: PROCESS_CODE } },
      { id: 'out', kind: 'sink.collect', parallelism, params: { dir: 'collected' } },
    ],
    edges: [
      { id: 'e1', from: 'src', to: 'keyOf', partition: 'forward' },
      { id: 'e2', from: 'keyOf', to: 'total', partition: 'hash', key: 'k' },
      { id: 'e3', from: 'total', to: 'out', partition: 'forward' },
    ],
  };
}

export function validJob(shape: JobShape): Job {
  const { job, problems } = validateJob(jobDocument(shape));
  expect(problems).toEqual([]);
  return job!;
}

/** What the job means, computed without the engine: one line per number, by key in order. */
function expectedLines(): string[] {
  const lines: string[] = [];
  for (let k = 0; k < KEYS; k++) {
    let sum = 0;
    for (let j = 0; j < KEY_WIDTH; j++) {
      const n = k * KEY_WIDTH + j;
      sum += n;
      lines.push(JSON.stringify({ k, n, count: j + 1, sum }));
    }
  }
  return lines;
}

/** Each key's numbers in the order the output has them. */
function perKeyOrder(lines: readonly string[]): Map<number, number[]> {
  const byKey = new Map<number, number[]>();
  for (const line of lines) {
    const { k, n } = JSON.parse(line) as { k: number; n: number };
    const ns = byKey.get(k) ?? [];
    ns.push(n);
    byKey.set(k, ns);
  }
  return byKey;
}

const expected = expectedLines();

/** The sink's committed output is exactly the job's: as a multiset, and in each key's order. */
export async function expectExactOutput(dir: string, context: string): Promise<void> {
  const actual = await collectedLines(join(dir, 'collected'));
  expect(describeDifference(actual, expected), context).toBe('');
  expect(perKeyOrder(actual), `${context}\neach key's records in order`).toEqual(perKeyOrder(expected));
  // Every staged file was committed (or, on a restore, discarded).
  const staged = await readdir(join(dir, 'collected', 'staging')).catch(() => [] as string[]);
  expect(staged, `${context}\nstaged files left over`).toEqual([]);
}

/** Starts the compiled runner (runWithKinds.ts) on `dir`/job.json, without waiting for it. */
export function startRunner(dir: string, restore: boolean): RunningCli {
  const args = [
    compiledRunner,
    join(dir, 'job.json'),
    '--state-dir',
    join(dir, 'state'),
    '--checkpoint-dir',
    join(dir, 'checkpoints'),
    ...(restore ? ['--restore', 'latest'] : []),
  ];
  return startNode(args, dir);
}
