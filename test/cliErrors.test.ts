// Bad input, through the real CLI: every refusal and failure exits with the documented
// status, names what is wrong (operator, edge, file, line), and leaves no output behind
// that should not be there. Wording is free; the facts are asserted with regexes.
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
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
  writeJob,
} from './cliHarness.js';

afterAll(removeTempDirs);

const PREVIOUS_OUTPUT = '{"from":"an earlier run"}\n';

/** events (input.jsonl) -> double (map) -> out (out/out.jsonl): valid, and each case below breaks one thing. */
function baseJob(): JobDocument {
  return {
    format: 'pipewright.job/1',
    name: 'bad-input',
    operators: [
      { id: 'events', kind: 'source.jsonl', parallelism: 1, params: { path: 'input.jsonl' } },
      {
        id: 'double',
        kind: 'map',
        parallelism: 1,
        params: { code: 'function map(record, ctx) {\n  return { n: record.n * 2 };\n}' },
      },
      { id: 'out', kind: 'sink.jsonl', parallelism: 1, params: { path: 'out/out.jsonl' } },
    ],
    edges: [
      { id: 'e1', from: 'events', to: 'double', partition: 'forward' },
      { id: 'e2', from: 'double', to: 'out', partition: 'forward' },
    ],
  };
}

const GOOD_INPUT = [1, 2, 3, 4, 5].map((n) => `{"n":${n}}\n`).join('');

interface Case {
  readonly dir: string;
  readonly jobPath: string;
  readonly outPath: string;
}

/** Writes a job (a document, or raw text) and its input into a fresh directory. */
async function setUp(job: JobDocument | string, input = GOOD_INPUT, previousOutput = false): Promise<Case> {
  const dir = await makeTempDir('pipewright-bad-');
  const jobPath = path.join(dir, 'bad-input.job.json');
  if (typeof job === 'string') await writeFile(jobPath, job);
  else await writeJob(jobPath, job);
  await writeFile(path.join(dir, 'input.jsonl'), input);
  const outPath = path.join(dir, 'out', 'out.jsonl');
  if (previousOutput) {
    await mkdir(path.dirname(outPath), { recursive: true });
    await writeFile(outPath, PREVIOUS_OUTPUT);
  }
  return { dir, jobPath, outPath };
}

function run(c: Case, ...flags: string[]): Promise<CliResult> {
  return runCli(['run', c.jobPath, ...flags], { cwd: c.dir });
}

function withOperator(job: JobDocument, id: string, change: (op: JobDocument) => void): JobDocument {
  const op = (job.operators as JobDocument[]).find((o) => o.id === id);
  if (!op) throw new Error(`no operator ${id}`);
  change(op);
  return job;
}

// Line 5 holds a stray value: the JSON parser stops there.
const MALFORMED_JOB = `{
  "format": "pipewright.job/1",
  "name": "bad-input",
  "operators": [
    { "id": "events", "kind": "source.jsonl", "params": { "path": "input.jsonl" } } "oops",
    { "id": "out", "kind": "sink.jsonl", "params": { "path": "out/out.jsonl" } }
  ],
  "edges": [{ "id": "e1", "from": "events", "to": "out", "partition": "forward" }]
}
`;

interface FailingCase {
  readonly name: string;
  readonly job: () => JobDocument | string;
  readonly input?: string;
  /** Every pattern must match what `run` prints on stderr. */
  readonly says: readonly RegExp[];
}

const FAILING: readonly FailingCase[] = [
  {
    name: 'malformed JSON in the job file',
    job: () => MALFORMED_JOB,
    says: [/bad-input\.job\.json|JSON/i, /line\D{0,3}5\b|:5:\d/i],
  },
  {
    name: 'an unknown operator kind',
    job: () =>
      withOperator(baseJob(), 'double', (op) => {
        op.kind = 'mapReduce';
      }),
    says: [/\bdouble\b/, /mapReduce/],
  },
  {
    name: 'an edge to an operator that does not exist',
    job: () => {
      const job = baseJob();
      job.edges[1].to = 'nowhere';
      return job;
    },
    says: [/\be2\b/, /\bnowhere\b/],
  },
  {
    name: 'a bad line in a JSONL input',
    job: baseJob,
    input: '{"n":1}\n{"n":2}\n{"n": 3,,}\n{"n":4}\n{"n":5}\n',
    says: [/input\.jsonl/, /input\.jsonl:3\b|line\D{0,3}3\b/i],
  },
  {
    name: 'a missing input file',
    job: () =>
      withOperator(baseJob(), 'events', (op) => {
        op.params.path = 'missing.jsonl';
      }),
    says: [/missing\.jsonl/, /\bevents\b/],
  },
  {
    name: 'user code that throws',
    job: () =>
      withOperator(baseJob(), 'double', (op) => {
        op.params.code = [
          'function map(record, ctx) {',
          "  if (record.n === 3) throw new Error('cannot double three');",
          '  return { n: record.n * 2 };',
          '}',
        ].join('\n');
      }),
    says: [/\bdouble\b/, /cannot double three/, /input\.jsonl:3\b|input\.jsonl\W{1,3}line\D{0,3}3\b/i],
  },
  {
    name: 'user code that reaches for require',
    job: () =>
      withOperator(baseJob(), 'double', (op) => {
        op.params.code = [
          'function map(record, ctx) {',
          "  const fs = require('node:fs');",
          "  fs.writeFileSync('pwned.txt', 'x');",
          '  return record;',
          '}',
        ].join('\n');
      }),
    says: [
      /\bdouble\b/,
      /\brequire\b/,
      /not allowed|not available|not permitted|forbidden|no ambient authority/i,
    ],
  },
];

