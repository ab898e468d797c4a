// Job texts for fuzzing the job-file validator (engine/graph/validation/validateJobFuzz.test.ts): the example
// jobs with fields deleted, duplicated, moved and retyped, huge numbers and strings, unicode,
// deep nesting, prototype keys and code that does not parse; their text cut short, spliced and
// salted with random characters; jobs assembled from parts to reach the graph rules; and texts
// that are random from the start.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { JOB_FORMAT, OPERATOR_KINDS } from '../engine/graph/schema.js';

const examplesDir = fileURLToPath(new URL('../assets/examples', import.meta.url));
/** The text of every example job in assets/examples. */
export const EXAMPLES: readonly string[] = readdirSync(examplesDir, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .flatMap((entry) =>
    readdirSync(join(examplesDir, entry.name))
      .filter((name) => name.endsWith('.job.json'))
      .map((name) => readFileSync(join(examplesDir, entry.name, name), 'utf8')),
  );

type Json = unknown;
type Path = readonly (string | number)[];

/** A string of `n` nested arrays or objects: deep enough to trouble a recursive reader. */
function nested(depth: number, open: string, close: string, inner = '1'): string {
  return `${open.repeat(depth)}${inner}${close.repeat(depth)}`;
}

const CODES = [
  'function process(r, ctx) { ctx.emit(r); }',
  'function map(r) { return r; }',
  'async function process(r, ctx) { const n = ctx.state.value("n"); n.set((n.get() ?? 0) + 1); ctx.emit(r, "side"); }',
  'function process(r, ctx) { ctx.emit(r, ctx.port); }',
  'function process(r, ctx) {',
  'function process(r, ctx) { require("fs"); }',
  'import("fs")',
  'import fs from "fs";',
  'eval("1")',
  '<!-- x -->',
  'return 1',
  '',
  '\u0000\uFFFF\uD800',
  `const x = ${nested(3000, '(', ')')};`,
  `const x = ${nested(3000, '[', ']')};`,
  `function process(r) { return ${nested(2000, '{a:', '}')}; }`,
  `function process(r) { ${'if (r) '.repeat(3000)}return 1; }`,
  'function process(r, ctx) { ctx.emit(r, "a" + 1); ctx.emit(r, "x".repeat(2)); }',
];

const KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'valueOf',
  'format',
  'name',
  'settings',
  'operators',
  'edges',
  'editor',
  'id',
  'kind',
  'params',
  'parallelism',
  'code',
  'path',
  'from',
  'to',
  'fromPort',
  'partition',
  'key',
  'feedback',
  'maxParallelism',
  'stateBackend',
  'checkpointIntervalMs',
  'tables',
  'type',
  'aggregate',
  '',
  ' ',
  'é',
  '😀',
  '\u0000',
];

/** Values to put anywhere: of every JSON type, at the edges of their ranges, and odd strings. */
const anyValue: fc.Arbitrary<Json> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.constantFrom<Json>(
      null,
      true,
      false,
      0,
      -1,
      1,
      1.5,
      -0.5,
      2 ** 31,
      2 ** 53 + 2,
      32768,
      32769,
      1e308,
      -1e308,
      5e-324,
      '',
      ' ',
      'x',
      'a.b',
      '.',
      'a..b',
      'é',
      '😀',
      '\u0000',
      '\u2028',
      '\uD800',
      '\uFEFF',
      'Ω'.repeat(100),
      JOB_FORMAT,
      'pipewright.job/2',
      'hash',
      'forward',
      'rebalance',
      'broadcast',
      'out',
      'level',
      'memory',
      ...OPERATOR_KINDS,
      ...KEYS,
      ...CODES,
      [],
      {},
      [[]],
      { __proto__: null },
    ),
  },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  {
    weight: 1,
    arbitrary: fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)) }),
  },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.double() },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 100_000 }).map((n) => 'a'.repeat(n)) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.integer({ min: 1, max: 1500 }), fc.boolean())
      .map(([depth, asArray]) => JSON.parse(asArray ? nested(depth, '[', ']') : nested(depth, '{"a":', '}'))),
  },
);

const anyKey = fc.oneof(fc.constantFrom(...KEYS), fc.string({ maxLength: 12 }));

/** Every place in a JSON value down to the depth of a job's own fields, as the keys that reach it. */
function pathsOf(value: Json, at: Path = []): Path[] {
  if (typeof value !== 'object' || value === null || at.length >= 8) return [at];
  const entries = Array.isArray(value) ? value.map((v, i) => [i, v] as const) : Object.entries(value);
  return [at, ...entries.flatMap(([key, v]) => pathsOf(v, [...at, key]))];
}

function get(value: Json, path: Path): Json {
  let v = value;
  for (const key of path) v = (v as Record<string | number, Json>)[key];
  return v;
}

