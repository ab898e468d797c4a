// source.postgres given what it cannot read, through the real CLI: an unreachable server (after
// its short retryTimeoutMs), a wrong password, a missing table. Each fails the run with exit
// status 1 and one line naming the operator and the cause, no stack trace. (A server whose
// wal_level is not logical cannot be made of the shared one: its line is checked in
// postgresSource.test.ts.)
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { type JobDocument, makeTempDir, removeTempDirs, runCli, writeJob } from '../cliHarness.js';
import { dropAll, uniqueName } from './postgresSourceTables.js';
import { describeWithServer, PG_URL } from './servers.js';

afterAll(removeTempDirs);

function job(params: Record<string, unknown>): JobDocument {
  return {
    format: 'pipewright.job/1',
    name: 'pgbad',
    settings: { checkpointIntervalMs: 100 },
    operators: [
      { id: 'changes', kind: 'source.postgres', parallelism: 1, params: { stopAt: 'current', ...params } },
      { id: 'out', kind: 'sink.jsonl', parallelism: 1, params: { path: 'out.jsonl' } },
    ],
    edges: [{ id: 'e', from: 'changes', to: 'out', partition: 'forward' }],
  };
}

async function runBad(params: Record<string, unknown>) {
  const dir = await makeTempDir('pipewright-pgsource-bad-');
  const jobPath = path.join(dir, 'pgbad.job.json');
  await writeJob(jobPath, job(params));
  return runCli(['run', jobPath, '--quiet'], { cwd: dir, timeoutMs: 60_000 });
}

function expectOneLine(stderr: string, pattern: RegExp): void {
  const lines = stderr.split('\n').filter((line) => line.trim() !== '');
  expect(lines, stderr).toHaveLength(1);
  expect(lines[0], stderr).toMatch(pattern);
  expect(stderr).not.toMatch(/\n\s+at /);
}

await describeWithServer('postgres', 'source.postgres bad input', () => {
  it('fails in one line naming the operator: unreachable server, wrong password, missing table', async () => {
    const prefix = uniqueName('pwsrcbad');
    try {
      const [unreachable, password, missing] = await Promise.all([
        runBad({
          connection: 'postgres://pipewright:pipewright@127.0.0.1:1/pipewright',
          table: 't',
          retryTimeoutMs: 300,
        }),
        runBad({ connection: PG_URL.replace('pipewright:pipewright@', 'pipewright:wrong@'), table: 't' }),
        runBad({
          connection: PG_URL,
          table: `${prefix}_missing`,
          slot: `${prefix}_slot`,
          publication: `${prefix}_pub`,
        }),
      ]);
      expect(unreachable.code, unreachable.stderr).toBe(1);
      expectOneLine(
        unreachable.stderr,
        /operator "changes": PostgreSQL at 127\.0\.0\.1:1\/pipewright did not answer for .* while making its replication slot \(retryTimeoutMs 300\): .*ECONNREFUSED/,
      );
      expect(password.code, password.stderr).toBe(1);
      expectOneLine(
        password.stderr,
        /operator "changes": the server refused the login: password authentication failed for user "pipewright"/,
      );
      expect(missing.code, missing.stderr).toBe(1);
      expectOneLine(
        missing.stderr,
        new RegExp(`operator "changes": table "${prefix}_missing" does not exist`),
      );
    } finally {
      await dropAll(`${prefix}_missing`, prefix);
    }
  });
});
