// Bad input to an event-time job (issue 14, "Must show: bad input"): a JSON Lines record whose
// timestampField is missing or holds no time fails the run naming file:line, and its sink
// publishes nothing; with onBadTimestamp "skip" the run goes on without it and counts it
// (recordsSkipped in --metrics); window params that make no windows, and timers in a process
// whose input is not keyed, are validation problems naming the operator. Every case is checked
// in this process (the run's failure is the message the CLI prints, the problems are what
// validate and run print); through the real CLI, two bad timestamps, one skipped with --metrics,
// and each invalid job once, by validate or by run.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { JobError } from '../engine/graph/jobError.js';
import { validateJob, validateJobText } from '../engine/graph/validation/validateJob.js';
import type { JobMetrics } from '../engine/metrics/jobMetrics.js';
import {
  type CliResult,
  describeRun,
  type JobDocument,
  makeTempDir,
  pathExists,
  readJsonl,
  removeTempDirs,
  runCli,
} from './cliHarness.js';
import { runJob } from './executors.js';

afterAll(removeTempDirs);

const OUT = 'out/windows.jsonl';

/** events (input.jsonl, event time in "t") -> counts (tumbling window of 10 ms, keyed by k) -> out. */
function windowJob(source: Record<string, unknown> = {}, window: Record<string, unknown> = {}): JobDocument {
  return {
    format: 'pipewright.job/1',
    name: 'event-time',
    operators: [
      {
        id: 'events',
        kind: 'source.jsonl',
        params: { path: 'input.jsonl', timestampField: 't', maxOutOfOrdernessMs: 0, ...source },
      },
      {
        id: 'counts',
        kind: 'window',
        params: { type: 'tumbling', sizeMs: 10, aggregate: 'count', ...window },
      },
      { id: 'out', kind: 'sink.jsonl', params: { path: OUT } },
    ],
    edges: [
      { id: 'e1', from: 'events', to: 'counts', partition: 'hash', key: 'k' },
      { id: 'e2', from: 'counts', to: 'out', partition: 'forward' },
    ],
  };
}

/** Good records around line 4, which each case makes bad; many before it, so windows fire first. */
function inputWith(badLine: string): string {
  const lines = ['{"k":"a","t":1}', '{"k":"b","t":2}', '{"k":"a","t":15}', badLine, '{"k":"b","t":31}'];
  return `${lines.join('\n')}\n`;
}

async function setUp(job: JobDocument, input = inputWith('{"k":"a","t":22}')) {
  const dir = await makeTempDir('pipewright-et-bad-');
  const jobPath = path.join(dir, 'event-time.job.json');
  await writeFile(jobPath, `${JSON.stringify(job, null, 2)}\n`);
  await writeFile(path.join(dir, 'input.jsonl'), input);
  return { dir, jobPath };
}

/** A message fit for a user: no internal error, no stack trace, no path into the engine. */
function expectClearText(printed: string, context: string): void {
  expect(printed, context).not.toMatch(/internal error/i);
  expect(printed, context).not.toMatch(/^\s+at /m);
  expect(printed, context).not.toMatch(/file:\/\/|node:internal|dist\/engine|node_modules/);
}

function expectClearRefusal(result: CliResult, says: readonly RegExp[]): void {
  const printed = result.stdout + result.stderr;
  expect(result.code, describeRun(result)).toBe(1);
  for (const pattern of says) expect(printed, describeRun(result)).toMatch(pattern);
  expectClearText(printed, describeRun(result));
}

/** Runs the job in `dir` in this process (the deterministic executor): its metrics, or how it failed. */
async function runHere(job: JobDocument, dir: string): Promise<{ metrics?: JobMetrics; failure?: unknown }> {
  const { job: valid, problems } = validateJob(job);
  expect(problems).toEqual([]);
  try {
    const summary = await runJob('deterministic', valid!, { jobDir: dir, stateDir: path.join(dir, 'state') });
    return { metrics: summary.metrics };
  } catch (failure) {
    return { failure };
  }
}

/** The windows the job wrote, as key@start=count, sorted. */
async function windowsIn(dir: string): Promise<string[]> {
  const out = await readJsonl<{ key: string; start: number; value: number }>(path.join(dir, OUT));
  return out.map((r) => `${r.key}@${r.start}=${r.value}`).sort();
}

/** The records the events source skipped, and those it sent on. */
function eventsCounts(operators: readonly JobDocument[]): { skipped: number; out: number } {
  const events = operators.find((op) => op.id === 'events')!;
  const skipped = (events.subtasks as JobDocument[]).map(
    (s) => (s.recordsSkipped as number | undefined) ?? 0,
  );
  return { skipped: skipped.reduce((a, b) => a + b, 0), out: events.recordsOut as number };
}

