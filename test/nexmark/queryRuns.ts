// Running a NEXMark job file of assets/nexmark/ over a small stream, for the query tests: the job
// with the test's stream, the events its source makes (for the reference), and its output.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { ParamsOf } from '../../engine/graph/schema.js';
import { validateJob } from '../../engine/graph/validation/validateJob.js';
import { DEFAULT_BASE_TIME } from '../../engine/operators/nexmark/nexmarkConfig.js';
import { nexmarkEvent } from '../../engine/operators/nexmark/nexmarkEvent.js';
import type { NexmarkRecord } from '../../engine/operators/nexmark/nexmarkRecords.js';
import { nexmarkConfigOf } from '../../engine/operators/sourceNexmark.js';
import { EXECUTORS, type Executor, runForOutput } from '../executors.js';

const ASSETS = new URL('../../assets/nexmark/', import.meta.url);

/**
 * Few enough events for the suite. Sparse: event time slow enough (100 events a second) for
 * 40 s of windows. Dense: two events a millisecond across a 10 s window's end (at event 2000),
 * so that records of one time follow each other where windows end.
 */
export const STREAMS = {
  sparse: { count: 4000, eventsPerSec: 100, seed: 11 },
  dense: { count: 4000, eventsPerSec: 2000, seed: 12, baseTime: DEFAULT_BASE_TIME - 1000 },
} as const;
export type Stream = keyof typeof STREAMS;

/** Every executor with every stream, for describe.each. */
export const RUNS = EXECUTORS.flatMap((executor) =>
  (Object.keys(STREAMS) as Stream[]).map((stream) => ({ executor, stream })),
);

interface JobDocument {
  settings: Record<string, unknown>;
  operators: { id: string; kind: string; params: Record<string, unknown> }[];
}

/**
 * Runs the query's job file over `stream` (no checkpoints) in `dir`: its output records, and the
 * events its source made.
 */
export async function runQuery(
  query: string,
  executor: Executor,
  stream: Stream,
  dir: string,
): Promise<{ out: unknown[]; events: NexmarkRecord[] }> {
  const document = JSON.parse(await readFile(new URL(`${query}.job.json`, ASSETS), 'utf8')) as JobDocument;
  const source = document.operators.find((op) => op.kind === 'source.nexmark')!;
  source.params = { ...source.params, ...STREAMS[stream] };
  document.settings = { ...document.settings, checkpointIntervalMs: 0 };
  const { job, problems } = validateJob(document);
  expect(problems).toEqual([]);
  const config = nexmarkConfigOf(source.params as ParamsOf<'source.nexmark'>);
  const events = Array.from({ length: STREAMS[stream].count }, (_, n) => nexmarkEvent(config, n));
  const { out, error } = await runForOutput(
    executor,
    job!,
    join(dir, `${executor}-${stream}-${query}`),
    `out/${query}.jsonl`,
  );
  expect(error).toBeUndefined();
  return { out: out!, events };
}

/** Records as a sorted list of their JSON: equal when the multisets are. */
export const canonical = (records: readonly unknown[]) => records.map((r) => JSON.stringify(r)).sort();
