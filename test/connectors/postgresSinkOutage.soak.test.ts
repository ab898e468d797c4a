// Soak (a server of its own, started and stopped): PostgreSQL going away mid-run (issue 16, "Must
// show"), on a private server of the test's own: stopped for a few seconds, the append sink's
// connections wait with backoff, the run says what it waits for, and once the server is back the
// table holds every record exactly once; stopped for longer than retryTimeoutMs, the run fails with
// one line saying so, and `--restore latest` afterwards completes with exactly the rows of a clean
// run.
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { finish, sleep, startCli, waitUntil } from '../checkpointHelpers.js';
import { describeRun, removeTempDirs } from '../cliHarness.js';
import { createSinkTable, expectedLines, sinkJob, sinkRecords, sinkRunDir } from './postgresSinkJobs.js';
import { tableLines, uniqueTable } from './postgresSinkTables.js';
import { type PrivatePostgres, startPrivatePostgres } from './privateServers.js';
import { describeWithServer } from './servers.js';

// 20 s of records at RATE: the outage, begun once a checkpoint has committed rows, falls well
// within the run however late that first commit comes on a loaded machine (12,000 ended before
// the server was stopped: a source that falls behind its schedule catches up since d91c038).
const COUNT = 40_000;
const RATE = 2000;
const KEYS = 2500;
const COLUMNS = 'id, k, amount, note, data';

/** A query on a connection of its own (the server may have been restarted since the last). */
async function query<T>(url: string, call: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await call(client);
  } finally {
    await client.end().catch(() => {});
  }
}

const rowCount = (url: string, table: string) =>
  query(url, async (c) => Number((await c.query(`SELECT count(*) AS n FROM ${table}`)).rows[0].n)).catch(
    () => 0,
  );

await describeWithServer('postgres', 'sink.postgres while its server is away', () => {
  let server: PrivatePostgres;
  beforeAll(async () => {
    server = await startPrivatePostgres();
  });
  afterAll(async () => {
    await server?.close();
    await removeTempDirs();
  });

  async function startRun(table: string, retryTimeoutMs: number) {
    await query(server.url, (c) => createSinkTable(c, table, 'append'));
    const job = sinkJob({
      table,
      count: COUNT,
      keys: KEYS,
      mode: 'append',
      parallelism: 2,
      intervalMs: 200,
      ratePerSec: RATE,
      connection: server.url,
      retryTimeoutMs,
    });
    const dir = await sinkRunDir('outage', job);
    const run = startCli(['run', dir.jobPath], dir.dir);
    // A checkpoint has committed rows: the run is under way.
    const wrote = await waitUntil(async () => (await rowCount(server.url, table)) > 0, {
      run,
      timeoutMs: 90_000,
      everyMs: 50,
    });
    if (!wrote) throw new Error(`the run wrote nothing\n${run.stderr()}`);
    return { dir, run };
  }

  it('stopped for a few seconds: the run waits, says so, and writes every record once', async () => {
    const table = uniqueTable('pwo_short');
    const { run } = await startRun(table, 60_000);
    await server.stop();
    await sleep(4000);
    await server.start();
    const result = await finish(run, 120_000, 'the run through the outage');
    expect(result.code, describeRun(result)).toBe(0);
    expect(result.stdout + result.stderr, describeRun(result)).toMatch(
      new RegExp(`waiting for PostgreSQL at 127\\.0\\.0\\.1:${server.port}/pipewright`),
    );
    expect(await query(server.url, (c) => tableLines(c, table, COLUMNS))).toEqual(
      expectedLines(sinkRecords(COUNT, KEYS), 'append'),
    );
  });

  it('stopped for longer than retryTimeoutMs: a clear failure, then --restore latest writes exactly', async () => {
    const table = uniqueTable('pwo_long');
    const { dir, run } = await startRun(table, 2000);
    await server.stop();
    const failed = await finish(run, 60_000, 'the run without its server');
    await server.start();
    const printed = failed.stdout + failed.stderr;
    expect(failed.code, describeRun(failed)).toBe(1);
    expect(printed, describeRun(failed)).toMatch(
      new RegExp(
        `operator "pg-out": PostgreSQL at 127\\.0\\.0\\.1:${server.port}/pipewright did not answer for [\\d.]+ s while .*\\(retryTimeoutMs 2000\\)`,
      ),
    );
    expect(printed, describeRun(failed)).not.toMatch(/^\s+at /m);
    const restored = await finish(
      startCli(['run', dir.jobPath, '--restore', 'latest'], dir.dir),
      120_000,
      'the restore',
    );
    expect(restored.code, describeRun(restored)).toBe(0);
    expect(await query(server.url, (c) => tableLines(c, table, COLUMNS))).toEqual(
      expectedLines(sinkRecords(COUNT, KEYS), 'append'),
    );
  });
});