const BAD_TIMESTAMPS = [
  { name: 'missing', line: '{"k":"a"}' },
  { name: 'null', line: '{"k":"a","t":null}' },
  { name: 'a word, not a time', line: '{"k":"a","t":"soon"}' },
  { name: 'a boolean', line: '{"k":"a","t":true}' },
  { name: 'an object', line: '{"k":"a","t":{"ms":22}}' },
] as const;

/** Through the real CLI too: two of the bad timestamps that fail the run, one of those skipped. */
const FAIL_THROUGH_THE_CLI = ['missing', 'an object'];
const SKIP_THROUGH_THE_CLI = 'a word, not a time';

describe.concurrent('a record whose timestamp field is bad', () => {
  it.each(BAD_TIMESTAMPS)(
    '$name: the run fails naming input.jsonl:4 and writes no output (in this process)',
    async ({ line }) => {
      const { dir } = await setUp(windowJob(), inputWith(line));
      const { failure } = await runHere(windowJob(), dir);
      // What `pipewright run` prints of it: "pipewright: " and the message, on one line.
      expect(failure).toBeInstanceOf(JobError);
      const message = (failure as JobError).message;
      expect(message).not.toContain('\n');
      for (const pattern of [/operator "events"/, /input\.jsonl:4\b/, /"t"/])
        expect(message).toMatch(pattern);
      expectClearText(message, message);
      const out = path.join(dir, OUT);
      if (await pathExists(out)) expect(await readFile(out, 'utf8')).toBe('');
    },
  );

  it.each(BAD_TIMESTAMPS.filter((bad) => FAIL_THROUGH_THE_CLI.includes(bad.name)))(
    '$name: the run fails naming input.jsonl:4 and writes no output',
    async ({ line }) => {
      const { dir, jobPath } = await setUp(windowJob(), inputWith(line));
      const result = await runCli(['run', '--quiet', path.basename(jobPath)], { cwd: dir });
      expectClearRefusal(result, [/operator "events"/, /input\.jsonl:4\b/, /"t"/]);
      // The window [0,10) fired (watermark 15) before line 4 was read; the failed run publishes none of it.
      const out = path.join(dir, OUT);
      if (await pathExists(out)) expect(await readFile(out, 'utf8')).toBe('');
    },
  );

  it.each(BAD_TIMESTAMPS)(
    '$name: with onBadTimestamp "skip" the run succeeds without it and counts it (in this process)',
    async ({ line }) => {
      const job = windowJob({ onBadTimestamp: 'skip' });
      const { dir } = await setUp(job, inputWith(line));
      const { metrics, failure } = await runHere(job, dir);
      expect(failure).toBeUndefined();
      // Line 4 counted nowhere: a's window [20,30) does not exist.
      expect(await windowsIn(dir)).toEqual(['a@0=1', 'a@10=1', 'b@0=1', 'b@30=1']);
      expect(eventsCounts(metrics!.operators as unknown as JobDocument[])).toEqual({ skipped: 1, out: 4 });
    },
  );

  it(`${SKIP_THROUGH_THE_CLI}: with onBadTimestamp "skip" the run succeeds without it and counts it in --metrics`, async () => {
    const { line } = BAD_TIMESTAMPS.find((bad) => bad.name === SKIP_THROUGH_THE_CLI)!;
    const { dir, jobPath } = await setUp(windowJob({ onBadTimestamp: 'skip' }), inputWith(line));
    const metrics = path.join(dir, 'metrics.jsonl');
    const result = await runCli(['run', '--quiet', path.basename(jobPath), '--metrics', metrics], {
      cwd: dir,
    });
    expect(result.code, describeRun(result)).toBe(0);
    expect(await windowsIn(dir)).toEqual(['a@0=1', 'a@10=1', 'b@0=1', 'b@30=1']);
    const samples = await readJsonl<JobDocument>(metrics);
    const final = samples.filter((s) => s.type === 'metrics' && s.final === true);
    expect(final, describeRun(result)).toHaveLength(1);
    expect(eventsCounts(final[0]!.operators as JobDocument[])).toEqual({ skipped: 1, out: 4 });
  });

  it('an ISO-8601 string is a time: the same windows as epoch milliseconds', async () => {
    const { dir } = await setUp(windowJob(), inputWith('{"k":"a","t":"1970-01-01T00:00:00.022Z"}'));
    const { failure } = await runHere(windowJob(), dir);
    expect(failure).toBeUndefined();
    expect(await windowsIn(dir)).toEqual(['a@0=1', 'a@10=1', 'a@20=1', 'b@0=1', 'b@30=1']);
  });
});

/** A process keyed or not, whose code reaches for timers in `code`. */
function timerJob(code: string, partition: 'forward' | 'rebalance' | 'broadcast'): JobDocument {
  return {
    format: 'pipewright.job/1',
    name: 'event-time',
    operators: [
      { id: 'events', kind: 'source.jsonl', params: { path: 'input.jsonl', timestampField: 't' } },
      { id: 'alarms', kind: 'process', params: { code } },
      { id: 'out', kind: 'sink.jsonl', params: { path: OUT } },
    ],
    edges: [
      { id: 'e1', from: 'events', to: 'alarms', partition },
      { id: 'e2', from: 'alarms', to: 'out', partition: 'forward' },
    ],
  };
}

