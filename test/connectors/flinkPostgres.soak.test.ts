// Soak: sink.postgres on Flink through a TaskManager's loss (issue 28). A job JSONL file -> keyed
// running sum -> sink.postgres, append and upsert, runs on a Flink cluster of the test's own (the
// shared one is never disturbed; PostgreSQL is the shared server, on tables of the test's own); a
// TaskManager is killed with -9 mid-run and started again. Flink restores the sums from the last
// checkpoint, the committer commits that checkpoint's prepared transactions, and the writers roll
// back those prepared after it: the append table holds exactly the clean rows, none lost or
// written twice, the upsert table each key's last row, and no prepared transaction of the job is
// left.
import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type pg from 'pg';
import { afterAll, expect, it } from 'vitest';
import { type JobDocument, makeTempDir, removeTempDirs, writeJob } from '../cliHarness.js';
import { KEYED_SUM, keyedSums, rest, runThroughTaskManagerKill, soakRecords } from './flinkClusterWatch.js';
import { adminClient, dropTable, tableLines, uniqueTable } from './postgresSinkTables.js';
import { type PrivateFlink, startPrivateFlink } from './privateServers.js';
import { describeWithServers, PG_URL } from './servers.js';

let cluster: PrivateFlink | undefined;
let admin: pg.Client | undefined;
const tables: string[] = [];
afterAll(async () => {
  await cluster?.close();
  for (const table of tables) await dropTable(admin!, table);
  await admin?.end();
  await removeTempDirs();
});

const KEYS = 300;
/** Several seconds of the job's work at parallelism 4 here, so that the kill lands mid-run. */
const RECORDS = 100_000;

/** The input lines, and the rows a clean run leaves: every (k, n, sum) once, and each key's last. */
function inputAndExpected() {
  const records = soakRecords(RECORDS, KEYS);
  const sums = keyedSums(records);
  const last = new Map(sums.map((s) => [s.k, s]));
  return {
    input: records.map((r) => `${JSON.stringify(r)}\n`).join(''),
    all: sums.map((s) => JSON.stringify(s)).sort(),
    latest: [...last.values()].map((s) => JSON.stringify(s)).sort(),
  };
}

function job(name: string, append: string, upsert: string): JobDocument {
  return {
    format: 'pipewright.job/1',
    name,
    settings: { checkpointIntervalMs: 300 },
    operators: [
      { id: 'in', kind: 'source.jsonl', params: { path: 'in.jsonl' } },
      { id: 'acc', kind: 'process', parallelism: 4, params: { code: KEYED_SUM } },
      {
        id: 'all',
        kind: 'sink.postgres',
        parallelism: 4,
        params: { connection: PG_URL, table: append, mode: 'append' },
      },
      {
        id: 'latest',
        kind: 'sink.postgres',
        parallelism: 4,
        params: { connection: PG_URL, table: upsert, mode: 'upsert', keyColumns: ['k'] },
      },
    ],
    edges: [
      { id: 'in-acc', from: 'in', to: 'acc', partition: 'hash', key: 'k' },
      { id: 'acc-all', from: 'acc', to: 'all', partition: 'forward' },
      { id: 'acc-latest', from: 'acc', to: 'latest', partition: 'forward' },
    ],
  };
}

/** The prepared transactions of the job's append sink (flink/PROTOCOL.md: pw:TAG:...). */
async function preparedOfJob(name: string, operatorId: string): Promise<string[]> {
  const tag = createHash('sha256').update(`${name}\u0000${operatorId}`).digest('hex').slice(0, 12);
  const { rows } = await admin!.query<{ gid: string }>(
    'SELECT gid FROM pg_prepared_xacts WHERE gid LIKE $1',
    [`pw:${tag}:%`],
  );
  return rows.map((r) => r.gid);
}

await describeWithServers(['postgres', 'flink'], 'sink.postgres on Flink when a TaskManager dies', () => {
  it('leaves exactly the clean rows and no prepared transaction when a TaskManager is killed with -9 mid-run', async () => {
    const { input, all, latest } = inputAndExpected();
    admin = await adminClient();
    const append = uniqueTable('flink_pg_kill_append');
    const upsert = uniqueTable('flink_pg_kill_upsert');
    tables.push(append, upsert);
    await admin.query(`CREATE TABLE ${append} (k text, n integer, sum integer)`);
    await admin.query(`CREATE TABLE ${upsert} (k text PRIMARY KEY, n integer, sum integer)`);
    cluster = await startPrivateFlink();
    const dir = await makeTempDir('pipewright-flink-pg-kill-');
    await writeFile(path.join(dir, 'in.jsonl'), input);
    const name = `pg-tm-kill-${path.basename(dir)}`;
    const jobPath = path.join(dir, 'job.job.json');
    await writeJob(jobPath, job(name, append, upsert));
    // At parallelism 4 the job takes all 4 slots, so it has subtasks on the TaskManager killed.
    const { code, stdout, stderr, jobId } = await runThroughTaskManagerKill(cluster, jobPath, name);
    expect(code, `${stdout}\n${stderr}`).toBe(0);
    expect(await preparedOfJob(name, 'all')).toEqual([]);
    const appended = await tableLines(admin, append, 'k, n, sum');
    expect(appended.length).toBe(RECORDS);
    expect(appended).toEqual(all);
    expect(await tableLines(admin, upsert, 'k, n, sum')).toEqual(latest);
    // The loss was the job's to recover from, not a kill after its end.
    const { exceptionHistory } = await rest<{ exceptionHistory: { entries: unknown[] } }>(
      cluster.url,
      `/jobs/${jobId}/exceptions`,
    );
    expect(exceptionHistory.entries.length).toBeGreaterThan(0);
  });
});
