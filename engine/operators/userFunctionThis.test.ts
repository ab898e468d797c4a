// A sandbox escape through `this`: user functions were called as methods of the operator's logic
// (`this.fn(...)`, `this.transact(...)`, `this.generate(...)`), so a plain `function` in user code
// saw the logic as `this`, and through it `env`: the params with `${env:NAME}` resolved, the
// checkpoint storage (file access), the emitter. Every function user code defines is called with
// `this` undefined; each kind that runs user code is tried here through a real run.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runForOutput } from '../../test/executors.js';
import { fn, makeJob, type OperatorInput, sink, generator as source } from '../../test/jobBuilders.js';

let root: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'pipewright-this-'));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** What a user function says about its `this`: JSON, so it survives the sink. */
const LOOK = `(this === undefined ? 'undefined' : Object.getOwnPropertyNames(this).join(','))`;

async function output(operators: OperatorInput[], edges: Parameters<typeof makeJob>[2]) {
  const dir = await mkdtemp(join(root, 'job-'));
  const { out, error } = await runForOutput('deterministic', makeJob('this', operators, edges), dir);
  expect(error).toBeUndefined();
  return out as Record<string, unknown>[];
}

const gen = source('gen', 'function generate(i) { return { i, k: i % 2, t: i }; }', 4);
const through = (op: OperatorInput, key?: string) => [
  {
    id: 'in',
    from: 'gen',
    to: op.id,
    partition: key === undefined ? 'rebalance' : 'hash',
    ...(key ? { key } : {}),
  },
  { id: 'out', from: op.id, to: 'out', partition: 'rebalance' },
];

describe('user functions are called with `this` undefined, never the operator logic', () => {
  it.each([
    ['map', `function map(r) { return { self: ${LOOK} }; }`],
    ['flatMap', `function flatMap(r) { return [{ self: ${LOOK} }]; }`],
    ['process', `function process(r, ctx) { ctx.emit({ self: ${LOOK} }); }`],
  ])('%s', async (kind, code) => {
    const op = fn('op', kind, code);
    const out = await output([gen, op, sink('out', 'out.jsonl')], through(op));
    expect(out).toHaveLength(4);
    for (const record of out) expect(record.self).toBe('undefined');
  });

  it('filter', async () => {
    const op = fn(
      'op',
      'filter',
      `function filter(r) { if (this !== undefined) throw new Error(${LOOK}); return true; }`,
    );
    expect(await output([gen, op, sink('out', 'out.jsonl')], through(op))).toHaveLength(4);
  });

  it("process's onTimer", async () => {
    const code = `function process(r, ctx) { ctx.timers.eventTime(10); }
function onTimer(ts, ctx) { ctx.emit({ self: ${LOOK} }); }`;
    const timed = source('gen', 'function generate(i) { return { k: i % 2 }; }', 4);
    const op = fn('op', 'process', code);
    const out = await output([timed, op, sink('out', 'out.jsonl')], through(op, 'k'));
    expect(out.length).toBeGreaterThan(0);
    for (const record of out) expect(record.self).toBe('undefined');
  });

  it("source.generator's generate", async () => {
    const own = source('gen', `function generate(i) { return { self: ${LOOK} }; }`, 3);
    const out = await output(
      [own, sink('out', 'out.jsonl')],
      [{ id: 'out', from: 'gen', to: 'out', partition: 'rebalance' }],
    );
    expect(out.map((r) => r.self)).toEqual(['undefined', 'undefined', 'undefined']);
  });

  it("a window's code aggregate", async () => {
    const code = `function createAccumulator() { return ${LOOK}; }
function add(acc, r) { return acc + '|' + ${LOOK}; }
function result(acc) { return acc + '|' + ${LOOK}; }`;
    const timed = source('gen', 'function generate(i) { return { k: 1, t: i }; }', 3);
    const op: OperatorInput = {
      id: 'op',
      kind: 'window',
      params: { type: 'tumbling', sizeMs: 1000, aggregate: 'code', code },
    };
    const withTime = { ...timed, params: { ...timed.params, timestampField: 't' } };
    const out = await output([withTime, op, sink('out', 'out.jsonl')], through(op, 'k'));
    expect(out.map((r) => r.value)).toEqual(['undefined|undefined|undefined|undefined|undefined']);
  });

  it("transaction's keys and transact", async () => {
    const code = `function keys(r) {
  if (this !== undefined) throw new Error('keys saw ' + ${LOOK});
  return [['t', r.k]];
}
function transact(r, tx) { tx.emit({ self: ${LOOK} }); }`;
    const op: OperatorInput = {
      id: 'op',
      kind: 'transaction',
      parallelism: 2,
      params: { tables: ['t'], code },
    };
    const out = await output([gen, op, sink('out', 'out.jsonl')], through(op));
    expect(out).toHaveLength(4);
    for (const record of out) expect(record.self).toBe('undefined');
  });
});