describe('a job that is fine', () => {
  it('runs, so that the failures below fail for the reason they name', async () => {
    const c = await setUp(baseJob());
    const result = await run(c, '--quiet');
    expect(result.code, describeRun(result)).toBe(0);
    expect(await readJsonl(c.outPath)).toEqual([2, 4, 6, 8, 10].map((n) => ({ n })));
  });
});

describe.each(FAILING)('$name', ({ job, input, says }) => {
  it('fails `run` with exit 1 and says what and where, writing no output', async () => {
    const c = await setUp(job(), input);
    const result = await run(c);
    expect(result.code, describeRun(result)).toBe(1);
    for (const pattern of says) expect(result.stderr, describeRun(result)).toMatch(pattern);
    expect(await pathExists(c.outPath), 'the sink output must not exist').toBe(false);
    expect(await pathExists(path.join(c.dir, 'pwned.txt'))).toBe(false);
  });

  it('leaves the output of an earlier run as it was', async () => {
    const c = await setUp(job(), input, true);
    const result = await run(c, '--quiet');
    expect(result.code, describeRun(result)).toBe(1);
    expect(await readFile(c.outPath, 'utf8')).toBe(PREVIOUS_OUTPUT);
  });
});

describe('--restore ID of a checkpoint that is not there', () => {
  it('says so in one line with the ids there are (or that there are none), exit 1', async () => {
    const c = await setUp(baseJob());
    const none = await run(c, '--restore', '7');
    expect(none.code, describeRun(none)).toBe(1);
    const checkpoints = path.join(c.dir, '.pipewright', 'bad-input', 'checkpoints');
    expect(none.stderr).toBe(
      `pipewright: cannot restore: there is no checkpoint 7 in ${checkpoints}, nor any other\n`,
    );
    expect(await pathExists(c.outPath)).toBe(false);

    // A bounded run ends with a checkpoint: the ids listed are those of the folder.
    const first = await run(c);
    expect(first.code, describeRun(first)).toBe(0);
    const ids = (await readdir(checkpoints))
      .map((name) => /^chk-(\d+)\.json$/.exec(name)?.[1])
      .filter((id) => id !== undefined)
      .map(Number)
      .sort((a, b) => a - b);
    expect(ids.length).toBeGreaterThan(0);
    const missing = await run(c, '--restore', '999');
    expect(missing.code, describeRun(missing)).toBe(1);
    expect(missing.stderr).toBe(
      `pipewright: cannot restore: there is no checkpoint 999 in ${checkpoints}; it holds ${ids.length === 1 ? 'checkpoint' : 'checkpoints'} ${ids.join(', ')}\n`,
    );
  });
});

