// Bad input to a transaction operator (issue 15, "Must show: bad input"): keys() returning
// something other than [table, key] pairs, a table the operator does not have, transact touching
// a row keys() did not name, and user code that throws each fail the run with one message naming
// the operator and the record's file:line, and the failed run's sinks publish nothing (the
// records before the bad one emitted output that must not appear). Every case runs in this
// process, where the run fails with the message the CLI prints; through the real CLI, on one
// thread and on two (exit status 1, that one line), one case of each kind of failure: a bad
// result of keys(), keys() throwing, transact touching a row it did not name, transact throwing.
// A transaction without tables, or whose code lacks keys or transact, is a validation problem
// naming the operator (checked here for each), refused by validate and by run (each through the
// CLI for two of them).
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { JobError } from '../engine/graph/jobError.js';
import { validateJob, validateJobText } from '../engine/graph/validation/validateJob.js';
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

const OUT = 'out/transfers.jsonl';
const ABORTED = 'out/aborted.jsonl';

const GOOD_KEYS = "[['accounts', r.from], ['accounts', r.to]]";

/**
 * Deposits and transfers; a record with `bad: true` gets `badKeys` from keys() and runs
 * `badTransact` at the start of transact (each defaulting to what good records get).
 */
function code({ badKeys = GOOD_KEYS, badTransact = '' } = {}): string {
  return `function keys(r) {
  if (r.bad) return ${badKeys};
  return ${GOOD_KEYS};
}

function transact(r, tx) {
  if (r.bad) {
    ${badTransact}
  }
  const from = tx.get('accounts', r.from) ?? 0;
  const to = tx.get('accounts', r.to) ?? 0;
  if (r.from !== 'bank' && from < r.amount) {
    tx.abort('overdraft');
    tx.emit(r, 'aborted');
    return;
  }
  tx.set('accounts', r.from, from - r.amount);
  tx.set('accounts', r.to, to + r.amount);
  tx.emit({ ...r, fromBalance: from - r.amount, toBalance: to + r.amount });
}`;
}

function transactionJob(params: Record<string, unknown>): JobDocument {
  return {
    format: 'pipewright.job/1',
    name: 'bad-transactions',
    // No checkpoint: nothing of the failed run may become visible.
    settings: { checkpointIntervalMs: 0 },
    operators: [
      { id: 'input', kind: 'source.jsonl', params: { path: 'input.jsonl' } },
      { id: 'transfers', kind: 'transaction', parallelism: 3, params },
      { id: 'out', kind: 'sink.jsonl', params: { path: OUT } },
      { id: 'aborted', kind: 'sink.jsonl', params: { path: ABORTED } },
    ],
    edges: [
      { id: 'e1', from: 'input', to: 'transfers', partition: 'rebalance' },
      { id: 'e2', from: 'transfers', to: 'out', partition: 'rebalance' },
      { id: 'e3', from: 'transfers', fromPort: 'aborted', to: 'aborted', partition: 'rebalance' },
    ],
  };
}

/** Good transfers around line 4, which carries `bad: true`; the ones before it emit, one aborts. */
const INPUT = [
  { id: 1, from: 'bank', to: 'a', amount: 100 },
  { id: 2, from: 'a', to: 'b', amount: 30 },
  { id: 3, from: 'b', to: 'c', amount: 50 },
  { id: 4, from: 'a', to: 'c', amount: 10, bad: true },
  { id: 5, from: 'c', to: 'a', amount: 5 },
  { id: 6, from: 'b', to: 'd', amount: 20 },
];

