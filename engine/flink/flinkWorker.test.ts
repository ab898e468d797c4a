// The bundled Flink worker (dist/flink/flinkWorker.mjs, `node scripts/build.mjs`) driven over its
// pipe by a fake runner (test/flinkFakeRunner.ts) as the Java runner drives it: open, batches with
// the state reads they make, close; its records and failures compared with the local engine's.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  describeRun,
  makeTempDir,
  removeTempDirs,
  runCli,
  writeJob,
  writeJsonl,
} from '../../test/cliHarness.js';
import { FakeRunner, workerPath } from '../../test/flinkFakeRunner.js';
import { nexmarkEvent } from '../operators/nexmark/nexmarkEvent.js';
import { nexmarkConfigOf } from '../operators/sourceNexmark.js';

const WORD_COUNT = `// Keyed by "word": the value state below holds the count of this one word.
async function process(record, ctx) {
  const count = ctx.state.value('count');
  const n = ((await count.get()) ?? 0) + 1;
  await count.set(n);
  ctx.emit({ word: record.word, count: n });
}`;

const MAP = `function map(r, ctx) {
  if (r.n === 2) return null;
  return { n: r.n * 10, at: new Date(r.n * 1000), gone: undefined, list: [1, undefined], input: ctx.input, op: ctx.operator, key: ctx.key ?? 'none' };
}`;
const FILTER = `function filter(r) {
  r.seen = true;
  return r.n % 2 === 1;
}`;
const FLAT_MAP = `function flatMap(r, ctx) {
  ctx.emit({ first: r.n });
  return new Set([r.n, { twice: r.n * 2 }]);
}`;
const RECORDS = [{ n: 1 }, { n: 2 }, { n: 3, s: 'x' }];

const runners: FakeRunner[] = [];

function keyedOpen(id: string, code: string, extra: Record<string, unknown> = {}) {
  return {
    operator: { id, kind: 'process', parallelism: 1, params: { code } },
    inputs: [{ id: 'in', partition: 'hash', key: 'word' }],
    keyed: true,
    ...extra,
  };
}

function unkeyedOpen(id: string, kind: string, code: string, edge = 'in') {
  return {
    operator: { id, kind, parallelism: 1, params: { code } },
    inputs: [{ id: edge, partition: 'forward' }],
    keyed: false,
  };
}

/** A runner on a fresh worker, started from a directory that is not the checkout. */
function start(): FakeRunner {
  const runner = new FakeRunner(os.tmpdir());
  runners.push(runner);
  return runner;
}

beforeAll(() => {
  if (!existsSync(workerPath)) throw new Error(`${workerPath} is missing: run node scripts/build.mjs`);
});

afterEach(() => {
  for (const runner of runners.splice(0)) runner.child.kill();
});

afterAll(removeTempDirs);