const INVALID_JOBS = [
  {
    name: 'a tumbling window of size 0',
    job: windowJob({}, { sizeMs: 0 }),
    says: [/operator "counts"/, /params\.sizeMs must be greater than 0 \(got 0\)/],
  },
  {
    name: 'a tumbling window of negative size',
    job: windowJob({}, { sizeMs: -10 }),
    says: [/operator "counts"/, /params\.sizeMs must be greater than 0 \(got -10\)/],
  },
  {
    name: 'a sliding window with a slide larger than its size',
    job: windowJob({}, { type: 'sliding', sizeMs: 10, slideMs: 20 }),
    says: [/operator "counts"/, /slideMs \(20\) is larger than params\.sizeMs \(10\)/],
  },
  {
    name: 'a session window without a gap',
    job: windowJob({}, { type: 'session', sizeMs: undefined }),
    says: [/operator "counts"/, /session window needs params\.gapMs/],
  },
  {
    name: 'a sum without a field',
    job: windowJob({}, { aggregate: 'sum' }),
    says: [/operator "counts"/, /aggregate "sum" needs params\.field/],
  },
  {
    name: 'a process setting event-time timers behind a forward edge',
    job: timerJob(
      'function process(r, ctx) {\n  ctx.timers.eventTime(r.t + 10);\n}\nfunction onTimer(t, ctx) {\n  ctx.emit({ t });\n}',
      'forward',
    ),
    says: [/operator "alarms"/, /timers/, /edge "e1"/, /hash-partitioned \(it is forward\)/],
  },
  {
    name: 'a process with only onTimer behind a rebalance edge',
    job: timerJob(
      'function process(r, ctx) {\n  ctx.emit(r);\n}\nfunction onTimer(t, ctx) {\n  ctx.emit({ t });\n}',
      'rebalance',
    ),
    says: [/operator "alarms"/, /edge "e1"/, /hash-partitioned \(it is rebalance\)/],
  },
  {
    name: 'a process keeping ctx.timers in a variable behind a broadcast edge',
    job: timerJob(
      'function process(r, ctx) {\n  const t = ctx.timers;\n  t.processingTime(0);\n}',
      'broadcast',
    ),
    says: [/operator "alarms"/, /edge "e1"/, /hash-partitioned \(it is broadcast\)/],
  },
] as const;

/** What `validate` and `run` read a job file with: the problems they print, one line each. */
const problemsOf = (job: JobDocument) => validateJobText(JSON.stringify(job)).problems;

describe.concurrent('event-time params that cannot work', () => {
  it.each(INVALID_JOBS)('$name: a validation problem naming the operator', ({ job, says }) => {
    const problems = problemsOf(job);
    const printed = problems.map((p) => p.message).join('\n');
    expect(problems.length, printed).toBeGreaterThan(0);
    for (const pattern of says) expect(printed).toMatch(pattern);
    expectClearText(printed, printed);
  });

  // Every case through the real CLI once: validate and run print the same problems (both read
  // the file with validateJobText), so half of them each.
  it.each(INVALID_JOBS.filter((_, i) => i % 2 === 0))('$name: refused by validate', async ({ job, says }) => {
    const { dir, jobPath } = await setUp(job);
    expectClearRefusal(await runCli(['validate', path.basename(jobPath)], { cwd: dir }), says);
  });

  it.each(INVALID_JOBS.filter((_, i) => i % 2 === 1))(
    '$name: refused by run, before any output',
    async ({ job, says }) => {
      const { dir, jobPath } = await setUp(job);
      expectClearRefusal(await runCli(['run', '--quiet', path.basename(jobPath)], { cwd: dir }), says);
      expect(await pathExists(path.join(dir, OUT))).toBe(false);
    },
  );

  it('the same jobs put right run (in this process)', async () => {
    const right = [
      windowJob({}, { sizeMs: 10 }),
      windowJob({}, { type: 'sliding', sizeMs: 20, slideMs: 10 }),
      windowJob({}, { type: 'session', sizeMs: undefined, gapMs: 5 }),
      windowJob({}, { aggregate: 'sum', field: 't' }),
      timerJob(
        'function process(r, ctx) {\n  ctx.timers.eventTime(r.t + 10);\n}\nfunction onTimer(t, ctx) {\n  ctx.emit({ t });\n}',
        'forward',
      ),
    ];
    // The timer job keyed by k.
    right[4]!.edges[0] = { id: 'e1', from: 'events', to: 'alarms', partition: 'hash', key: 'k' };
    for (const job of right) {
      const { dir } = await setUp(job);
      const { failure } = await runHere(job, dir);
      expect(failure).toBeUndefined();
      expect((await readJsonl(path.join(dir, OUT))).length).toBeGreaterThan(0);
    }
  });
});
