// sink.postgres's writers and committer against a real PostgreSQL, driven as the engine drives
// them (open, write, prepareCommit at a barrier, the committer's prepare and commit once the
// checkpoint completes, recover on restore), so that what is visible when can be asserted
// between the steps.
import os from 'node:os';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PlannedOperator } from '../../engine/graph/plan.js';
import type { SinkParts } from '../../engine/operators/kindFactory.js';
import { sinkPostgresFactory } from '../../engine/operators/postgres/sink/postgresSink.js';
import type { ConnectorState } from '../../engine/runtime/connectorState.js';
import type { Envelope } from '../../engine/runtime/envelope.js';
import type { SubtaskEnvironment } from '../../engine/runtime/operatorLogic.js';
import type { SinkWriter } from '../../engine/runtime/sink.js';
import { adminClient, dropTable, preparedOn, tableLines, uniqueTable } from './postgresSinkTables.js';
import { describeWithServer, PG_URL } from './servers.js';

let admin: pg.Client;
const tables: string[] = [];

async function createTable(prefix: string, columns: string): Promise<string> {
  const table = uniqueTable(prefix);
  tables.push(table);
  await admin.query(`CREATE TABLE ${table} (${columns})`);
  return table;
}

function sinkOf(id: string, params: Record<string, unknown>, jobDir = os.tmpdir()): SinkParts {
  if (sinkPostgresFactory.role !== 'sink') throw new Error('not a sink');
  const planned = { id, operator: { id, kind: 'sink.postgres', parallelism: 1, params }, parallelism: 1 };
  return sinkPostgresFactory.createSink({
    planned: planned as unknown as PlannedOperator,
    jobDir,
    jobName: 'writers',
    checkpoints: undefined,
  });
}

function envOf(id: string, subtask: number, waits: string[] = []): SubtaskEnvironment {
  return {
    operator: { id },
    subtask,
    parallelism: 1,
    reportWait: (message: string | undefined) => {
      if (message !== undefined) waits.push(message);
    },
  } as unknown as SubtaskEnvironment;
}

const record = (value: unknown, position = 0): Envelope => ({
  type: 'record',
  value,
  key: undefined,
  keyGroup: 0,
  timestamp: undefined,
  source: undefined,
  position,
  text: undefined,
});

async function writeAll(writer: SinkWriter, values: readonly unknown[]): Promise<void> {
  for (const [i, value] of values.entries()) await writer.write(record(value, i));
}

const rowsOf = (from: number, to: number) =>
  Array.from({ length: to - from }, (_, i) => ({ id: from + i, name: `n${from + i}` }));

