// Windows in whole jobs, on real LevelDB state, on both executors: tumbling, sliding and session
// windows over a JSON Lines file with event times, a late record within the allowed lateness
// firing its window again, one later still going to the port "late", and the end of input
// firing every window left.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXECUTORS, runForOutput } from './executors.js';
import { type EdgeInput, makeJob, type OperatorInput, sink } from './jobBuilders.js';

let root: string;
let dirs = 0;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'pipewright-windows-'));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function freshDir(): Promise<string> {
  const dir = join(root, `job-${dirs++}`);
  await mkdir(dir);
  return dir;
}

interface WindowCase {
  /** The input records, in file order; `t` is each one's event time. */
  readonly records: readonly Record<string, unknown>[];
  readonly window: Record<string, unknown>;
  readonly maxOutOfOrdernessMs?: number;
  readonly parallelism?: number;
  /** Also write what goes to port "late" to late.jsonl. */
  readonly late?: boolean;
}

function windowJob({ window, maxOutOfOrdernessMs = 0, parallelism = 1, late = false }: WindowCase) {
  const operators: OperatorInput[] = [
    {
      id: 'in',
      kind: 'source.jsonl',
      params: { path: 'in.jsonl', timestampField: 't', maxOutOfOrdernessMs },
    },
    { id: 'windows', kind: 'window', parallelism, params: window },
    sink('out', 'out.jsonl'),
  ];
  const edges: EdgeInput[] = [
    { id: 'e1', from: 'in', to: 'windows', partition: 'hash', key: 'k' },
    { id: 'e2', from: 'windows', to: 'out', partition: 'rebalance' },
  ];
  if (late) {
    operators.push(sink('lateOut', 'late.jsonl'));
    edges.push({ id: 'e3', from: 'windows', fromPort: 'late', to: 'lateOut', partition: 'rebalance' });
  }
  return makeJob('windows', operators, edges);
}

/** Output records in one order whatever the executor's interleaving: by key, window, value. */
function sorted(records: unknown[]): unknown[] {
  const text = (r: unknown) => JSON.stringify(r);
  return [...records].sort((a, b) => (text(a) < text(b) ? -1 : text(a) > text(b) ? 1 : 0));
}

async function run(executor: (typeof EXECUTORS)[number], windowCase: WindowCase) {
  const dir = await freshDir();
  await writeFile(join(dir, 'in.jsonl'), windowCase.records.map((r) => `${JSON.stringify(r)}\n`).join(''));
  const { out, error } = await runForOutput(executor, windowJob(windowCase), dir);
  if (error !== undefined) throw error;
  const late = windowCase.late
    ? (await readFile(join(dir, 'late.jsonl'), 'utf8'))
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line))
    : [];
  return { out: out!, late };
}

