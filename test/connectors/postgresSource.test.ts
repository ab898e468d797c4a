// source.postgres against the shared PostgreSQL: the snapshot, then inserts, updates and deletes
// made during the run, in order and typed; a restore that resumes from a checkpoint with changes
// made while the job was away; testConnection; and the words for a server without logical
// decoding (the shared server cannot be switched off it).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { validateJob } from '../../engine/graph/validation/validateJob.js';
import { parseLsn } from '../../engine/operators/postgres/source/lsn.js';
import { sourcePostgresFactory } from '../../engine/operators/postgres/source/postgresSource.js';
import { currentLsn, walLevelProblem } from '../../engine/operators/postgres/source/tableSetup.js';
import {
  finish,
  inspectCheckpointDir,
  killHard,
  outputLines,
  startCli,
  waitUntil,
} from '../checkpointHelpers.js';
import { type JobDocument, makeTempDir, removeTempDirs, runCli, writeJob } from '../cliHarness.js';
import { openJob } from '../executors.js';
import { dropAll, ModelTable, uniqueName, waitUntilLines, withClient } from './postgresSourceTables.js';
import { describeWithServer, PG_URL } from './servers.js';

afterAll(removeTempDirs);

function cdcJob(
  table: string,
  prefix: string,
  extra: Record<string, unknown> = {},
  parallelism = 1,
): JobDocument {
  return {
    format: 'pipewright.job/1',
    name: 'pgcdc',
    settings: { checkpointIntervalMs: 50 },
    operators: [
      {
        id: 'src',
        kind: 'source.postgres',
        parallelism,
        params: { connection: PG_URL, table, slot: `${prefix}_slot`, publication: `${prefix}_pub`, ...extra },
      },
      { id: 'out', kind: 'sink.jsonl', parallelism: 1, params: { path: 'out.jsonl' } },
    ],
    edges: [{ id: 'e', from: 'src', to: 'out', partition: 'rebalance' }],
  };
}

describe('wal_level', () => {
  it('says what to set when the server does not decode changes', () => {
    expect(walLevelProblem('pg', 'replica')).toBe(
      'operator "pg": the server\'s wal_level is "replica", and reading changes needs "logical" (set wal_level = logical in postgresql.conf and restart the server)',
    );
  });
});

