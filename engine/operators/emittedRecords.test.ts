// What user code hands to the engine as a record, through real runs (JobRun, SES user code, the
// JSONL sink): a record JSON cannot hold is blamed on the operator that emitted it, at the line
// of its code and with the input record's origin, never on the sink; and a record is a snapshot
// taken when it is emitted. On both executors (on worker threads a record crosses as bytes).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXECUTORS, type Executor, runForOutput } from '../../test/executors.js';
import { fn, makeJob, type OperatorInput, sink, generator as source } from '../../test/jobBuilders.js';

let root: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'pipewright-emitted-'));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const INPUT = '{"n":1}\n{"n":2}\n{"n":3}\n';

/** events (in.jsonl) -> `op` -> out.jsonl; the run's output, or its error. */
async function run(executor: Executor, op: OperatorInput): Promise<{ out?: unknown[]; error?: Error }> {
  const dir = await mkdtemp(join(root, 'job-'));
  await writeFile(join(dir, 'in.jsonl'), INPUT);
  const fromSource = op.kind === 'source.generator';
  const job = makeJob(
    'emitted',
    [
      ...(fromSource ? [] : [{ id: 'events', kind: 'source.jsonl', params: { path: 'in.jsonl' } }]),
      op,
      sink('out', 'out.jsonl'),
    ],
    [
      ...(fromSource ? [] : [{ id: 'in', from: 'events', to: op.id, partition: 'forward' }]),
      { id: 'out', from: op.id, to: 'out', partition: 'forward' },
    ],
  );
  return runForOutput(executor, job, dir);
}

async function failure(executor: Executor, op: OperatorInput): Promise<string> {
  const { error, out } = await run(executor, op);
  expect(out, 'the run should have failed').toBeUndefined();
  return error!.message;
}

// Line 1 is the signature; the emit is on line 2 or 3, so a line number is checked, not assumed.
const processCode = (body: string) => `function process(r, ctx) {\n  if (r.n < 2) return;\n  ${body}\n}`;

