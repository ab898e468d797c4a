// What every connector relies on, through the real CLI, with a source kind from test code
// (test/kinds/sourceWaiting, loaded through PIPEWRIGHT_KIND_MODULES) that reports what it waits
// for (env.reportWait) until the test creates a file:
// - the wait reaches the CLI's output as a line naming the operator and subtask, and "resumed"
//   when it ends, on one thread and on two, and the metrics file's per-subtask figures;
// - "${env:NAME}" in a param reaches the kind resolved, a variable not set fails the run in one
//   line, and the resolved value is written nowhere: not in the checkpoints, the state, the
//   metrics file or the output.
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { finish, startCli, waitUntil } from './checkpointHelpers.js';
import { describeRun, makeTempDir, removeTempDirs } from './cliHarness.js';
import { compiledKindsDir, compileKinds } from './kinds/compileKinds.js';

const KIND_MODULE = join(compiledKindsDir, 'sourceWaiting', 'kind.js');
const SECRET_VAR = 'PIPEWRIGHT_TEST_WAIT_SECRET';
const COUNT = 60;

beforeAll(async () => {
  await compileKinds();
  process.env.PIPEWRIGHT_KIND_MODULES = KIND_MODULE;
}, 60_000);
afterEach(() => {
  delete process.env[SECRET_VAR];
});
afterAll(async () => {
  delete process.env.PIPEWRIGHT_KIND_MODULES;
  await removeTempDirs();
});

async function jobDir(waitIn: 'poll' | 'open' = 'poll'): Promise<string> {
  const dir = await makeTempDir('pipewright-wait-');
  const job = {
    format: 'pipewright.job/1',
    name: 'waits',
    settings: { checkpointIntervalMs: 50 },
    operators: [
      {
        id: 'src',
        kind: 'source.waiting',
        parallelism: 2,
        params: {
          count: COUNT,
          releaseFile: 'go',
          waitIn,
          connection: `db://me:\${env:${SECRET_VAR}}@host/x`,
        },
      },
      { id: 'out', kind: 'sink.jsonl', parallelism: 1, params: { path: 'out.jsonl' } },
    ],
    edges: [{ id: 'e1', from: 'src', to: 'out', partition: 'rebalance' }],
  };
  await writeFile(join(dir, 'job.json'), JSON.stringify(job, null, 2));
  await mkdir(join(dir, 'run'));
  return dir;
}

// The job reads an environment variable: the user says they trust it (test/cliTrust.test.ts).
const runArgs = (dir: string, threads: number) => [
  'run',
  join(dir, 'job.json'),
  '--trust',
  '--threads',
  String(threads),
  '--state-dir',
  join(dir, 'run', 'state'),
  '--checkpoint-dir',
  join(dir, 'run', 'checkpoints'),
  '--metrics',
  join(dir, 'run', 'metrics.jsonl'),
];

/** Every file under `dir`, with its text. */
function filesUnder(dir: string): { path: string; text: string }[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [{ path, text: readFileSync(path, 'latin1') }];
  });
}

interface MetricsLine {
  readonly type: string;
  readonly operators?: readonly { id: string; subtasks: readonly { subtask: number; wait?: string }[] }[];
}

function metricsWaits(dir: string): string[] {
  const file = join(dir, 'run', 'metrics.jsonl');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .flatMap((line) => (JSON.parse(line) as MetricsLine).operators ?? [])
    .flatMap((op) =>
      op.subtasks.flatMap((s) => (s.wait === undefined ? [] : [`${op.id}#${s.subtask}: ${s.wait}`])),
    );
}

describe('a source that waits for its server', () => {
  // A wait while the job opens (a connector connecting in open()) comes before any figures do.
  it.each([
    [1, 'poll'],
    [2, 'poll'],
    [1, 'open'],
    [2, 'open'],
  ] as const)(
    'says so in the CLI output (and the metrics file), then "resumed" (%i thread(s), waiting in %s); its secret is written nowhere',
    async (threads, waitIn) => {
      const dir = await jobDir(waitIn);
      // Opening, the subtasks of a thread open one after the other: the first waits alone.
      const waiters = waitIn === 'poll' ? [1, 2] : [1];
      const secret = `s3cr3t-${randomBytes(6).toString('hex')}`;
      process.env[SECRET_VAR] = secret;
      const run = startCli(runArgs(dir, threads), dir);
      const waiting = (subtask: number) =>
        new RegExp(
          `pipewright: operator "src" \\(subtask ${subtask} of 2\\): waiting for .*go \\(not there yet\\): retry \\d+ in 100 ms`,
        );
      const saw = await waitUntil(
        () =>
          waiters.every((s) => waiting(s).test(run.stderr())) &&
          (waitIn === 'open' || metricsWaits(dir).some((w) => w.startsWith('src#1: waiting for '))),
        { run, timeoutMs: 30_000 },
      );
      if (!saw) {
        run.child.kill('SIGKILL');
        throw new Error(`no wait line came\n${describeRun(await run.done)}`);
      }
      await writeFile(join(dir, 'go'), '');
      const result = await finish(run, 60_000, 'the run');
      expect(result.code, describeRun(result)).toBe(0);
      for (const s of waiters)
        expect(result.stderr).toContain(`pipewright: operator "src" (subtask ${s} of 2): resumed`);

      // The kind was given the connection resolved.
      const records = readFileSync(join(dir, 'out.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { n: number; connectionResolved: boolean });
      expect(records.map((r) => r.n).sort((a, b) => a - b)).toEqual([...Array(COUNT).keys()]);
      expect(records.every((r) => r.connectionResolved)).toBe(true);

      // ... and wrote it nowhere: the checkpoints (some were taken while it waited), the state,
      // the metrics file, what the CLI printed.
      const written = filesUnder(join(dir, 'run'));
      if (waitIn === 'poll') {
        expect(written.some((f) => f.path.includes('checkpoints') && f.path.endsWith('.json'))).toBe(true);
      }
      expect(written.filter((f) => f.text.includes(secret)).map((f) => f.path)).toEqual([]);
      expect(result.stdout + result.stderr).not.toContain(secret);
    },
    120_000,
  );

  it.each([1, 2])('a variable that is not set fails the run in one line (%i thread(s))', async (threads) => {
    const dir = await jobDir();
    const result = await finish(startCli(runArgs(dir, threads), dir), 60_000, 'the run');
    expect(result.code, describeRun(result)).toBe(1);
    expect(result.stderr).toBe(
      `pipewright: operator "src": param "connection" names the environment variable ${SECRET_VAR}, which is not set\n`,
    );
  });
});
