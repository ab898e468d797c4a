// Nothing a job file or its input can cause makes the CLI print an engine stack trace: every bad
// job and bad input below, through `validate` and `run`, gets exit status 1 and a clear message
// naming the operator, edge, file or line, and never "internal error", an "    at ..." frame or
// a path into the engine (issue 11, item 3).
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  type CliResult,
  describeRun,
  type JobDocument,
  makeTempDir,
  removeTempDirs,
  runCli,
} from './cliHarness.js';

afterAll(removeTempDirs);

const MAP_CODE = 'function map(record, ctx) {\n  return { n: record.n * 2 };\n}';
const GOOD_INPUT = '{"n":1,"owner":"a"}\n{"n":2,"owner":"b"}\n{"n":3,"owner":"a"}\n';

/** events (input.jsonl) -> double (map) -> out (out/out.jsonl); each case breaks one thing. */
function baseJob(change: (job: JobDocument) => void = () => {}): JobDocument {
  const job: JobDocument = {
    format: 'pipewright.job/1',
    name: 'bad-job',
    operators: [
      { id: 'events', kind: 'source.jsonl', params: { path: 'input.jsonl' } },
      { id: 'double', kind: 'map', params: { code: MAP_CODE } },
      { id: 'out', kind: 'sink.jsonl', params: { path: 'out/out.jsonl' } },
    ],
    edges: [
      { id: 'e1', from: 'events', to: 'double', partition: 'forward' },
      { id: 'e2', from: 'double', to: 'out', partition: 'forward' },
    ],
  };
  change(job);
  return job;
}

const operator = (job: JobDocument, id: string): JobDocument =>
  (job.operators as JobDocument[]).find((op) => op.id === id)!;

/** The map operator "double" replaced by a process operator "p1" with this code. */
const withProcess = (code: string) =>
  baseJob((job) => {
    job.operators[1] = { id: 'p1', kind: 'process', params: { code } };
    job.edges[0].to = 'p1';
    job.edges[1].from = 'p1';
  });

const withMapCode = (code: string) =>
  baseJob((job) => {
    operator(job, 'double').params.code = code;
  });

interface BadCase {
  readonly name: string;
  /** The job file's content: a document, raw text, or 'none' for no file at all, 'folder' for a folder. */
  readonly job: JobDocument | string | 'none' | 'folder';
  /** input.jsonl's content; null for no input file. */
  readonly input?: string | null;
  /** A folder to make beside the job file (named where a file is expected). */
  readonly folder?: string;
  /** Every pattern must match what the command prints (stdout and stderr). */
  readonly says: readonly RegExp[];
}

// Refused by `validate` and by `run` alike: the job file itself is wrong.
const BAD_JOBS: readonly BadCase[] = [
  {
    name: 'a syntax error in a process function (a stray closing brace)',
    job: withProcess('function process(record, ctx) {\n  ctx.emit(record);\n}\n}'),
    says: [/operator "p1"/, /syntax error at line 4, column 1 of its code/, /Unexpected token '}'/],
  },
  {
    name: 'a syntax error in a map function (an unclosed call)',
    job: withMapCode('function map(record, ctx) {\n  return foo(record;\n}'),
    says: [/operator "double"/, /line 2, column 20 of its code/, /Unexpected token ';'/],
  },
  {
    name: 'code that calls require',
    job: withProcess('function process(record, ctx) {\n  const fs = require("fs");\n  ctx.emit(record);\n}'),
    says: [/operator "p1"/, /line 2, column 14 of its code/, /may not use require/, /no ambient authority/],
  },
  {
    name: 'code with an import statement',
    job: withMapCode('import fs from "node:fs";\nfunction map(record) { return record; }'),
    says: [/operator "double"/, /line 1, column 1 of its code/, /may not use import/],
  },
  {
    name: 'code that does not define its function',
    job: withMapCode('function mapper(record) { return record; }'),
    says: [/operator "double"/, /must define a function named map/],
  },
  {
    name: 'an unknown operator kind',
    job: baseJob((job) => {
      operator(job, 'double').kind = 'mapReduce';
    }),
    says: [/operator "double"/, /"mapReduce" is not a known kind/],
  },
  {
    name: 'an edge to an operator that does not exist',
    job: baseJob((job) => {
      job.edges[1].to = 'nowhere';
    }),
    says: [/edge "e2"/, /unknown operator "nowhere"/],
  },
  {
    name: 'an edge from a port the code never emits to',
    job: baseJob((job) => {
      job.edges[1].fromPort = 'side';
    }),
    says: [/edge "e2"/, /port "side"/, /operator "double"/],
  },
  {
    name: 'a cycle without a feedback edge',
    job: baseJob((job) => {
      job.edges.push({ id: 'back', from: 'double', to: 'double', partition: 'forward' });
    }),
    says: [/cycle/, /"double"/, /edge "back"|"back"/],
  },
  {
    name: 'a hash edge without a key',
    job: baseJob((job) => {
      job.edges[0].partition = 'hash';
    }),
    says: [/edge "e1"/, /no key/],
  },
  {
    name: 'malformed JSON in the job file',
    job: '{\n  "format": "pipewright.job/1",\n  "name": "bad-job",\n  "operators": [],\n  "edges": [] "oops"\n}\n',
    says: [/bad-job\.job\.json/, /not valid JSON/, /line 5/],
  },
  {
    name: 'an empty job file',
    job: '',
    says: [/bad-job\.job\.json/, /empty/],
  },
  {
    name: 'a file of another format',
    job: { format: 'something/2', name: 'x' },
    says: [/bad-job\.job\.json/, /format/],
  },
  {
    name: 'a job file that does not exist',
    job: 'none',
    says: [/bad-job\.job\.json/, /no such file/],
  },
  {
    name: 'a folder where the job file should be',
    job: 'folder',
    says: [/bad-job\.job\.json/, /directory|folder/],
  },
];