describe.each(EXECUTORS)('a record JSON cannot hold (%s)', (executor) => {
  const cases: [string, string, RegExp][] = [
    ['a BigInt', 'ctx.emit({ id: 1n });', /record\.id is a BigInt \(1n\)/],
    [
      'a cycle',
      'const o = { a: {} }; o.a.o = o; ctx.emit(o);',
      /record\.a\.o refers back to record, a cycle/,
    ],
    ['a function', 'ctx.emit({ total: r.n, format() {} });', /record\.format is a function \(format\)/],
    ['a Symbol', 'ctx.emit({ tag: Symbol("t") });', /record\.tag is a Symbol/],
    ['a Map', 'ctx.emit({ byKey: new Map([["a", 1]]) });', /record\.byKey is a Map/],
    ['a Set', 'ctx.emit({ ids: new Set([1]) });', /record\.ids is a Set/],
    ['NaN', 'ctx.emit({ ratio: 0 / 0 });', /record\.ratio is NaN/],
    ['Infinity', 'ctx.emit({ ratio: 1 / 0 });', /record\.ratio is Infinity/],
    [
      'a getter that throws',
      'ctx.emit({ get late() { throw new Error("not yet"); } });',
      /record\.late is unreadable \(reading it threw not yet\)/,
    ],
    [
      'nested deep in the record',
      'ctx.emit({ items: [{ id: 1 }, { id: 2n }] });',
      /record\.items\[1\]\.id is a BigInt/,
    ],
  ];
  for (const [what, body, problem] of cases) {
    it(`emitted with ${what} fails the emitting operator, at its line and input record`, async () => {
      const message = await failure(executor, fn('op', 'process', processCode(body)));
      expect(message).toMatch(/^operator "op" failed on the record from in\.jsonl:2: /);
      expect(message).toContain('ctx.emit at line 3 of its code: ');
      expect(message).toMatch(problem);
      expect(message).not.toContain('operator "out"');
    });
  }

  it('returned by map fails the map, with the input record', async () => {
    const message = await failure(
      executor,
      fn('op', 'map', 'function map(r) { return { n: BigInt(r.n) }; }'),
    );
    expect(message).toMatch(/^operator "op" failed on the record from in\.jsonl:1: /);
    expect(message).toContain('the record map returned: record.n is a BigInt (1n)');
  });

  it('returned by flatMap fails the flatMap, naming the element', async () => {
    const message = await failure(
      executor,
      fn('op', 'flatMap', 'function flatMap(r) { return [r, { m: new Map() }]; }'),
    );
    expect(message).toMatch(/^operator "op" failed on the record from in\.jsonl:1: /);
    expect(message).toContain('element 1 of what flatMap returned: record.m is a Map');
  });

  it('left in a record a filter passes on fails the filter', async () => {
    const message = await failure(
      executor,
      fn('op', 'filter', 'function filter(r) { r.seen = NaN; return true; }'),
    );
    expect(message).toMatch(/^operator "op" failed on the record from in\.jsonl:1: /);
    expect(message).toContain('the record filter passed on: record.seen is NaN');
  });

  it('from a generator fails the generator, naming the record it was making', async () => {
    const returned = await failure(
      executor,
      source('op', 'function generate(i) { return { i, big: BigInt(i) }; }', 5),
    );
    expect(returned).toMatch(/^operator "op" failed: /);
    expect(returned).toContain('the record generate returned for i = 0: record.big is a BigInt (0n)');
    const emitted = await failure(
      executor,
      source(
        'op',
        'function generate(i, ctx) {\n  if (i === 3) ctx.emit({ f: () => i });\n  return { i };\n}',
        5,
      ),
    );
    expect(emitted).toContain(
      'ctx.emit at line 2 of its code (making generator "op" record 3): record.f is a function',
    );
  });

  it('can be caught by the code that emitted it, and then nothing is emitted', async () => {
    const code = processCode(
      'try { ctx.emit({ n: 1n }); } catch (e) { ctx.emit({ caught: e instanceof TypeError }); }',
    );
    const { out, error } = await run(executor, fn('op', 'process', code));
    expect(error).toBeUndefined();
    expect(out).toEqual([{ caught: true }, { caught: true }]);
  });
});

describe.each(EXECUTORS)('an emitted record is a snapshot (%s)', (executor) => {
  it('taken at ctx.emit: changing the object afterwards changes nothing the sink writes', async () => {
    const code = `
      function process(r, ctx) {
        const out = { n: r.n, tags: ['a'] };
        ctx.emit(out);
        out.n = -1;
        out.tags.push('changed');
        ctx.emit(r);
        r.n = 0;
      }`;
    const { out } = await run(executor, fn('op', 'process', code));
    expect(out).toEqual([
      { n: 1, tags: ['a'] },
      { n: 1 },
      { n: 2, tags: ['a'] },
      { n: 2 },
      { n: 3, tags: ['a'] },
      { n: 3 },
    ]);
  });

  it('also of what map returns and filter passes on, though the code keeps and changes it later', async () => {
    const kept = `
      let previous;
      function KIND(r) {
        if (previous !== undefined) previous.n = -1;
        previous = r;
        return RESULT;
      }`;
    for (const [kind, result] of [
      ['map', 'r'],
      ['filter', 'true'],
    ] as const) {
      const { out } = await run(
        executor,
        fn('op', kind, kept.replace('KIND', kind).replace('RESULT', result)),
      );
      expect(out, kind).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    }
  });

  it('with the conversions JSON makes where nothing is lost', async () => {
    const code = processCode(
      'ctx.emit({ n: r.n, gone: undefined, list: [undefined], at: new Date(r.n * 1000), neg: -0 });',
    );
    const { out } = await run(executor, fn('op', 'process', code));
    expect(out).toEqual([
      { n: 2, list: [null], at: '1970-01-01T00:00:02.000Z', neg: 0 },
      { n: 3, list: [null], at: '1970-01-01T00:00:03.000Z', neg: 0 },
    ]);
  });
});
