// Bad input to sink.postgres through the real CLI: an unreachable server (a short
// retryTimeoutMs), a wrong password, a missing table, a key column the table lacks, keys without
// a unique index, and a value its column rejects each fail the run with exit status 1 and one
// line naming the operator and the cause, without a stack trace.
import type pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type CliResult, describeRun, removeTempDirs, runCli } from '../cliHarness.js';
import { createSinkTable, type SinkJobShape, sinkJob, sinkRunDir } from './postgresSinkJobs.js';
import { adminClient, dropTable, uniqueTable } from './postgresSinkTables.js';
import { describeWithServer, PG_URL } from './servers.js';

let admin: pg.Client;
const tables: string[] = [];

function expectClearRefusal(result: CliResult, says: RegExp): void {
  const printed = result.stdout + result.stderr;
  expect(result.code, describeRun(result)).toBe(1);
  expect(printed, describeRun(result)).toMatch(says);
  expect(printed, describeRun(result)).not.toMatch(/internal error/i);
  expect(printed, describeRun(result)).not.toMatch(/^\s+at /m);
  expect(printed, describeRun(result)).not.toMatch(/file:\/\/|node:internal|dist\/engine|node_modules/);
}

async function run(shape: Partial<SinkJobShape> & { table: string }): Promise<CliResult> {
  const job = sinkJob({ count: 100, keys: 100, mode: 'upsert', parallelism: 2, intervalMs: 0, ...shape });
  const dir = await sinkRunDir('bad', job);
  return runCli(['run', dir.jobPath, '--quiet'], { cwd: dir.dir, timeoutMs: 60_000 });
}

const withUrl = (change: (url: URL) => void) => {
  const url = new URL(PG_URL);
  change(url);
  return url.href;
};

await describeWithServer('postgres', 'sink.postgres, bad input through the CLI', () => {
  let table: string;
  beforeAll(async () => {
    admin = await adminClient();
    table = uniqueTable('pwb');
    tables.push(table);
    await createSinkTable(admin, table, 'upsert');
  });
  afterAll(async () => {
    for (const t of tables) await dropTable(admin, t);
    await admin.end();
    await removeTempDirs();
  });

  it.concurrent('an unreachable server, once retryTimeoutMs has passed', async () => {
    const connection = withUrl((url) => {
      url.port = '1';
    });
    expectClearRefusal(
      await run({ table, connection, retryTimeoutMs: 500 }),
      /operator "pg-out": PostgreSQL at 127\.0\.0\.1:1\/pipewright did not answer for [\d.]+ m?s while reading table "[a-z0-9_]+" \(retryTimeoutMs 500\): connect ECONNREFUSED/,
    );
  });

  it.concurrent('a wrong password', async () => {
    const connection = withUrl((url) => {
      url.password = 'wrong';
    });
    expectClearRefusal(
      await run({ table, connection }),
      /operator "pg-out": reading table "[a-z0-9_]+" in PostgreSQL at 127\.0\.0\.1:5432\/pipewright failed: password authentication failed for user "pipewright"/,
    );
  });

  it.concurrent('a missing table', async () => {
    expectClearRefusal(
      await run({ table: `${table}_missing` }),
      /operator "pg-out": table "[a-z0-9_]+_missing" does not exist in PostgreSQL at 127\.0\.0\.1:5432\/pipewright/,
    );
  });

  it.concurrent('keys without a unique index', async () => {
    const plain = uniqueTable('pwb_plain');
    tables.push(plain);
    await createSinkTable(admin, plain, 'append');
    expectClearRefusal(
      await run({ table: plain }),
      /operator "pg-out": table "[a-z0-9_]+" has no primary key or unique index on \(k\), which upsert needs/,
    );
  });

  it.concurrent('a value its column rejects, naming the column', async () => {
    const narrow = uniqueTable('pwb_narrow');
    tables.push(narrow);
    // "note" holds at most 6 characters: "note 1" fits, "note 10" does not.
    await admin.query(
      `CREATE TABLE ${narrow} (id int, k int PRIMARY KEY, amount int, note varchar(6), data jsonb)`,
    );
    expectClearRefusal(
      await run({ table: narrow, mode: 'append' }),
      /operator "pg-out": table "[a-z0-9_]+" rejects a value of column "note" \(character varying\(6\)\): value too long for type character varying\(6\)/,
    );
  });
});