// A valid job whose run fails: the input, or what the code does with it. `validate` accepts these.
const BAD_RUNS: readonly BadCase[] = [
  {
    name: 'an input line that is not JSON',
    job: baseJob(),
    input: '{"n":1}\n{"n":2}\n{"n": 3,,}\n',
    says: [/operator "events"/, /input\.jsonl:3 is not valid JSON/],
  },
  {
    name: 'an input file that does not exist',
    job: baseJob(),
    input: null,
    says: [/operator "events"/, /input\.jsonl/],
  },
  {
    name: 'code that throws on a record',
    job: withMapCode(
      'function map(record) {\n  if (record.n === 3) throw new Error("cannot double three");\n  return record;\n}',
    ),
    says: [/operator "double"/, /cannot double three/, /input\.jsonl:3/],
  },
  {
    name: 'an input path that names a folder',
    job: baseJob((job) => {
      operator(job, 'events').params.path = 'in-folder';
    }),
    folder: 'in-folder',
    says: [/operator "events"/, /in-folder/, /a folder, not a file/],
  },
  {
    name: 'code that throws at its top level',
    job: withMapCode('throw new Error("top");\nfunction map(r) { return r; }'),
    says: [/operator "double"/, /line 1 of its code/, /top/],
  },
  {
    name: 'code that reaches for process while it runs',
    job: withMapCode('function map(record) {\n  process.exit(3);\n}'),
    says: [/operator "double"/, /may not use process/],
  },
  {
    name: 'code that reads the clock',
    job: withMapCode('function map(record) {\n  return { t: Date.now() };\n}'),
    says: [/operator "double"/, /may not read the clock/],
  },
  {
    name: 'code that recurses without end',
    job: withMapCode('function f(n) { return f(n + 1) + 1; }\nfunction map(record) { return f(0); }'),
    says: [/operator "double"/, /Maximum call stack size exceeded/],
  },
  {
    name: 'a flatMap that returns no array',
    job: baseJob((job) => {
      Object.assign(operator(job, 'double'), {
        kind: 'flatMap',
        params: { code: 'function flatMap(r) { return 5; }' },
      });
    }),
    says: [/operator "double"/, /must return an array/],
  },
  {
    name: 'a record without the field a hash edge is keyed by',
    job: baseJob((job) => {
      Object.assign(job.edges[0], { partition: 'hash', key: 'missing' });
    }),
    says: [/edge "e1"/, /"missing"/],
  },
  {
    name: 'a record without its timestamp field',
    job: baseJob((job) => {
      operator(job, 'events').params.timestampField = 'ts';
    }),
    says: [/operator "events"/, /input\.jsonl:1/, /"ts"/],
  },
];

async function setUp(c: BadCase): Promise<{ dir: string; jobPath: string }> {
  const dir = await makeTempDir('pipewright-bad-job-');
  const jobPath = path.join(dir, 'bad-job.job.json');
  if (c.job === 'folder') await mkdir(jobPath);
  else if (typeof c.job === 'string' && c.job !== 'none') await writeFile(jobPath, c.job);
  else if (typeof c.job === 'object') await writeFile(jobPath, `${JSON.stringify(c.job, null, 2)}\n`);
  if (c.input !== null) {
    await writeFile(path.join(dir, 'input.jsonl'), c.input ?? GOOD_INPUT);
  }
  if (c.folder !== undefined) await mkdir(path.join(dir, c.folder));
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

describe.concurrent('a bad job file', () => {
  it.each(BAD_JOBS)('$name: refused by validate', async (c) => {
    const { dir, jobPath } = await setUp(c);
    expectClearRefusal(await runCli(['validate', path.basename(jobPath)], { cwd: dir }), c.says);
  });

  it.each(BAD_JOBS)('$name: refused by run', async (c) => {
    const { dir, jobPath } = await setUp(c);
    expectClearRefusal(await runCli(['run', '--quiet', path.basename(jobPath)], { cwd: dir }), c.says);
  });
});

describe.concurrent('a run that fails on its input', () => {
  it.each(BAD_RUNS)('$name: says so', async (c) => {
    const { dir, jobPath } = await setUp(c);
    expectClearRefusal(await runCli(['run', '--quiet', path.basename(jobPath)], { cwd: dir }), c.says);
  });
});

describe('the jobs above, put right', () => {
  it('run, so that each case fails for the reason it names', async () => {
    const { dir, jobPath } = await setUp({ name: 'good', job: baseJob(), says: [] });
    const result = await runCli(['run', '--quiet', path.basename(jobPath)], { cwd: dir });
    expect(result.code, describeRun(result)).toBe(0);
    expect(result.stdout + result.stderr).not.toMatch(/internal error/i);
  });
});