await describeWithServer('postgres', 'source.postgres', () => {
  it("puts a bounded read's end past every transaction committed before it, with synchronous_commit off", async () => {
    // A commit that does not wait for its record to be written: the log's write position can
    // still lie short of it when the read opens (a kill -9 soak lost a restore's last changes).
    const prefix = uniqueName('pwsrc');
    const table = new ModelTable(`${prefix}_t`);
    try {
      await table.create(1);
      await withClient(async (writer) => {
        await writer.query('SET synchronous_commit = off');
        for (let k = 1; k <= 20; k++) {
          await table.transaction(writer, { insert: [100 + k] });
          const { rows } = await writer.query<{ lsn: string }>(
            'SELECT pg_current_wal_insert_lsn()::text AS lsn',
          );
          const end = await withClient(currentLsn);
          expect(parseLsn(end) >= parseLsn(rows[0]!.lsn), `${end} short of ${rows[0]!.lsn}`).toBe(true);
        }
      });
    } finally {
      await dropAll(table.name, prefix);
    }
  });

  it.concurrent('reads the snapshot, then the inserts, updates and deletes made during the run, in order and typed (a second subtask reads nothing)', async () => {
    const prefix = uniqueName('pwsrc');
    const table = new ModelTable(`${prefix}_t`);
    const dir = await mkdtemp(path.join(tmpdir(), 'pipewright-pgsource-'));
    try {
      await table.create(500);
      const { job, problems } = validateJob(cdcJob(table.name, prefix, {}, 2));
      expect(problems).toEqual([]);
      const run = await openJob('deterministic', job!, {
        jobDir: dir,
        stateDir: path.join(dir, 'state'),
        checkpointDir: path.join(dir, 'checkpoints'),
      });
      const done = run.run();
      const out = path.join(dir, 'out.jsonl');
      expect(await waitUntilLines(out, 500, 30_000)).toBe(true);
      await withClient(async (client) => {
        for (let k = 1; k <= 50; k++) {
          await table.transaction(client, { insert: [1000 + k], update: [k, 1000 + k], remove: [250 + k] });
        }
        await table.transaction(client, {
          update: Array.from({ length: 100 }, (_, i) => 301 + i),
          note: 'many',
        });
      });
      expect(await waitUntilLines(out, table.records.length, 30_000)).toBe(true);
      run.stop();
      await done;
      expect(await outputLines(out)).toEqual(table.lines());
    } finally {
      await rm(dir, { recursive: true, force: true });
      await dropAll(table.name, prefix);
    }
  });

  it.concurrent('gives each column type its documented form, in the snapshot and in changes alike', async () => {
    const prefix = uniqueName('pwsrc');
    const name = `${prefix}_types`;
    const dir = await mkdtemp(path.join(tmpdir(), 'pipewright-pgsource-'));
    const values = `1, 2, 3000000000, 1.25, 0.5, 12345678901234567890.5, true, '{"a":[1,2]}', '{"b":null}', '2024-01-02 03:04:05.123456', '2024-01-02 03:04:05.5+02', '2024-01-02', 'x', NULL`;
    const expected = {
      id: 1,
      small: 2,
      big: '3000000000',
      real4: 1.25,
      real8: 0.5,
      num: '12345678901234567890.5',
      flag: true,
      doc: { a: [1, 2] },
      docb: { b: null },
      at: '2024-01-02T03:04:05.123456',
      attz: '2024-01-02T01:04:05.5Z',
      day: '2024-01-02',
      label: 'x',
      missing: null,
    };
    try {
      await withClient(async (client) => {
        await client.query(
          `CREATE TABLE ${name} (id int PRIMARY KEY, small int2, big int8, real4 float4, real8 float8, num numeric, flag bool, doc json, docb jsonb, at timestamp, attz timestamptz, day date, label text, missing text)`,
        );
        await client.query(`INSERT INTO ${name} VALUES (${values})`);
      });
      const { job } = validateJob(cdcJob(name, prefix));
      const run = await openJob('deterministic', job!, {
        jobDir: dir,
        stateDir: path.join(dir, 'state'),
        checkpointDir: path.join(dir, 'checkpoints'),
      });
      const done = run.run();
      const out = path.join(dir, 'out.jsonl');
      expect(await waitUntilLines(out, 1, 30_000)).toBe(true);
      await withClient((client) =>
        client.query(`INSERT INTO ${name} VALUES (${values.replace(/^1,/, '2,')})`),
      );
      expect(await waitUntilLines(out, 2, 30_000)).toBe(true);
      run.stop();
      await done;
      const records = (await outputLines(out)).map((line) => JSON.parse(line));
      expect(records).toEqual([
        { op: 'insert', before: null, after: expected },
        { op: 'insert', before: null, after: { ...expected, id: 2 } },
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
      await dropAll(name, prefix);
    }
  });

  it.concurrent('resumes from its checkpoint after kill -9, reading the changes made while it was away', async () => {
    const prefix = uniqueName('pwsrc');
    const table = new ModelTable(`${prefix}_t`);
    const dir = await makeTempDir('pipewright-pgsource-restore-');
    const jobPath = path.join(dir, 'pgcdc.job.json');
    const checkpointDir = path.join(dir, '.pipewright', 'pgcdc', 'checkpoints');
    try {
      await table.create(300);
      await writeJob(jobPath, cdcJob(table.name, prefix));
      const first = startCli(['run', jobPath], dir);
      const checkpointed = await waitUntil(() => inspectCheckpointDir(checkpointDir).completed.length > 0, {
        run: first,
        timeoutMs: 60_000,
      });
      await killHard(first);
      const firstRun = await finish(first, 10_000, 'the first run');
      // Once (npm test, 2026-12-06) the restore found no checkpoint: say what the first run did.
      const checkpoints = inspectCheckpointDir(checkpointDir).completed;
      const context = `the first run: exit ${firstRun.code}, checkpoints ${checkpoints.join(', ') || 'none'}\n${firstRun.stderr}`;
      expect(checkpointed, context).toBe(true);
      expect(checkpoints.length, context).toBeGreaterThan(0);
      // While it is away: changes the restore must read from the slot, all at once as it starts.
      await withClient(async (client) => {
        for (let k = 1; k <= 20; k++)
          await table.transaction(client, { insert: [500 + k], update: [k], remove: [100 + k] });
      });
      await writeJob(jobPath, cdcJob(table.name, prefix, { stopAt: 'current' }));
      const restored = await runCli(['run', jobPath, '--restore', 'latest'], { cwd: dir, timeoutMs: 60_000 });
      expect(restored.code, restored.stderr).toBe(0);
      expect(restored.stderr, `${context}\nthe restore:\n${restored.stderr}`).toMatch(
        /restoring checkpoint \d+/,
      );
      expect(await outputLines(path.join(dir, 'out.jsonl'))).toEqual(table.lines());
    } finally {
      await dropAll(table.name, prefix);
    }
  });

  it.concurrent('drops the slot a fresh run killed during its snapshot left, and makes it again', async () => {
    const prefix = uniqueName('pwsrc');
    const table = new ModelTable(`${prefix}_t`);
    const dir = await makeTempDir('pipewright-pgsource-leftover-');
    const jobPath = path.join(dir, 'pgcdc.job.json');
    const checkpointDir = path.join(dir, '.pipewright', 'pgcdc', 'checkpoints');
    try {
      await table.create(50_000);
      await writeJob(jobPath, cdcJob(table.name, prefix, { stopAt: 'current' }));
      const first = startCli(['run', jobPath], dir);
      const slotMade = async () =>
        withClient(async (client) => {
          const found = await client.query(
            'SELECT 1 FROM pg_replication_slots WHERE slot_name = $1 AND confirmed_flush_lsn IS NOT NULL',
            [`${prefix}_slot`],
          );
          return found.rowCount === 1;
        });
      while (!(await slotMade()) && !first.exited()) await new Promise((resolve) => setTimeout(resolve, 10));
      await killHard(first);
      await finish(first, 10_000, 'the first run');
      // Killed while reading its snapshot: no checkpoint (they wait for the snapshot), the slot left.
      expect(inspectCheckpointDir(checkpointDir).completed).toEqual([]);
      const again = await runCli(['run', jobPath], { cwd: dir, timeoutMs: 60_000 });
      expect(again.code, again.stderr).toBe(0);
      expect(await outputLines(path.join(dir, 'out.jsonl'))).toEqual(table.lines());
    } finally {
      await dropAll(table.name, prefix);
    }
  });

  it.concurrent('tests its connection: the server, the table, wal_level', async () => {
    const prefix = uniqueName('pwsrc');
    const name = `${prefix}_t`;
    try {
      await withClient((client) => client.query(`CREATE TABLE ${name} (id int)`));
      const ok = await sourcePostgresFactory.testConnection!({ connection: PG_URL, table: name }, 'pg');
      expect(ok.ok, ok.message).toBe(true);
      expect(ok.message).toMatch(
        /^PostgreSQL at 127\.0\.0\.1:5432\/pipewright answers \(PostgreSQL 15[^)]*\); table "public\..*" has .*; wal_level is logical$/,
      );
      const missing = await sourcePostgresFactory.testConnection!(
        { connection: PG_URL, table: `${name}_nope` },
        'pg',
      );
      expect(missing).toEqual({ ok: false, message: `table "${name}_nope" does not exist` });
      const badPassword = await sourcePostgresFactory.testConnection!(
        { connection: PG_URL.replace('pipewright:pipewright@', 'pipewright:wrong@'), table: name },
        'pg',
      );
      expect(badPassword.ok).toBe(false);
      expect(badPassword.message).toMatch(/^the server refused the login: password authentication failed/);
    } finally {
      await withClient((client) => client.query(`DROP TABLE IF EXISTS ${name}`));
    }
  });
});
