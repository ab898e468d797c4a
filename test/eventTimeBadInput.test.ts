// Bad input to an event-time job, through the real CLI (issue 14, "Must show: bad input"): a
// JSON Lines record whose timestampField is missing or holds no time fails the run naming
// file:line, and its sink publishes nothing; with onBadTimestamp "skip" the run goes on without
// it and counts it (recordsSkipped in --metrics); window params that make no windows, and timers
// in a process whose input is not keyed, are validation problems naming the operator.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
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

function expectClearRefusal(result: CliResult, says: readonly RegExp[]): void {
  const printed = result.stdout + result.stderr;
  expect(result.code, describeRun(result)).toBe(1);
  for (const pattern of says) expect(printed, describeRun(result)).toMatch(pattern);
  expect(printed, describeRun(result)).not.toMatch(/internal error/i);
  expect(printed, describeRun(result)).not.toMatch(/^\s+at /m);
  expect(printed, describeRun(result)).not.toMatch(/file:\/\/|node:internal|dist\/engine|node_modules/);
}

const BAD_TIMESTAMPS = [
  { name: 'missing', line: '{"k":"a"}' },
  { name: 'null', line: '{"k":"a","t":null}' },
  { name: 'a word, not a time', line: '{"k":"a","t":"soon"}' },
  { name: 'a boolean', line: '{"k":"a","t":true}' },
  { name: 'an object', line: '{"k":"a","t":{"ms":22}}' },
] as const;

describe.concurrent('a record whose timestamp field is bad', () => {
  it.each(BAD_TIMESTAMPS)(
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
    '$name: with onBadTimestamp "skip" the run succeeds without it and counts it',
    async ({ line }) => {
      const { dir, jobPath } = await setUp(windowJob({ onBadTimestamp: 'skip' }), inputWith(line));
      const metrics = path.join(dir, 'metrics.jsonl');
      const result = await runCli(['run', '--quiet', path.basename(jobPath), '--metrics', metrics], {
        cwd: dir,
      });
      expect(result.code, describeRun(result)).toBe(0);
      const out = await readJsonl<{ key: string; start: number; value: number }>(path.join(dir, OUT));
      const byWindow = out.map((r) => `${r.key}@${r.start}=${r.value}`).sort();
      // Line 4 counted nowhere: a's window [20,30) does not exist.
      expect(byWindow).toEqual(['a@0=1', 'a@10=1', 'b@0=1', 'b@30=1']);
      const samples = await readJsonl<JobDocument>(metrics);
      const final = samples.filter((s) => s.type === 'metrics' && s.final === true);
      expect(final, describeRun(result)).toHaveLength(1);
      const events = (final[0]!.operators as JobDocument[]).find((op) => op.id === 'events')!;
      const skipped = (events.subtasks as JobDocument[]).map((s) => s.recordsSkipped ?? 0);
      expect(skipped.reduce((a: number, b: number) => a + b, 0)).toBe(1);
      expect(events.recordsOut).toBe(4);
    },
  );

  it('an ISO-8601 string is a time: the same windows as epoch milliseconds', async () => {
    const { dir, jobPath } = await setUp(windowJob(), inputWith('{"k":"a","t":"1970-01-01T00:00:00.022Z"}'));
    const result = await runCli(['run', '--quiet', path.basename(jobPath)], { cwd: dir });
    expect(result.code, describeRun(result)).toBe(0);
    const out = await readJsonl<{ key: string; start: number; value: number }>(path.join(dir, OUT));
    expect(out.map((r) => `${r.key}@${r.start}=${r.value}`).sort()).toEqual([
      'a@0=1',
      'a@10=1',
      'a@20=1',
      'b@0=1',
      'b@30=1',
    ]);
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

describe.concurrent('event-time params that cannot work', () => {
  it.each(INVALID_JOBS)('$name: refused by validate', async ({ job, says }) => {
    const { dir, jobPath } = await setUp(job);
    expectClearRefusal(await runCli(['validate', path.basename(jobPath)], { cwd: dir }), says);
  });

  it.each(INVALID_JOBS)('$name: refused by run, before any output', async ({ job, says }) => {
    const { dir, jobPath } = await setUp(job);
    expectClearRefusal(await runCli(['run', '--quiet', path.basename(jobPath)], { cwd: dir }), says);
    expect(await pathExists(path.join(dir, OUT))).toBe(false);
  });

  it('the same jobs put right run', async () => {
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
      const { dir, jobPath } = await setUp(job);
      const result = await runCli(['run', '--quiet', path.basename(jobPath)], { cwd: dir });
      expect(result.code, describeRun(result)).toBe(0);
      expect((await readJsonl(path.join(dir, OUT))).length).toBeGreaterThan(0);
    }
  });
});