/** An own property, even for "__proto__" (an assignment would set the prototype instead). */
function setOwn(target: Record<string | number, Json>, key: string | number, value: Json): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** A copy of `root` with the container at `path` changed by `change` (itself a copy). */
function updated(root: Json, path: Path, change: (container: Json) => Json): Json {
  if (path.length === 0) return change(root);
  const [head, ...rest] = path as [string | number, ...(string | number)[]];
  const copy = (Array.isArray(root) ? [...root] : { ...(root as object) }) as Record<string | number, Json>;
  setOwn(copy, head, updated(copy[head], rest, change));
  return copy;
}

function copyOf(container: Json): Record<string | number, Json> {
  return (Array.isArray(container) ? [...container] : { ...(container as object) }) as Record<
    string | number,
    Json
  >;
}

type Mutation =
  | { op: 'replace' | 'insert'; pick: number; value: Json; key: string }
  | { op: 'delete' | 'duplicate' | 'wrap'; pick: number; key: string }
  | { op: 'move'; pick: number; from: number; key: string };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ op: fc.constant('replace' as const), pick: fc.nat(), value: anyValue, key: anyKey }),
  fc.record({ op: fc.constant('insert' as const), pick: fc.nat(), value: anyValue, key: anyKey }),
  fc.record({
    op: fc.constantFrom('delete' as const, 'duplicate' as const, 'wrap' as const),
    pick: fc.nat(),
    key: anyKey,
  }),
  fc.record({ op: fc.constant('move' as const), pick: fc.nat(), from: fc.nat(), key: anyKey }),
);

/** Applies one mutation at the place `pick` chooses among all the places of `job`. */
function mutate(job: Json, m: Mutation): Json {
  const paths = pathsOf(job);
  const path = paths[m.pick % paths.length]!;
  const parent = path.slice(0, -1);
  const last = path[path.length - 1];
  const here = get(job, path);
  switch (m.op) {
    case 'replace':
      return updated(job, path, () => m.value);
    case 'wrap':
      return updated(job, path, (v) => (m.pick % 2 === 0 ? [v] : { [m.key]: v }));
    case 'move':
      // A value from elsewhere in the document: an id where a port goes, a params where a key does.
      return updated(job, path, () => get(job, paths[m.from % paths.length]!));
    case 'insert':
      if (typeof here !== 'object' || here === null) return updated(job, path, () => m.value);
      return updated(job, path, (container) => {
        const copy = copyOf(container);
        if (Array.isArray(copy)) copy.splice(m.pick % (copy.length + 1), 0, m.value);
        else setOwn(copy, m.key, m.value);
        return copy;
      });
    case 'delete':
    case 'duplicate':
      if (last === undefined) return m.op === 'delete' ? undefined : [job, job];
      return updated(job, parent, (container) => {
        const copy = copyOf(container);
        if (Array.isArray(copy)) {
          if (m.op === 'delete') copy.splice(last as number, 1);
          else copy.splice(last as number, 0, here);
        } else if (m.op === 'delete') delete copy[last];
        else setOwn(copy, m.key, here);
        return copy;
      });
  }
}

/** An example job, parsed, with one to six mutations, then written as JSON. */
const mutatedJob: fc.Arbitrary<string> = fc
  .tuple(fc.constantFrom(...EXAMPLES), fc.array(mutation, { minLength: 1, maxLength: 6 }), fc.boolean())
  .map(([text, mutations, pretty]) => {
    const job = mutations.reduce<Json>(mutate, JSON.parse(text));
    return JSON.stringify(job, null, pretty ? 2 : undefined) ?? 'undefined';
  });

type TextEdit =
  | { op: 'cut'; at: number }
  | { op: 'delete' | 'duplicate'; at: number; length: number }
  | { op: 'insert'; at: number; text: string }
  | { op: 'bom' };

const textEdit: fc.Arbitrary<TextEdit> = fc.oneof(
  fc.record({ op: fc.constant('cut' as const), at: fc.nat() }),
  fc.record({
    op: fc.constantFrom('delete' as const, 'duplicate' as const),
    at: fc.nat(),
    length: fc.integer({ min: 1, max: 200 }),
  }),
  fc.record({
    op: fc.constant('insert' as const),
    at: fc.nat(),
    text: fc.oneof(
      fc.constantFrom(
        '{',
        '}',
        '[',
        ']',
        ',',
        ':',
        '"',
        '\\',
        '\\u',
        '\\ud800',
        'null',
        '1e999',
        '-',
        '\u0000',
        '\n',
        '/*',
        '\uFEFF',
        '"__proto__":{},',
      ),
      fc.string({ unit: 'binary', maxLength: 8 }),
    ),
  }),
  fc.constant({ op: 'bom' as const }),
);