async function count(table: string): Promise<number> {
  const { rows } = await admin.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}`);
  return Number(rows[0]!.n);
}

await describeWithServer('postgres', 'sink.postgres writers', () => {
  beforeAll(async () => {
    admin = await adminClient();
  });
  afterAll(async () => {
    for (const table of tables) await dropTable(admin, table);
    await admin.end();
  });

  describe('append', () => {
    it('makes nothing visible before the checkpoint completes, and all of it once it has', async () => {
      const table = await createTable('pws_append', 'id int, name text');
      const sink = sinkOf('pg-out', { connection: PG_URL, table, mode: 'append' });
      const writer = sink.createWriter(envOf('pg-out', 0));
      await writer.open();
      await writeAll(writer, rowsOf(0, 2500));
      const committable = (await writer.prepareCommit(1))!;
      expect(committable.state.kind).toBe('sink.postgres');
      await writeAll(writer, rowsOf(2500, 2600));
      expect(await count(table)).toBe(0);
      expect(await preparedOn(admin, table)).toHaveLength(1);
      const commit = (await sink.committer.prepare(1, [committable.state]))!;
      expect(await count(table)).toBe(0);
      await sink.committer.commit(commit);
      expect(await count(table)).toBe(2500);
      // The rows after the barrier wait for the next checkpoint, or the end of the job.
      await writer.endInput();
      expect(await count(table)).toBe(2500);
      const last = (await writer.prepareCommit(undefined))!;
      await sink.committer.commitRemaining([last.state]);
      expect(await tableLines(admin, table, 'id, name')).toEqual(
        rowsOf(0, 2600)
          .map((r) => JSON.stringify(r))
          .sort(),
      );
      expect(await preparedOn(admin, table)).toEqual([]);
    });

    it('redoes its open transaction from the rows it holds when the connection breaks before PREPARE', async () => {
      const table = await createTable('pws_break', 'id int, name text');
      const id = `pg-break-${table}`;
      const sink = sinkOf(id, { connection: PG_URL, table, mode: 'append' });
      // (Whether the break is seen by a query, which waits and retries, or between two, when the
      // next call just connects again, depends on timing: the rows must be right either way.)
      const writer = sink.createWriter(envOf(id, 0));
      await writer.open();
      await writeAll(writer, rowsOf(0, 2500));
      // Past the first batches: they are in the server's open transaction, which dies with its connection.
      await writer.write(record({ id: 2500, name: 'n2500' }));
      const { rows } = await admin.query<{ killed: boolean }>(
        'SELECT pg_terminate_backend(pid) AS killed FROM pg_stat_activity WHERE application_name = $1',
        [`pipewright ${id}`],
      );
      expect(rows.length).toBeGreaterThan(0);
      await writeAll(writer, rowsOf(2501, 4000));
      const committable = (await writer.prepareCommit(1))!;
      await sink.committer.commit((await sink.committer.prepare(1, [committable.state]))!);
      expect(await tableLines(admin, table, 'id, name')).toEqual(
        rowsOf(0, 4000)
          .map((r) => JSON.stringify(r))
          .sort(),
      );
      await writer.abort();
    });

    it("on restore commits the checkpoint's prepared transactions and rolls back the later ones, idempotently", async () => {
      const table = await createTable('pws_recover', 'id int, name text');
      const jobDir = `${os.tmpdir()}/pws-${table}`;
      const params = { connection: PG_URL, table, mode: 'append' };
      const first = sinkOf('pg-out', params, jobDir);
      const writers = [0, 1].map((subtask) => first.createWriter(envOf('pg-out', subtask)));
      for (const w of writers) await w.open();
      const committables: ConnectorState[] = [];
      for (const [subtask, w] of writers.entries()) {
        await writeAll(w, rowsOf(subtask * 1000, subtask * 1000 + 700));
        committables.push((await w.prepareCommit(1))!.state);
      }
      const commit1 = (await first.committer.prepare(1, committables))!;
      // Checkpoint 2 is prepared, never completed; checkpoint 1's commit never ran (the crash).
      for (const [subtask, w] of writers.entries()) {
        await writeAll(w, rowsOf(subtask * 1000 + 700, subtask * 1000 + 900));
        await w.prepareCommit(2);
      }
      for (const w of writers) await w.abort();
      expect(await preparedOn(admin, table)).toHaveLength(4);
      expect(await count(table)).toBe(0);

      const expected = [...rowsOf(0, 700), ...rowsOf(1000, 1700)].map((r) => JSON.stringify(r)).sort();
      for (let restore = 0; restore < 2; restore++) {
        const again = sinkOf('pg-out', params, jobDir);
        await again.committer.recover(commit1, 1);
        expect(await preparedOn(admin, table)).toEqual([]);
        expect(await tableLines(admin, table, 'id, name')).toEqual(expected);
        await again.committer.commitRemaining([]);
      }
    });

    it('rolls back on a fresh start what an earlier run of the job left prepared', async () => {
      const table = await createTable('pws_fresh', 'id int, name text');
      const jobDir = `${os.tmpdir()}/pws-${table}`;
      const params = { connection: PG_URL, table, mode: 'append' };
      const crashed = sinkOf('pg-out', params, jobDir).createWriter(envOf('pg-out', 0));
      await crashed.open();
      await writeAll(crashed, rowsOf(0, 10));
      await crashed.prepareCommit(1);
      await crashed.abort();
      expect(await preparedOn(admin, table)).toHaveLength(1);
      // Another job's (another folder's) prepared transaction is not this job's to end.
      const other = sinkOf('pg-out', params, `${jobDir}-other`).createWriter(envOf('pg-out', 0));
      await other.open();
      await writeAll(other, rowsOf(100, 110));
      await other.prepareCommit(1);
      await other.abort();
      const fresh = sinkOf('pg-out', params, jobDir).createWriter(envOf('pg-out', 0));
      await fresh.open();
      expect(await preparedOn(admin, table)).toHaveLength(1);
      await fresh.abort();
    });
  });

  describe('upsert', () => {
    it('writes a key twice in one batch as writing its records one by one would', async () => {
      const table = await createTable('pws_upsert', 'id int primary key, name text, amount int, data jsonb');
      const sink = sinkOf('pg-out', { connection: PG_URL, table, mode: 'upsert', keyColumns: ['id'] });
      const writer = sink.createWriter(envOf('pg-out', 0));
      await writer.open();
      const values: unknown[] = [];
      for (let i = 0; i < 2500; i++)
        values.push({ id: i % 700, name: `n${i}`, amount: i, data: { i, tags: ['x'] } });
      // A record that sets only some columns leaves the others as the record before set them.
      values.push({ id: 3, amount: -1 });
      await writeAll(writer, values);
      await writer.prepareCommit(1);
      expect(await count(table)).toBe(700);
      await writer.endInput();
      const { rows } = await admin.query(
        `SELECT id, name, amount, data FROM ${table} WHERE id IN (3, 699) ORDER BY id`,
      );
      expect(rows).toEqual([
        { id: 3, name: 'n2103', amount: -1, data: { i: 2103, tags: ['x'] } },
        { id: 699, name: 'n2099', amount: 2099, data: { i: 2099, tags: ['x'] } },
      ]);
      await writer.abort();
    });
  });

  describe('values', () => {
    it('go in as they are: quotes, backslashes, braces, commas, NULL as text, JSON, numbers, booleans', async () => {
      const table = await createTable(
        'pws_values',
        'id int primary key, name text, amount double precision, ok boolean, data jsonb, code varchar(20)',
      );
      const sink = sinkOf('pg-out', { connection: PG_URL, table, mode: 'upsert', keyColumns: ['id'] });
      const writer = sink.createWriter(envOf('pg-out', 0));
      await writer.open();
      const names = ['say "hi"', 'C:\\dir\\', '{1,2}', 'a,b', 'NULL', '', ' padded ', 'é \n\t', '\\"'];
      const values = names.map((name, id) => ({
        id,
        name,
        amount: id === 0 ? -2.5 : id * 1e10,
        ok: id % 2 === 0,
        data: { name, list: [name, null] },
        code: id === 3 ? null : name.slice(0, 20),
      }));
      await writeAll(writer, values);
      await writer.endInput();
      const { rows } = await admin.query(`SELECT id, name, amount, ok, data, code FROM ${table} ORDER BY id`);
      expect(rows).toEqual(values);
      await writer.abort();
    });
  });

  describe('errors name the operator and the cause', () => {
    const failure = async (params: Record<string, unknown>, values: unknown[] = []) => {
      const writer = sinkOf('pg-out', params).createWriter(envOf('pg-out', 0));
      try {
        await writer.open();
        await writeAll(writer, values);
        await writer.endInput();
        return 'no failure';
      } catch (error) {
        expect((error as Error).name).toBe('JobError');
        return (error as Error).message;
      } finally {
        await writer.abort();
      }
    };

    it('a field the table has no column for', async () => {
      const table = await createTable('pws_field', 'id int primary key, name text');
      expect(
        await failure({ connection: PG_URL, table, mode: 'upsert', keyColumns: ['id'] }, [
          { id: 1, nmae: 'x' },
        ]),
      ).toBe(`operator "pg-out": field "nmae" is not a column of table "${table}"`);
    });

    it('a value its column rejects', async () => {
      const table = await createTable('pws_value', 'id int primary key, name text, amount int');
      const values = [...rowsOf(0, 50), { id: 50, name: 'x', amount: 'twelve' }];
      for (const mode of ['append', 'upsert']) {
        expect(await failure({ connection: PG_URL, table, mode, keyColumns: ['id'] }, values)).toBe(
          `operator "pg-out": table "${table}" rejects a value of column "amount" (integer): invalid input syntax for type integer: "twelve"`,
        );
      }
    });

    it('a string too long for its varchar, not cut to fit', async () => {
      const table = await createTable('pws_varchar', 'id int primary key, name varchar(6)');
      for (const mode of ['append', 'upsert']) {
        expect(
          await failure({ connection: PG_URL, table, mode, keyColumns: ['id'] }, [
            { id: 1, name: 'short' },
            { id: 2, name: 'much too long' },
          ]),
        ).toBe(
          `operator "pg-out": table "${table}" rejects a value of column "name" (character varying(6)): value too long for type character varying(6)`,
        );
      }
    });

    it('a missing table, key column or unique index', async () => {
      const table = await createTable('pws_keys', 'id int, name text');
      expect(await failure({ connection: PG_URL, table: `${table}_nope`, mode: 'append' })).toBe(
        `operator "pg-out": table "${table}_nope" does not exist in PostgreSQL at 127.0.0.1:5432/pipewright`,
      );
      expect(await failure({ connection: PG_URL, table, mode: 'upsert', keyColumns: ['key'] })).toBe(
        `operator "pg-out": key column "key" is not a column of table "${table}"`,
      );
      expect(await failure({ connection: PG_URL, table, mode: 'upsert', keyColumns: ['id'] })).toBe(
        `operator "pg-out": table "${table}" has no primary key or unique index on (id), which upsert needs (ON CONFLICT finds the row by it)`,
      );
    });

    it('bad credentials at once, an unreachable server after retryTimeoutMs', async () => {
      const url = new URL(PG_URL);
      url.password = 'wrong';
      expect(await failure({ connection: url.href, table: 't', mode: 'append' })).toMatch(
        /^operator "pg-out": reading table "t" in PostgreSQL at 127\.0\.0\.1:5432\/pipewright failed: password authentication failed for user "pipewright"$/,
      );
      url.password = 'pipewright';
      url.port = '1';
      expect(
        await failure({ connection: url.href, table: 't', mode: 'append', retryTimeoutMs: 300 }),
      ).toMatch(
        /^operator "pg-out": PostgreSQL at 127\.0\.0\.1:1\/pipewright did not answer for .* while reading table "t" \(retryTimeoutMs 300\): connect ECONNREFUSED 127\.0\.0\.1:1$/,
      );
    });
  });

  describe('testConnection', () => {
    it('says whether the server answers, the table exists and the keys are unique', async () => {
      const table = await createTable('pws_test', 'id int primary key, name text');
      const test = sinkPostgresFactory.testConnection!;
      expect(await test({ connection: PG_URL, table, mode: 'upsert', keyColumns: ['id'] }, 'pg-out')).toEqual(
        {
          ok: true,
          message: `PostgreSQL at 127.0.0.1:5432/pipewright answers; table ${table} has 2 columns (id, name), unique on (id)`,
        },
      );
      expect(
        await test({ connection: PG_URL, table, mode: 'upsert', keyColumns: ['name'] }, 'pg-out'),
      ).toEqual({
        ok: false,
        message: `operator "pg-out": table "${table}" has no primary key or unique index on (name), which upsert needs (ON CONFLICT finds the row by it)`,
      });
      const down = await test(
        { connection: 'postgres://u:p@127.0.0.1:1/db', table, mode: 'append' },
        'pg-out',
      );
      expect(down.ok).toBe(false);
      expect(down.message).toMatch(/PostgreSQL at 127\.0\.0\.1:1\/db did not answer/);
    });
  });
});