async function setUp(job: JobDocument) {
  const dir = await makeTempDir('pipewright-tx-bad-');
  const jobPath = path.join(dir, 'bad-transactions.job.json');
  await writeFile(jobPath, `${JSON.stringify(job, null, 2)}\n`);
  await writeFile(path.join(dir, 'input.jsonl'), INPUT.map((r) => `${JSON.stringify(r)}\n`).join(''));
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

/** What a sink file may hold after a failed run: nothing. */
async function expectNothingPublished(dir: string): Promise<void> {
  for (const file of [OUT, ABORTED]) {
    const full = path.join(dir, file);
    if (await pathExists(full)) expect(await readFile(full, 'utf8'), file).toBe('');
  }
}

const BAD_RUNS = [
  { name: 'keys() returns a pair, not a list of pairs', badKeys: "['accounts', r.from]", says: [] },
  { name: 'keys() returns a pair without a key', badKeys: "[['accounts']]", says: [] },
  {
    name: 'keys() returns a pair whose key is an object',
    badKeys: "[['accounts', { id: r.from }]]",
    says: [],
  },
  { name: 'keys() returns a pair whose key is not finite', badKeys: "[['accounts', 1 / 0]]", says: [] },
  { name: 'keys() returns nothing', badKeys: 'undefined', says: [] },
  {
    name: 'keys() names a table the operator does not have',
    badKeys: "[['acounts', r.from], ['accounts', r.to]]",
    says: [/"acounts"|acounts/],
  },
  {
    name: 'transact reads a row keys() did not name',
    badTransact: "tx.get('accounts', 'z');",
    says: [/accounts/, /\bz\b/],
  },
  {
    name: 'transact writes a row keys() did not name, after good writes',
    badTransact: "tx.set('accounts', r.to, 1000); tx.set('accounts', 'z', 1);",
    says: [/accounts/, /\bz\b/],
  },
  {
    name: 'transact deletes a row keys() did not name',
    badTransact: "tx.delete('accounts', 'z');",
    says: [/accounts/, /\bz\b/],
  },
  {
    name: 'transact throws after writing',
    badTransact: "tx.set('accounts', r.to, 1000); tx.emit(r); throw new Error('the ledger is closed');",
    says: [/the ledger is closed/],
  },
  {
    name: 'keys() throws',
    badKeys: "(() => { throw new Error('no keys today'); })()",
    says: [/no keys today/],
  },
] as const;

const jobWith = (bad: (typeof BAD_RUNS)[number]) =>
  transactionJob({
    tables: ['accounts'],
    code: code({
      ...('badKeys' in bad ? { badKeys: bad.badKeys } : {}),
      ...('badTransact' in bad ? { badTransact: bad.badTransact } : {}),
    }),
  });

describe.concurrent('a transaction failing on line 4, in this process', () => {
  it.each(BAD_RUNS)('$name: the run fails naming the operator and input.jsonl:4, no output', async (bad) => {
    const { dir } = await setUp(jobWith(bad));
    const { job, problems } = validateJob(jobWith(bad));
    expect(problems).toEqual([]);
    const failure = await runJob('deterministic', job!, {
      jobDir: dir,
      stateDir: path.join(dir, 'state'),
    }).then(
      () => undefined,
      (error: unknown) => error,
    );
    // What `pipewright run` prints of it: "pipewright: " and the message, on one line.
    expect(failure).toBeInstanceOf(JobError);
    const message = (failure as JobError).message;
    expect(message).not.toContain('\n');
    expect(message).toContain('operator "transfers"');
    expect(message).toMatch(/input\.jsonl:4\b/);
    for (const pattern of bad.says) expect(message).toMatch(pattern);
    expectClearText(message, message);
    await expectNothingPublished(dir);
  });
});

/** One case of each kind of failure: a bad result of keys(), keys() throwing, a row not named, transact throwing. */
const THROUGH_THE_CLI = [
  'keys() names a table the operator does not have',
  'keys() throws',
  'transact writes a row keys() did not name, after good writes',
  'transact throws after writing',
];

describe.concurrent.each([1, 2])('a transaction failing on line 4 (--threads %i)', (threads) => {
  it.each(BAD_RUNS.filter((bad) => THROUGH_THE_CLI.includes(bad.name)))(
    '$name: exit 1, one line naming the operator and input.jsonl:4, no output',
    async (bad) => {
      const { dir, jobPath } = await setUp(jobWith(bad));
      const result = await runCli(['run', '--quiet', '--threads', String(threads), path.basename(jobPath)], {
        cwd: dir,
      });
      expectClearRefusal(result, bad.says);
      const lines = (result.stdout + result.stderr).split('\n');
      expect(
        lines.some((line) => line.includes('operator "transfers"') && /input\.jsonl:4\b/.test(line)),
        describeRun(result),
      ).toBe(true);
      await expectNothingPublished(dir);
    },
  );
});

describe('the same job with line 4 put right', () => {
  it('runs, and its output is what the transfers call for', async () => {
    const { dir, jobPath } = await setUp(transactionJob({ tables: ['accounts'], code: code() }));
    const result = await runCli(['run', '--quiet', path.basename(jobPath)], { cwd: dir });
    expect(result.code, describeRun(result)).toBe(0);
    const out = await readJsonl<{ id: number; fromBalance: number; toBalance: number }>(path.join(dir, OUT));
    const aborted = await readJsonl<{ id: number }>(path.join(dir, ABORTED));
    // a 100; a->b 30 (a 70, b 30); b->c 50 aborts; a->c 10 (a 60, c 10); c->a 5 (c 5, a 65); b->d 20 (b 10, d 20).
    expect(aborted.map((r) => r.id)).toEqual([3]);
    expect(out.sort((x, y) => x.id - y.id).map((r) => [r.id, r.fromBalance, r.toBalance])).toEqual([
      [1, -100, 100],
      [2, 70, 30],
      [4, 60, 10],
      [5, 5, 65],
      [6, 10, 20],
    ]);
  });
});

const CODE = code();

const INVALID = [
  {
    name: 'no tables',
    params: { tables: [], code: CODE },
    says: [/operator "transfers"/, /tables/],
  },
  {
    name: 'tables missing',
    params: { code: CODE },
    says: [/operator "transfers"/, /tables/],
  },
  {
    name: 'code without keys',
    params: { tables: ['accounts'], code: CODE.replace('function keys(r)', 'function rows(r)') },
    says: [/operator "transfers": params\.code must define a function named keys/],
  },
  {
    name: 'code without transact',
    params: { tables: ['accounts'], code: CODE.replace('function transact(r, tx)', 'function apply(r, tx)') },
    says: [/operator "transfers": params\.code must define a function named transact/],
  },
] as const;

/** What `validate` and `run` read a job file with: the problems they print, one line each. */
const problemsOf = (job: JobDocument) => validateJobText(JSON.stringify(job)).problems;

describe.concurrent('a transaction that cannot run', () => {
  it.each(INVALID)('$name: a validation problem naming the operator', ({ params, says }) => {
    const problems = problemsOf(transactionJob(params));
    const printed = problems.map((p) => p.message).join('\n');
    expect(problems.length, printed).toBeGreaterThan(0);
    for (const pattern of says) expect(printed).toMatch(pattern);
    expectClearText(printed, printed);
  });

  // Every case through the real CLI once: validate and run print the same problems (both read
  // the file with validateJobText), so half of them each.
  it.each(INVALID.filter((_, i) => i % 2 === 0))('$name: refused by validate', async ({ params, says }) => {
    const { dir, jobPath } = await setUp(transactionJob(params));
    expectClearRefusal(await runCli(['validate', path.basename(jobPath)], { cwd: dir }), says);
  });

  it.each(INVALID.filter((_, i) => i % 2 === 1))(
    '$name: refused by run, before any output',
    async ({ params, says }) => {
      const { dir, jobPath } = await setUp(transactionJob(params));
      expectClearRefusal(await runCli(['run', '--quiet', path.basename(jobPath)], { cwd: dir }), says);
      expect(await pathExists(path.join(dir, OUT))).toBe(false);
      expect(await pathExists(path.join(dir, ABORTED))).toBe(false);
    },
  );
});