function editText(text: string, edit: TextEdit): string {
  if (edit.op === 'bom') return `\uFEFF${text}`;
  const at = text.length === 0 ? 0 : edit.at % (text.length + 1);
  switch (edit.op) {
    case 'cut':
      return text.slice(0, at);
    case 'delete':
      return text.slice(0, at) + text.slice(at + edit.length);
    case 'duplicate':
      return text.slice(0, at + edit.length) + text.slice(at);
    case 'insert':
      return text.slice(0, at) + edit.text + text.slice(at);
  }
}

/** An example's text or a mutated job's, edited as text: cut short, spliced, salted. */
const editedText: fc.Arbitrary<string> = fc
  .tuple(
    fc.oneof(fc.constantFrom(...EXAMPLES), mutatedJob),
    fc.array(textEdit, { minLength: 1, maxLength: 4 }),
  )
  .map(([text, edits]) => edits.reduce(editText, text));

const ID_POOL = ['a', 'b', 'c', 'src', 'out', '__proto__', 'constructor', 'toString', 'A-b_9'];

/** A job built from parts, to reach the graph rules: ids that repeat, edges between anything, cycles. */
const assembledJob: fc.Arbitrary<string> = fc
  .record({
    format: fc.constantFrom<Json>(JOB_FORMAT, JOB_FORMAT, 'pipewright.job/0', 1, undefined),
    name: fc.constantFrom<Json>('fuzz', '', 'x'.repeat(201), undefined, 7),
    settings: fc.option(
      fc.record(
        {
          maxParallelism: fc.constantFrom<Json>(1, 2, 128, 32768, 32769, 0, -1, 1.5, '2'),
          stateBackend: fc.constantFrom<Json>('level', 'memory', 'rocks'),
          checkpointIntervalMs: fc.constantFrom<Json>(0, 1000, -1, 1e308),
          checkpointsRetained: fc.constantFrom<Json>(1, 0, 3.5),
        },
        { requiredKeys: [] },
      ),
      { nil: undefined },
    ),
    operators: fc.array(
      fc.record(
        {
          id: fc.oneof(fc.constantFrom(...ID_POOL), anyValue),
          kind: fc.constantFrom<Json>(...OPERATOR_KINDS, 'bogus', 'source', 'Map', null),
          parallelism: fc.constantFrom<Json>(1, 2, 3, 128, 129, 0, -1, 1.5, null),
          params: fc.record(
            {
              code: fc.constantFrom<Json>(...CODES, 5),
              path: fc.constantFrom<Json>('in.jsonl', '', '/etc/passwd', '..', 7),
              count: fc.constantFrom<Json>(10, -1, 1.5, 1e308),
              tables: fc.constantFrom<Json>(['t'], [], ['a', 'a'], ['__proto__'], 't'),
              type: fc.constantFrom<Json>('tumbling', 'session', 'x'),
              aggregate: fc.constantFrom<Json>('count', 'sum', 'median'),
              timestampField: fc.constantFrom<Json>('t', 'a.b', '.', ''),
            },
            { requiredKeys: [] },
          ),
        },
        { requiredKeys: ['id', 'kind'] },
      ),
      { maxLength: 8 },
    ),
    edges: fc.array(
      fc.record(
        {
          id: fc.oneof(fc.constantFrom(...ID_POOL), anyValue),
          from: fc.constantFrom<Json>(...ID_POOL, 7),
          to: fc.constantFrom<Json>(...ID_POOL, null),
          fromPort: fc.constantFrom<Json>('out', 'side', 'again', '', 'x y'),
          partition: fc.constantFrom<Json>('forward', 'rebalance', 'hash', 'broadcast', 'random'),
          key: fc.constantFrom<Json>('k', ['a', 'b.c'], [], '', 'a..b', ['__proto__']),
          feedback: fc.constantFrom<Json>(true, false, 'true'),
        },
        { requiredKeys: ['id', 'from', 'to', 'partition'] },
      ),
      { maxLength: 10 },
    ),
  })
  .map((job) => JSON.stringify(job));

const randomText: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: 'binary' }),
  fc.json(),
  fc.jsonValue().map((v) => JSON.stringify({ format: JOB_FORMAT, ...(v as object) })),
  fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes).toString('utf8')),
  fc.integer({ min: 1, max: 20_000 }).map((depth) => nested(depth, '[', ']')),
  fc.integer({ min: 1, max: 20_000 }).map((depth) => nested(depth, '{"a":', '}')),
);

/** Job texts of every sort above, mutated ones most often. */
export const jobTexts: fc.Arbitrary<string> = fc.oneof(
  { weight: 5, arbitrary: mutatedJob },
  { weight: 3, arbitrary: editedText },
  { weight: 3, arbitrary: assembledJob },
  { weight: 1, arbitrary: randomText },
);
