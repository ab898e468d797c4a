// Event-time jobs whose whole output is fixed by their input, whatever the executor, the thread
// count, the parallelism or the restores, for the tests that kill them and restore them: a
// sliding window with allowed lateness and a late port, a keyed process with event-time timers,
// and NEXMark q5 from assets/nexmark.
//
// Which records are late depends on how a subtask's input channels interleave (as in Flink): a
// record is late by the watermark that came before it on the channels it has. So the two file
// jobs read one source subtask: one channel into each window or process subtask, the same
// records and watermarks in the same order on every run, restore and rescale. NEXMark's source
// has two subtasks, but each makes its records in time order and q5 allows no lateness, so none
// of its records is late on any interleaving (the window's watermark is the least of its inputs',
// below every record still to come on each).
import { writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { seededRandom } from './checkpointHelpers.js';
import { type JobDocument, repoRoot } from './cliHarness.js';

/** How a test runs a job: checkpoint interval (0: none), parallelism of the keyed operators, threads. */
export interface EventTimeShape {
  readonly intervalMs: number;
  readonly parallelism: number;
  readonly threads: number;
}

function settings({ intervalMs, threads }: EventTimeShape) {
  return {
    maxParallelism: 128,
    stateBackend: 'level',
    checkpointIntervalMs: intervalMs,
    checkpointsRetained: 3,
    threads,
  };
}

// ------------------------------------------------------------------------------------ the input

/** The source's bound on out-of-orderness: a record this far behind the newest is on time. */
const OUT_OF_ORDERNESS_MS = 200;

/**
 * `count` records { seq, k, t, v } over `keys` keys, about 2 ms of event time apart: most a
 * little out of order (within the bound), every 101st 900 ms behind (late for its earliest
 * windows, within the window job's allowed lateness for some), every 257th 5 s behind (too late
 * for every window: port "late"). Returns how many are that far behind.
 */
export function writeEventTimeInput(file: string, count: number, keys: number): { farBehind: number } {
  const random = seededRandom(14_2026);
  const lines: string[] = [];
  let farBehind = 0;
  for (let seq = 0; seq < count; seq++) {
    let t = seq * 2 - Math.floor(random() * OUT_OF_ORDERNESS_MS);
    if (seq % 257 === 256) {
      t -= 5000;
      farBehind++;
    } else if (seq % 101 === 100) t -= 900;
    const k = `k${Math.floor(random() * keys)}`;
    lines.push(JSON.stringify({ seq, k, t, v: (seq * 31) % 1000 }));
  }
  writeFileSync(file, `${lines.join('\n')}\n`);
  return { farBehind };
}

const source = (input: string) => ({
  id: 'src',
  kind: 'source.jsonl',
  parallelism: 1,
  params: { path: input, timestampField: 't', maxOutOfOrdernessMs: OUT_OF_ORDERNESS_MS },
});

// ------------------------------------------------------------------------------ the window job

export const WINDOW_OUTPUT = 'out/windows.jsonl';
export const LATE_OUTPUT = 'out/late.jsonl';

/** src -> sums (sliding 1 s every 500 ms, sum of v, 500 ms allowed lateness) -> out; port late -> late. */
export function windowJob(input: string, shape: EventTimeShape): JobDocument {
  return {
    format: 'pipewright.job/1',
    name: 'late-windows',
    settings: settings(shape),
    operators: [
      source(input),
      {
        id: 'sums',
        kind: 'window',
        parallelism: shape.parallelism,
        params: {
          type: 'sliding',
          sizeMs: 1000,
          slideMs: 500,
          aggregate: 'sum',
          field: 'v',
          allowedLatenessMs: 500,
        },
      },
      { id: 'out', kind: 'sink.jsonl', parallelism: 1, params: { path: WINDOW_OUTPUT } },
      { id: 'late', kind: 'sink.jsonl', parallelism: 1, params: { path: LATE_OUTPUT } },
    ],
    edges: [
      { id: 'src-sums', from: 'src', to: 'sums', partition: 'hash', key: 'k' },
      { id: 'sums-out', from: 'sums', to: 'out', partition: 'rebalance' },
      { id: 'sums-late', from: 'sums', fromPort: 'late', to: 'late', partition: 'rebalance' },
    ],
  };
}

// ------------------------------------------------------------------------------- the timer job

export const TIMER_OUTPUT = 'out/timers.jsonl';

/**
 * Per key, a running count and sum of v since its last timer fired, reported by an event-time
 * timer at the end of the second after each record's (some records move theirs half a second
 * on: a timer deleted and another set); each record also says the subtask's watermark and
 * whether it had already passed the record's time (a watermark not restored exactly would show
 * in the records after a restore).
 */
const TIMER_CODE = `async function process(record, ctx) {
  const total = ctx.state.value('total');
  const t = (await total.get()) ?? { n: 0, sum: 0 };
  t.n += 1;
  t.sum += record.v;
  await total.set(t);
  const due = Math.floor(record.t / 1000) * 1000 + 1999;
  ctx.timers.eventTime(due);
  if (record.v % 13 === 0) {
    ctx.timers.deleteEventTime(due);
    ctx.timers.eventTime(due + 500);
  }
  // Before its first watermark a subtask's is -Infinity, which JSON cannot hold.
  const wm = Number.isFinite(ctx.watermark) ? ctx.watermark : String(ctx.watermark);
  ctx.emit({ seq: record.seq, k: record.k, wm, behind: record.t <= ctx.watermark });
}

async function onTimer(timestamp, ctx) {
  const total = ctx.state.value('total');
  const t = await total.get();
  ctx.emit({ k: ctx.key, at: timestamp, domain: ctx.timeDomain, n: t?.n ?? 0, sum: t?.sum ?? 0 });
  await total.clear();
}`;

/** src -> alarms (process keyed by k, event-time timers) -> out. */
export function timerJob(input: string, shape: EventTimeShape): JobDocument {
  return {
    format: 'pipewright.job/1',
    name: 'timers',
    settings: settings(shape),
    operators: [
      source(input),
      { id: 'alarms', kind: 'process', parallelism: shape.parallelism, params: { code: TIMER_CODE } },
      { id: 'out', kind: 'sink.jsonl', parallelism: 1, params: { path: TIMER_OUTPUT } },
    ],
    edges: [
      { id: 'src-alarms', from: 'src', to: 'alarms', partition: 'hash', key: 'k' },
      { id: 'alarms-out', from: 'alarms', to: 'out', partition: 'rebalance' },
    ],
  };
}

// -------------------------------------------------------------------------------- NEXMark q5

export const Q5_OUTPUT = 'out/q5.jsonl';

/**
 * assets/nexmark/q5.job.json over `count` events at 1000 a second (so many 10 s windows), every
 * operator at the shape's parallelism (its forward edges need them equal).
 */
export async function q5Job(count: number, shape: EventTimeShape): Promise<JobDocument> {
  const file = path.join(repoRoot, 'assets', 'nexmark', 'q5.job.json');
  const job = JSON.parse(await readFile(file, 'utf8')) as JobDocument;
  job.settings = { ...job.settings, ...settings(shape) };
  for (const op of job.operators as JobDocument[]) {
    op.parallelism = shape.parallelism;
    if (op.kind === 'source.nexmark') op.params = { ...op.params, count, eventsPerSec: 1000, seed: 5 };
  }
  return job;
}

// ---------------------------------------------------------------------------------- the cases

/** One of the jobs above, as the restore tests run it at any shape. */
export interface EventTimeCase {
  readonly name: string;
  readonly job: (shape: EventTimeShape) => Promise<JobDocument>;
}

/** The three jobs, the file ones reading `input` and q5 making `nexmarkEvents`. */
export function eventTimeCases(input: () => string, nexmarkEvents: number): readonly EventTimeCase[] {
  return [
    {
      name: 'a sliding window with allowed lateness and a late port',
      job: async (shape) => windowJob(input(), shape),
    },
    { name: 'a process with event-time timers', job: async (shape) => timerJob(input(), shape) },
    { name: 'NEXMark q5', job: (shape) => q5Job(nexmarkEvents, shape) },
  ];
}
