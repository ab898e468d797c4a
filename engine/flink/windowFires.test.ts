// A window's code aggregate in the bundled Flink worker (`node scripts/build.mjs`), driven as the
// runner drives it (test/flinkFakeRunner.ts): a firing's records folded in order, a session's
// merges replayed in the order the local engine makes them, and the code's failures in the local
// engine's words.
import os from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeRunner } from '../../test/flinkFakeRunner.js';

const RECORDING = [
  'function createAccumulator() { return { m: 0, ids: [] }; }',
  'function add(acc, r) { if (r.id === "bad") throw new RangeError("no " + r.id); acc.ids.push(r.id); return acc; }',
  'function merge(a, b) { return { m: a.m + b.m + 1, ids: a.ids.concat(b.ids) }; }',
  "function result(acc) { return acc.ids.join(' ') + ' m' + acc.m; }",
].join('\n');

const runners: FakeRunner[] = [];

afterEach(async () => {
  for (const runner of runners.splice(0)) {
    runner.child.kill();
    await runner.exited;
  }
});

async function open(params: Record<string, unknown>): Promise<FakeRunner> {
  const runner = new FakeRunner(os.tmpdir());
  runners.push(runner);
  const ready = await runner.open({
    operator: {
      id: 'w',
      kind: 'window',
      parallelism: 1,
      params: { aggregate: 'code', code: RECORDING, ...params },
    },
    inputs: [{ id: 'w/contents', partition: 'forward' }],
    keyed: false,
  });
  expect(ready).toEqual({ t: 'ready', onTimer: false });
  return runner;
}

const ids = (...names: string[]) => names.map((id) => ({ id }));

describe('a window code aggregate in the Flink worker', () => {
  it('folds a firing in the order the window took its records, with the time end − 1', async () => {
    const runner = await open({ type: 'tumbling', sizeMs: 100 });
    const { answer } = await runner.batch([
      { e: 'w/contents', ts: 99, r: { key: ['k', 1], start: 0, end: 100, records: ids('b', 'a', 'c') } },
      { e: 'w/contents', ts: 99, r: { key: 'j', start: 0, end: 100, records: ids('d') } },
    ]);
    expect(answer.out).toEqual([
      ['out', '{"key":["k",1],"start":0,"end":100,"value":"b a c m0"}', 99],
      ['out', '{"key":"j","start":0,"end":100,"value":"d m0"}', 99],
    ]);
  });

  it('replays the merges of a session as the local engine makes them', async () => {
    const runner = await open({ type: 'session', gapMs: 10 });
    // In arrival order: a [0,10), b [30,40), c [15,25); d [10,20) joins a and c (merge(a, c),
    // then d), e [22,32) joins that and b (merge(acd, b), then e).
    const { answer } = await runner.batch([
      {
        e: 'w/contents',
        ts: 39,
        r: { key: 'k', start: 0, end: 40, records: ids('a', 'b', 'c', 'd', 'e'), times: [0, 30, 15, 10, 22] },
      },
    ]);
    expect(answer.out).toEqual([['out', '{"key":"k","start":0,"end":40,"value":"a c d b e m2"}', 39]]);
  });

  it("answers a failure of the code with the local engine's line", async () => {
    const runner = await open({ type: 'tumbling', sizeMs: 100 });
    const { answer } = await runner.batch([
      { e: 'w/contents', ts: 99, r: { key: 'k', start: 0, end: 100, records: ids('a', 'bad') } },
    ]);
    expect(answer).toEqual({ t: 'error', message: 'operator "w" failed: RangeError: no bad' });
  });
});