describe('the Flink worker', () => {
  it('counts words with value state kept by the runner across batches', async () => {
    const runner = start();
    expect(await runner.open(keyedOpen('count', WORD_COUNT))).toMatchObject({ t: 'ready' });
    const words = (...list: string[]) => list.map((word) => ({ e: 'in', k: word, r: { word } }));

    const first = await runner.batch(words('stream', 'flink', 'stream'));
    // One read per key: the second "stream" sees the first one's write.
    expect(first.reads).toEqual([
      { t: 'read', i: 0, what: 'value', name: 'count' },
      { t: 'read', i: 1, what: 'value', name: 'count' },
    ]);
    expect(first.answer).toEqual({
      t: 'done',
      out: ['{"word":"stream","count":1}', '{"word":"flink","count":1}', '{"word":"stream","count":2}'],
      writes: [
        [0, 'v', 'count', '1'],
        [1, 'v', 'count', '1'],
        [2, 'v', 'count', '2'],
      ],
    });

    // The runner now sends "count" in `s` with every record: no reads.
    const second = await runner.batch(words('stream', 'new', 'new'));
    expect(second.reads).toEqual([]);
    expect((second.answer.out as string[]).map((text) => JSON.parse(text).count)).toEqual([3, 1, 2]);
    expect(runner.keyState('stream').v.get('count')).toBe('3');
    expect(runner.keyState('new').v.get('count')).toBe('2');
    expect(await runner.close()).toBe(0);
  });

  it('takes a batch that comes before the answer to a read, and carries its values into it', async () => {
    // The runner keeps two batches out: the second's `s` was read before the first's writes.
    const code = `function process(r, ctx) {
  const count = ctx.state.value('count');
  const n = (count.get() ?? 0) + 1;
  count.set(n);
  const seen = ctx.state.map('seen');
  const before = seen.get(r.from) ?? 0;
  seen.set(r.from, before + 1);
  ctx.emit({ count: n, before });
}`;
    const runner = start();
    expect(await runner.open(keyedOpen('count', code))).toMatchObject({ t: 'ready' });
    const item = { e: 'in', k: 'stream', r: { word: 'stream', from: 'a' } };
    expect((await runner.batch([item])).answer.out).toEqual(['{"count":1,"before":0}']);
    // The first batch's map read is answered after the second batch is in the pipe.
    const [first, second] = await runner.batchesInFlight([[item], [item]]);
    expect(first!.reads).toEqual([{ t: 'read', i: 0, what: 'map', name: 'seen', mk: 'a' }]);
    expect(first!.answer.out).toEqual(['{"count":2,"before":1}']);
    expect(second!.answer.out).toEqual(['{"count":3,"before":2}']);
    expect(runner.keyState('stream').v.get('count')).toBe('3');
    expect(await runner.close()).toBe(0);
  });

  it('keeps map and list state through the runner, map entries in key order', async () => {
    const runner = start();
    const code = `async function process(r, ctx) {
      const seen = ctx.state.map('seen');
      const log = ctx.state.list('log');
      if (r.clear) { seen.clear(); log.clear(); }
      seen.set(r.word, (seen.get(r.word) ?? 0) + 1);
      log.add(r.word);
      const entries = [];
      for await (const e of seen.entries()) entries.push(e);
      const all = [];
      for await (const v of log.values()) all.push(v);
      ctx.emit({ entries, all });
    }`;
    expect(await runner.open(keyedOpen('p', code))).toMatchObject({ t: 'ready' });
    await runner.batch([
      { e: 'in', k: 'k', r: { word: 'b' } },
      { e: 'in', k: 'k', r: { word: 'a' } },
    ]);
    const { answer, reads } = await runner.batch([{ e: 'in', k: 'k', r: { word: 'c' } }]);
    expect(reads.map((read) => read.what)).toEqual(['map', 'mapEntries', 'list']);
    expect(JSON.parse((answer.out as string[])[0]!)).toEqual({
      entries: [
        ['a', 1],
        ['b', 1],
        ['c', 1],
      ],
      all: ['b', 'a', 'c'],
    });
    const cleared = await runner.batch([{ e: 'in', k: 'k', r: { word: 'a', clear: true } }]);
    expect(JSON.parse((cleared.answer.out as string[])[0]!)).toEqual({ entries: [['a', 1]], all: ['a'] });
    expect(cleared.answer.writes).toEqual([
      [0, 'mc', 'seen'],
      [0, 'lc', 'log'],
      [0, 'm', 'seen', 'a', '1'],
      [0, 'l', 'log', '"a"'],
    ]);
    expect(await runner.close()).toBe(0);
  });

  it('emits what the local engine emits for map, filter and flatMap', async () => {
    const dir = await makeTempDir('pipewright-flink-');
    await writeJsonl(path.join(dir, 'in.jsonl'), RECORDS);
    const kinds = [
      ['m', 'map', MAP],
      ['f', 'filter', FILTER],
      ['fm', 'flatMap', FLAT_MAP],
    ] as const;
    await writeJob(path.join(dir, 'cmp.job.json'), {
      format: 'pipewright.job/1',
      name: 'cmp',
      operators: [
        { id: 'src', kind: 'source.jsonl', parallelism: 1, params: { path: 'in.jsonl' } },
        ...kinds.map(([id, kind, code]) => ({ id, kind, parallelism: 1, params: { code } })),
        ...kinds.map(([id]) => ({
          id: `${id}-sink`,
          kind: 'sink.jsonl',
          parallelism: 1,
          params: { path: `${id}.jsonl` },
        })),
      ],
      edges: kinds.flatMap(([id]) => [
        { id: `to-${id}`, from: 'src', to: id, partition: 'forward' },
        { id: `${id}-out`, from: id, to: `${id}-sink`, partition: 'forward' },
      ]),
    });
    const local = await runCli(['run', path.join(dir, 'cmp.job.json'), '--quiet']);
    expect(local.code, describeRun(local)).toBe(0);

    for (const [id, kind, code] of kinds) {
      const runner = start();
      expect(await runner.open(unkeyedOpen(id, kind, code, `to-${id}`))).toMatchObject({ t: 'ready' });
      const { answer } = await runner.batch(RECORDS.map((r) => ({ e: `to-${id}`, r })));
      const sink = (await readFile(path.join(dir, `${id}.jsonl`), 'utf8'))
        .split('\n')
        .filter((l) => l !== '');
      expect(answer.t, JSON.stringify(answer)).toBe('done');
      expect(answer.out, kind).toEqual(sink);
      expect(answer.writes).toEqual([]);
      expect(await runner.close()).toBe(0);
    }
  });

  it('sends a record to a port as [port, text]', async () => {
    const runner = start();
    const code = `function process(r, ctx) {
      ctx.emit(r, r.late ? 'late' : undefined);
      ctx.emit({ again: r.n }, 'out');
    }`;
    expect(await runner.open(unkeyedOpen('p', 'process', code))).toMatchObject({ t: 'ready' });
    const { answer } = await runner.batch([
      { e: 'in', r: { n: 1 } },
      { e: 'in', r: { n: 2, late: true } },
    ]);
    expect(answer.out).toEqual(['{"n":1}', '{"again":1}', ['late', '{"n":2,"late":true}'], '{"again":2}']);
    expect(await runner.close()).toBe(0);
  });

  it("answers a user's exception with one error frame in the local engine's words, and still closes cleanly", async () => {
    const runner = start();
    const code = `async function process(record, ctx) {
  if (record.word === "stream") throw new TypeError("bad " + record.word);
  ctx.emit(record);
}`;
    expect(await runner.open(keyedOpen('count', code, { subtask: 1, parallelism: 2 }))).toMatchObject({
      t: 'ready',
    });
    const { answer } = await runner.batch([
      { e: 'in', k: 'ok', r: { word: 'ok' } },
      { e: 'in', k: 'stream', r: { word: 'stream' } },
    ]);
    // Locally: `operator "count" (subtask 1 of 2) failed on the record from lines.jsonl:2: TypeError: bad stream`;
    // the worker knows no record's origin.
    expect(answer).toEqual({
      t: 'error',
      message: 'operator "count" (subtask 1 of 2) failed: TypeError: bad stream',
    });
    expect(await runner.close()).toBe(0);
    expect(runner.stderr).toBe('');
  });

  it('fails the batch whose code left a rejected promise unhandled, naming the operator', async () => {
    const runner = start();
    const code = `function process(record, ctx) {
  if (record.word === "lost") Promise.resolve().then(() => { throw new RangeError("nobody waits for " + record.word); });
  ctx.emit(record);
}`;
    expect(await runner.open(keyedOpen('count', code))).toMatchObject({ t: 'ready' });
    const first = await runner.batch([{ e: 'in', k: 'ok', r: { word: 'ok' } }]);
    expect(first.answer).toMatchObject({ t: 'done' });
    const { answer } = await runner.batch([{ e: 'in', k: 'lost', r: { word: 'lost' } }]);
    expect(answer).toEqual({
      t: 'error',
      message:
        'operator "count" failed: a promise its code made was rejected and nothing handled it: RangeError: nobody waits for lost',
    });
    expect(await runner.close()).toBe(0);
  });

  it('answers code that does not compile with an error frame at open', async () => {
    const runner = start();
    expect(
      await runner.open(unkeyedOpen('words', 'flatMap', 'function flatMap(record, ctx) {\n return (;\n}')),
    ).toEqual({
      t: 'error',
      message: `operator "words": syntax error at line 2 of its code: Unexpected token ';'`,
    });
    const missing = start();
    expect(await missing.open(unkeyedOpen('count', 'process', 'function proc(record, ctx) {}'))).toEqual({
      t: 'error',
      message: 'operator "count": params.code must define a function named process',
    });
    const threw = start();
    expect(
      await threw.open(unkeyedOpen('count', 'process', 'const x = null;\nx.y;\nfunction process() {}')),
    ).toEqual({
      t: 'error',
      message: `operator "count" threw at line 2 of its code: TypeError: Cannot read properties of null (reading 'y')`,
    });
    expect(await runner.close()).toBe(0);
  });

  it('refuses state in an unkeyed operator with the local text', async () => {
    const runner = start();
    const code = 'function flatMap(record, ctx) {\n ctx.state.value("x").get();\n}';
    expect(await runner.open(unkeyedOpen('words', 'flatMap', code, 'lines-to-words'))).toMatchObject({
      t: 'ready',
    });
    const { answer } = await runner.batch([{ e: 'lines-to-words', r: { line: 'a b' } }]);
    expect(answer).toEqual({
      t: 'error',
      message:
        'operator "words" failed: keyed state needs every input hash-partitioned by a key; edge "lines-to-words" is not',
    });
    expect(await runner.close()).toBe(0);
  });

  it('gives records their time and the watermark, keeps timers with the runner and fires them as told', async () => {
    const runner = start();
    const code = `async function process(r, ctx) {
      const seen = ctx.state.value('seen');
      await seen.set(((await seen.get()) ?? 0) + 1);
      ctx.timers.eventTime(ctx.timestamp + 10);
      ctx.timers.eventTime(ctx.timestamp + 10);
      if (r.drop) ctx.timers.deleteEventTime(r.drop);
      ctx.timers.processingTime(99);
      ctx.emit({ at: ctx.timestamp, watermark: String(ctx.watermark), key: ctx.key });
    }
    async function onTimer(ts, ctx) {
      ctx.emit({ fired: ts, key: ctx.key, domain: ctx.timeDomain, at: ctx.timestamp, seen: await ctx.state.value('seen').get(), watermark: String(ctx.watermark) });
    }`;
    // With an onTimer the runner empties the worker before each watermark.
    expect(await runner.open(keyedOpen('t', code))).toEqual({ t: 'ready', onTimer: true });
    const first = await runner.batch([
      { e: 'in', k: 'a', r: {}, ts: 100 },
      { e: 'in', k: 'b', r: { drop: 110 }, ts: 100 },
    ]);
    expect(first.answer).toEqual({
      t: 'done',
      out: [
        ['out', '{"at":100,"watermark":"-Infinity","key":"a"}', 100],
        ['out', '{"at":100,"watermark":"-Infinity","key":"b"}', 100],
      ],
      writes: [
        [0, 'v', 'seen', '1'],
        [0, 'te', 110],
        [0, 'te', 110],
        [0, 'tp', 99],
        [1, 'v', 'seen', '1'],
        [1, 'te', 110],
        [1, 'te', 110],
        [1, 'xe', 110],
        [1, 'tp', 99],
      ],
    });
    // The runner's timer service keeps one per key, time and domain.
    expect([...runner.timers].sort()).toEqual(['e:"a":110', 'p:"a":99', 'p:"b":99']);
    // A watermark of 110 fires a's event-time timer; the end of input, as Flink says it, is Infinity.
    const fired = await runner.batch(
      [
        { timer: 'e', ts: 110, k: 'a' },
        { timer: 'p', ts: 99, k: 'b' },
      ],
      2 ** 63, // Flink's Long.MAX_VALUE, as JSON carries it to JavaScript
    );
    expect(fired.answer.out).toEqual([
      ['out', '{"fired":110,"key":"a","domain":"eventTime","at":110,"seen":1,"watermark":"Infinity"}', 110],
      '{"fired":99,"key":"b","domain":"processingTime","seen":1,"watermark":"Infinity"}',
    ]);
    const watermarked = await runner.batch([{ e: 'in', k: 'c', r: {}, ts: 120 }], 105);
    expect(watermarked.answer.out).toEqual([['out', '{"at":120,"watermark":"105","key":"c"}', 120]]);
    expect(await runner.close()).toBe(0);
  });

  it('takes a watermark among the records where no onTimer sees it, and marks its place in out', async () => {
    const runner = start();
    const code = `function process(r, ctx) {
      ctx.timers.eventTime(ctx.timestamp + 1);
      ctx.emit({ i: r.i, watermark: String(ctx.watermark) });
    }`;
    expect(await runner.open(keyedOpen('t', code))).toEqual({ t: 'ready', onTimer: false });
    const item = (i: number) => ({ e: 'in', k: 'a', r: { i }, ts: 100 + i });
    const { answer } = await runner.batch([item(0), { wm: 100 }, item(1), { wm: 2 ** 63 }, item(2)], 90);
    expect(answer.out).toEqual([
      ['out', '{"i":0,"watermark":"90"}', 100],
      null,
      ['out', '{"i":1,"watermark":"100"}', 101],
      null,
      ['out', '{"i":2,"watermark":"Infinity"}', 102],
    ]);
    // An item's index stays its place in the batch: the writes name records 0, 2 and 4.
    expect((answer.writes as unknown[][]).map((w) => w[0])).toEqual([0, 2, 4]);
    expect(await runner.close()).toBe(0);
  });

  it("makes source.nexmark's events by number with the local generator, each with its time", async () => {
    const runner = start();
    const params = { count: 100, eventsPerSec: 1000, seed: 3 };
    expect(
      await runner.open({
        operator: { id: 'nexmark', kind: 'source.nexmark', parallelism: 2, params },
        inputs: [],
        keyed: false,
      }),
    ).toMatchObject({ t: 'ready' });
    runner.send({ t: 'make', next: 1, stride: 2, count: 3 });
    const events = [1, 3, 5].map((n) => nexmarkEvent(nexmarkConfigOf(params), n));
    expect(await runner.next()).toEqual({
      t: 'made',
      records: events.map((e) => JSON.stringify(e)),
      times: events.map((e) => e.dateTime),
    });
    expect(await runner.close()).toBe(0);
  });

  it('refuses a value state can not hold, in the local words', async () => {
    const runner = start();
    const code = 'function process(record, ctx) {\n ctx.state.value("x").set(() => 1);\n}';
    expect(await runner.open(keyedOpen('count', code))).toMatchObject({ t: 'ready' });
    const { answer } = await runner.batch([{ e: 'in', k: 'a', r: { word: 'a' } }]);
    expect(answer).toEqual({
      t: 'error',
      message: 'operator "count" failed: TypeError: value state "x" must be a JSON value (got function)',
    });
  });

  it('exits 0 at the end of its input', async () => {
    const runner = start();
    expect(await runner.open(keyedOpen('count', WORD_COUNT))).toMatchObject({ t: 'ready' });
    runner.child.stdin.end();
    expect(await runner.exited).toBe(0);
  });
});