describe('`validate`', () => {
  it.each(FAILING.slice(0, 3))('refuses $name with exit 1', async ({ job, says }) => {
    const c = await setUp(job());
    const result = await runCli(['validate', c.jobPath], { cwd: c.dir });
    expect(result.code, describeRun(result)).toBe(1);
    for (const pattern of says) expect(result.stdout + result.stderr).toMatch(pattern);
  });

  it('says where a job file stops being JSON once, in words (validate and run alike)', async () => {
    const c = await setUp(MALFORMED_JOB);
    for (const command of ['validate', 'run']) {
      const result = await runCli([command, c.jobPath], { cwd: c.dir });
      expect(result.code, describeRun(result)).toBe(1);
      const line = result.stderr.split('\n')[0]!;
      // Not `5:85: … (line 5, column 85) ($)`: one position, and no `$` path for the whole file.
      expect(line, describeRun(result)).toMatch(
        /^pipewright: \S*bad-input\.job\.json: the file is not valid JSON: .+ \(line 5, column \d+\)$/,
      );
      expect(line.match(/\b5\b/g), line).toHaveLength(1);
    }
  });

  it('reports every problem at once; with --json, one JSON object per line per problem', async () => {
    const job = baseJob();
    job.edges[1].to = 'nowhere';
    job.edges.push({ id: 'e3', from: 'ghost', to: 'out', partition: 'forward' });
    const c = await setUp(job);

    const text = await runCli(['validate', c.jobPath], { cwd: c.dir });
    expect(text.code, describeRun(text)).toBe(1);
    expect(text.stdout + text.stderr).toMatch(/\be2\b[^\n]*\bnowhere\b|\bnowhere\b[^\n]*\be2\b/);
    expect(text.stdout + text.stderr).toMatch(/\be3\b[^\n]*\bghost\b|\bghost\b[^\n]*\be3\b/);

    const json = await runCli(['validate', c.jobPath, '--json'], { cwd: c.dir });
    expect(json.code, describeRun(json)).toBe(1);
    const lines = json.stdout.split('\n').filter((line) => line.trim() !== '');
    expect(lines.length, describeRun(json)).toBeGreaterThanOrEqual(2);
    const problems = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    for (const problem of problems) {
      expect(problem).toBeTypeOf('object');
      expect(problem.message).toBeTypeOf('string');
      expect(problem.code).toBeTypeOf('string');
      expect(problem.path).toBeTypeOf('string');
      expect(Array.isArray(problem.ids)).toBe(true);
    }
    const mentions = (a: string, b: string) =>
      problems.some((p) => (p.ids as unknown[]).includes(a) && JSON.stringify(p).includes(b));
    expect(mentions('e2', 'nowhere'), json.stdout).toBe(true);
    expect(mentions('e3', 'ghost'), json.stdout).toBe(true);
  });

  it('warns of an input file that is missing (exit 0); --strict makes that exit 1', async () => {
    const c = await setUp(baseJob());
    await rm(path.join(c.dir, 'input.jsonl'));
    const warning =
      'bad-input.job.json: warning: operator "events": input file input.jsonl not found next to the job file ($.operators[0].params.path)';

    const text = await runCli(['validate', 'bad-input.job.json'], { cwd: c.dir });
    expect(text.code, describeRun(text)).toBe(0);
    expect(text.stderr).toBe(`pipewright: ${warning}\n`);
    expect(text.stdout).toBe('bad-input.job.json: valid, with 1 warning\n');

    const strict = await runCli(['validate', 'bad-input.job.json', '--strict'], { cwd: c.dir });
    expect(strict.code, describeRun(strict)).toBe(1);
    expect(strict.stderr).toBe(`pipewright: ${warning}\n`);
    expect(strict.stdout).toBe('');

    const json = await runCli(['validate', 'bad-input.job.json', '--json'], { cwd: c.dir });
    expect(json.code, describeRun(json)).toBe(0);
    expect(
      json.stdout
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l)),
    ).toEqual([
      {
        file: 'bad-input.job.json',
        severity: 'warning',
        code: 'input-file-missing',
        message: 'operator "events": input file input.jsonl not found next to the job file',
        path: '$.operators[0].params.path',
        ids: ['events'],
      },
    ]);
    const strictJson = await runCli(['validate', 'bad-input.job.json', '--json', '--strict'], { cwd: c.dir });
    expect(strictJson.code, describeRun(strictJson)).toBe(1);
    expect(strictJson.stdout).toBe(json.stdout);
  });

  it('with --json prints nothing for a valid job', async () => {
    const c = await setUp(baseJob());
    const result = await runCli(['validate', c.jobPath, '--json'], { cwd: c.dir });
    expect(result.code, describeRun(result)).toBe(0);
    expect(result.stdout.trim()).toBe('');
  });
});

describe('usage', () => {
  it('--help exits 0 and prints the usage', async () => {
    const result = await runCli(['--help']);
    expect(result.code, describeRun(result)).toBe(0);
    expect(result.stdout).toMatch(/usage/i);
    expect(result.stdout).toMatch(/\brun\b/);
    expect(result.stdout).toMatch(/\bvalidate\b/);
    expect(result.stdout).toMatch(/--state-dir/);
    expect(result.stdout).toMatch(/--restore/);
  });

  it('no arguments is a usage error (exit 2)', async () => {
    const result = await runCli([]);
    expect(result.code, describeRun(result)).toBe(2);
    expect(result.stderr).toMatch(/usage/i);
  });

  it('an unknown command is a usage error (exit 2)', async () => {
    const result = await runCli(['frobnicate', 'x.job.json']);
    expect(result.code, describeRun(result)).toBe(2);
    expect(result.stderr).toMatch(/frobnicate/);
  });

  it('an unknown flag is a usage error (exit 2) and runs nothing', async () => {
    const c = await setUp(baseJob());
    const result = await run(c, '--frobnicate');
    expect(result.code, describeRun(result)).toBe(2);
    expect(result.stderr).toMatch(/--frobnicate/);
    expect(await pathExists(c.outPath)).toBe(false);
  });

  it('`run` without a job file is a usage error (exit 2)', async () => {
    const result = await runCli(['run']);
    expect(result.code, describeRun(result)).toBe(2);
  });

  it('a flag without its value is a usage error (exit 2)', async () => {
    const c = await setUp(baseJob());
    const result = await run(c, '--metrics');
    expect(result.code, describeRun(result)).toBe(2);
    expect(result.stderr).toMatch(/--metrics/);
  });
});