describe.each(EXECUTORS)('windows on the %s executor', (executor) => {
  it('tumbling: a count per key and window, before the epoch too', async () => {
    const records = [
      { k: 'a', t: -1 },
      { k: 'a', t: 0 },
      { k: 'b', t: 3 },
      { k: 'a', t: 9 },
      { k: 'a', t: 10 },
      { k: 'b', t: 25 },
    ];
    const { out } = await run(executor, {
      records,
      window: { type: 'tumbling', sizeMs: 10, aggregate: 'count' },
      parallelism: 2,
    });
    expect(sorted(out)).toEqual(
      sorted([
        { key: 'a', start: -10, end: 0, value: 1 },
        { key: 'a', start: 0, end: 10, value: 2 },
        { key: 'a', start: 10, end: 20, value: 1 },
        { key: 'b', start: 0, end: 10, value: 1 },
        { key: 'b', start: 20, end: 30, value: 1 },
      ]),
    );
  });

  it('sliding: a sum over every window a record is in', async () => {
    const records = [
      { k: 'a', t: 2, v: 1 },
      { k: 'a', t: 7, v: 10 },
      { k: 'a', t: 12, v: 100 },
    ];
    const { out } = await run(executor, {
      records,
      window: { type: 'sliding', sizeMs: 10, slideMs: 5, aggregate: 'sum', field: 'v' },
    });
    expect(sorted(out)).toEqual(
      sorted([
        { key: 'a', start: -5, end: 5, value: 1 },
        { key: 'a', start: 0, end: 10, value: 11 },
        { key: 'a', start: 5, end: 15, value: 110 },
        { key: 'a', start: 10, end: 20, value: 100 },
      ]),
    );
  });

  it('session: records within the gap are one session, a record between two merges them', async () => {
    const records = [
      { k: 'a', t: 0, v: 1 },
      { k: 'a', t: 20, v: 2 },
      { k: 'b', t: 21, v: 5 },
      // Out of order by 10 (the source allows 15): joins [0,10) and [20,30).
      { k: 'a', t: 10, v: 4 },
      { k: 'a', t: 50, v: 8 },
    ];
    const { out } = await run(executor, {
      records,
      window: { type: 'session', gapMs: 10, aggregate: 'max', field: 'v' },
      maxOutOfOrdernessMs: 15,
      parallelism: 2,
    });
    expect(sorted(out)).toEqual(
      sorted([
        { key: 'a', start: 0, end: 30, value: 4 },
        { key: 'b', start: 21, end: 31, value: 5 },
        { key: 'a', start: 50, end: 60, value: 8 },
      ]),
    );
  });

  it('an aggregate in code, merged across sessions, compiled in each subtask', async () => {
    const code = `function createAccumulator() { return { ids: [] }; }
function add(acc, record) { acc.ids.push(record.id); return acc; }
function merge(a, b) { return { ids: a.ids.concat(b.ids) }; }
function result(acc) { return acc.ids.slice().sort().join(' '); }`;
    const records = [
      { k: 'a', t: 0, id: 'x' },
      { k: 'b', t: 1, id: 'p' },
      { k: 'a', t: 20, id: 'z' },
      { k: 'a', t: 10, id: 'y' },
      { k: 'b', t: 40, id: 'q' },
    ];
    const { out } = await run(executor, {
      records,
      window: { type: 'session', gapMs: 10, aggregate: 'code', code },
      maxOutOfOrdernessMs: 20,
      parallelism: 2,
    });
    expect(sorted(out)).toEqual(
      sorted([
        { key: 'a', start: 0, end: 30, value: 'x y z' },
        { key: 'b', start: 1, end: 11, value: 'p' },
        { key: 'b', start: 40, end: 50, value: 'q' },
      ]),
    );
  });

  it('allowed lateness fires a window again; a record later than that goes to "late" unchanged', async () => {
    const records = [
      { k: 'a', t: 1 },
      // Watermark 12: [0,10) fires with 1.
      { k: 'a', t: 12 },
      // Late, but within 5 of lateness (cleanup at 14): [0,10) fires again with 2.
      { k: 'a', t: 5, n: 'allowed' },
      // Watermark 16: [0,10) is gone.
      { k: 'a', t: 16 },
      { k: 'a', t: 3, n: 'too late' },
    ];
    const { out, late } = await run(executor, {
      records,
      window: { type: 'tumbling', sizeMs: 10, aggregate: 'count', allowedLatenessMs: 5 },
      late: true,
    });
    // One key on one subtask: its results in the order they fired.
    expect(out).toEqual([
      { key: 'a', start: 0, end: 10, value: 1 },
      { key: 'a', start: 0, end: 10, value: 2 },
      { key: 'a', start: 10, end: 20, value: 2 },
    ]);
    expect(late).toEqual([{ k: 'a', t: 3, n: 'too late' }]);
  });

  it('the end of input fires every window, however far the watermark is behind', async () => {
    const records = Array.from({ length: 50 }, (_, i) => ({ k: `k${i % 5}`, t: i * 1000 }));
    const { out } = await run(executor, {
      records,
      window: { type: 'tumbling', sizeMs: 10_000, aggregate: 'count' },
      // The watermark never passes a window's end before the input ends.
      maxOutOfOrdernessMs: 1_000_000,
      parallelism: 2,
    });
    expect(out).toHaveLength(25);
    expect(out.every((r) => (r as { value: number }).value === 2)).toBe(true);
  });

  it('a record without event time fails the job naming the operator and the line', async () => {
    const dir = await freshDir();
    await writeFile(join(dir, 'in.jsonl'), '{"k":"a","t":1}\n');
    const job = makeJob(
      'untimed',
      [
        { id: 'in', kind: 'source.jsonl', params: { path: 'in.jsonl' } },
        { id: 'windows', kind: 'window', params: { type: 'tumbling', sizeMs: 10, aggregate: 'count' } },
        sink('out', 'out.jsonl'),
      ],
      [
        { id: 'e1', from: 'in', to: 'windows', partition: 'hash', key: 'k' },
        { id: 'e2', from: 'windows', to: 'out', partition: 'forward' },
      ],
    );
    const { error } = await runForOutput(executor, job, dir);
    expect(error?.message).toMatch(
      /^operator "windows" failed on the record from .*in\.jsonl:1: the record has no event time/,
    );
  });
});
