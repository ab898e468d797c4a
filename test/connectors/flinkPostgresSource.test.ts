// source.postgres on the Flink cluster of `npm run services` (issue 28): the snapshot, then
// inserts, updates and deletes made while the job runs, give on Flink the very records the local
// engine gives (postgresSource.test.ts checks those against the same model), in order, none twice,
// through a restore from a checkpoint taken before a burst the job had read (the server ends the
// replication connection); the slot is told a position only once a checkpoint holding it
// completes, which is what the test waits on. A bounded read gives the local run's output byte
// for byte through the local run's default slot, and a missing table fails the job with the local
// line. Every slot and publication made here is dropped.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type pg from 'pg';
import { afterAll, expect, it } from 'vitest';
import { parseLsn } from '../../engine/operators/postgres/source/lsn.js';
import { defaultName } from '../../engine/operators/postgres/source/postgresSource.js';
import { waitUntil } from '../checkpointHelpers.js';
import {
  describeRun,
  type JobDocument,
  makeTempDir,
  removeTempDirs,
  runCli,
  writeJob,
} from '../cliHarness.js';
import { FLINK_TIMEOUT, ON_FLINK } from '../flinkHarness.js';
import { background } from './flinkClusterWatch.js';
import { dropAll, ModelTable, uniqueName, withClient } from './postgresSourceTables.js';
import { describeWithServers, FLINK_URL, PG_URL } from './servers.js';

afterAll(removeTempDirs);

/**
 * Checkpoints 2 s apart: the stream is broken right after a burst of transactions, which the job
 * has then read but no checkpoint holds yet, so the restore must read them again from the slot
 * (which it can only if the slot was told no more than a completed checkpoint's position).
 */
function cdcJob(name: string, table: string, prefix: string): JobDocument {
  return {
    format: 'pipewright.job/1',
    name,
    settings: { checkpointIntervalMs: 2000 },
    operators: [
      {
        id: 'src',
        kind: 'source.postgres',
        // Two subtasks: the second reads nothing, as locally (a slot has one reader).
        parallelism: 2,
        params: { connection: PG_URL, table, slot: `${prefix}_slot`, publication: `${prefix}_pub` },
      },
      { id: 'out', kind: 'sink.jsonl', parallelism: 1, params: { path: 'out.jsonl' } },
    ],
    edges: [{ id: 'e', from: 'src', to: 'out', partition: 'rebalance' }],
  };
}

/** The slot's confirmed position (null until it is made, or while it is being made). */
async function confirmed(slot: string): Promise<bigint | undefined> {
  const { rows } = await withClient((client) =>
    client.query<{ lsn: string | null }>(
      'SELECT confirmed_flush_lsn::text AS lsn FROM pg_replication_slots WHERE slot_name = $1',
      [slot],
    ),
  );
  const lsn = rows[0]?.lsn;
  return lsn === null || lsn === undefined ? undefined : parseLsn(lsn);
}

async function insertLsn(client: pg.Client): Promise<bigint> {
  const { rows } = await client.query<{ lsn: string }>('SELECT pg_current_wal_insert_lsn()::text AS lsn');
  return parseLsn(rows[0]!.lsn);
}

/** How far the walsender streaming the slot has sent the log (undefined: none streams it). */
async function sent(client: pg.Client, slot: string): Promise<bigint | undefined> {
  const { rows } = await client.query<{ lsn: string }>(
    `SELECT r.sent_lsn::text AS lsn FROM pg_stat_replication r
       JOIN pg_replication_slots s ON s.active_pid = r.pid WHERE s.slot_name = $1`,
    [slot],
  );
  return rows[0]?.lsn === undefined ? undefined : parseLsn(rows[0].lsn);
}

/**
 * Makes one transaction and waits until the slot is told a position past its start: only a
 * completed checkpoint holding the transaction, every record up to it emitted, tells it that
 * (pgoutput sends no empty transactions of other tables, so nothing else moves it there).
 */
async function checkpointed(
  slot: string,
  client: pg.Client,
  transaction: () => Promise<void>,
): Promise<void> {
  const before = await insertLsn(client);
  await transaction();
  const passed = await waitUntil(async () => ((await confirmed(slot)) ?? 0n) > before, {
    timeoutMs: ON_FLINK.timeoutMs,
    everyMs: 100,
  });
  expect(passed, `slot "${slot}" was never told a position past ${before}`).toBe(true);
}

/**
 * Ends the walsender streaming the slot (once it streams): the reader fails, and Flink restores
 * the job from its last checkpoint, the source streaming again from the position it holds.
 */
async function breakStream(client: pg.Client, slot: string): Promise<boolean> {
  const query = `SELECT pg_terminate_backend(active_pid) AS ended FROM pg_replication_slots
    WHERE slot_name = $1 AND active_pid IS NOT NULL`;
  for (;;) {
    const { rows } = await client.query<{ ended: boolean }>(query, [slot]);
    if (rows.length > 0) return rows[0]!.ended;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

await describeWithServers(['postgres', 'flink'], 'source.postgres on Flink', () => {
  it(
    "gives the local engine's records for the snapshot and the changes made while it runs, exactly once",
    async () => {
      const prefix = uniqueName('pwflinksrc');
      const table = new ModelTable(`${prefix}_t`);
      const dir = await makeTempDir('pipewright-flink-pgsource-');
      const name = path.basename(dir);
      try {
        await table.create(500);
        const jobPath = path.join(dir, 'cdc.job.json');
        await writeJob(jobPath, cdcJob(name, table.name, prefix));
        const run = background(['flink', jobPath, '--cluster', FLINK_URL]);
        const slot = `${prefix}_slot`;
        // Made with its snapshot: every change from here on is the stream's, not the snapshot's.
        const made = await waitUntil(async () => (await confirmed(slot)) !== undefined, {
          timeoutMs: ON_FLINK.timeoutMs,
          everyMs: 100,
        });
        expect(made, JSON.stringify(run.output())).toBe(true);
        await withClient(async (client) => {
          // A checkpoint that holds the stream's position (not the fresh split) before the burst.
          await checkpointed(slot, client, () => table.transaction(client, { update: [500] }));
          for (let k = 1; k <= 25; k++) {
            await table.transaction(client, { insert: [1000 + k], update: [k, 1000 + k], remove: [250 + k] });
          }
          // Broken as soon as the burst is sent: read by the job, in no checkpoint yet (they are
          // 2 s apart), so the restore gets it only from the slot, from the restored position.
          const burst = await insertLsn(client);
          await waitUntil(async () => ((await sent(client, slot)) ?? 0n) >= burst, {
            timeoutMs: ON_FLINK.timeoutMs,
            everyMs: 5,
          });
          expect(await breakStream(client, slot)).toBe(true);
          for (let k = 26; k <= 50; k++) {
            await table.transaction(client, { insert: [1000 + k], update: [k, 1000 + k], remove: [250 + k] });
          }
          await checkpointed(slot, client, () =>
            table.transaction(client, {
              update: Array.from({ length: 100 }, (_, i) => 301 + i),
              note: 'many',
            }),
          );
        });
        run.child.kill('SIGINT');
        const code = await run.done;
        const { stdout, stderr } = run.output();
        expect(code, `${stdout}\n${stderr}`).toBe(0);
        const lines = (await readFile(path.join(dir, 'out.jsonl'), 'utf8'))
          .split('\n')
          .filter((l) => l !== '');
        expect(lines.length).toBe(table.records.length);
        expect(lines).toEqual(table.lines());
      } finally {
        await dropAll(table.name, prefix);
      }
    },
    FLINK_TIMEOUT,
  );

  it(
    'ends a bounded read (stopAt "current") as locally, each type in the local form, through the default slot name',
    async () => {
      const prefix = uniqueName('pwflinksrc');
      const table = `${prefix}_types`;
      const dir = await makeTempDir('pipewright-flink-pgsource-types-');
      const name = path.basename(dir);
      const slot = defaultName(dir, name, 'src');
      try {
        await withClient(async (client) => {
          await client.query(
            `CREATE TABLE ${table} (id int PRIMARY KEY, "2" text, small int2, big int8, real4 float4, real8 float8,
            num numeric, flag bool, doc json, docb jsonb, at timestamp, attz timestamptz, day date, tags text[],
            raw bytea, missing text)`,
          );
          await client.query(`INSERT INTO ${table} VALUES
          (1, 'two', 2, 3000000000, 1.25, 0.1, 12345678901234567890.5, true, '{"b": 1, "a": [1, 2.50]}',
           '{"b": null, "a": 1}', '2024-01-02 03:04:05.123456', '2024-01-02 03:04:05.5+02', '2024-01-02',
           '{x,"y z"}', '\\x00ff', NULL),
          (2, 'é "q"', -1, -9007199254740993, 'NaN', '-Infinity', -0.5, false, '[]', '"s"', 'infinity',
           '-infinity', '2024-02-29', '{}', '', 'm')`);
        });
        const jobPath = path.join(dir, 'bounded.job.json');
        const job = cdcJob(name, table, prefix);
        job.operators[0].params = { connection: PG_URL, table, stopAt: 'current' };
        await writeJob(jobPath, job);
        const local = await runCli(['run', jobPath, '--quiet']);
        expect(local.code, describeRun(local)).toBe(0);
        const localLines = await readFile(path.join(dir, 'out.jsonl'), 'utf8');
        expect(localLines.split('\n').filter((l) => l !== '').length).toBe(2);
        // The local run left its slot (a bounded read does not drop it); Flink's fresh start makes it anew.
        const flink = await runCli(['flink', jobPath, '--cluster', FLINK_URL, '--quiet'], ON_FLINK);
        expect(flink.code, describeRun(flink)).toBe(0);
        expect(await readFile(path.join(dir, 'out.jsonl'), 'utf8')).toBe(localLines);
        const slots = await withClient((client) =>
          client.query<{ slot_name: string }>(
            'SELECT slot_name FROM pg_replication_slots WHERE slot_name LIKE $1',
            [`%${name.toLowerCase().replace(/[^a-z0-9_]/g, '_')}%`],
          ),
        );
        expect(slots.rows.map((r) => r.slot_name)).toEqual([slot]);
      } finally {
        await dropAll(table, slot);
      }
    },
    FLINK_TIMEOUT,
  );

  it(
    "fails with the local engine's line for a table that does not exist",
    async () => {
      const prefix = uniqueName('pwflinksrc');
      const dir = await makeTempDir('pipewright-flink-pgsource-bad-');
      try {
        const jobPath = path.join(dir, 'missing.job.json');
        await writeJob(jobPath, cdcJob(path.basename(dir), `${prefix}_none`, prefix));
        const local = await runCli(['run', jobPath, '--quiet']);
        const flink = await runCli(['flink', jobPath, '--cluster', FLINK_URL, '--quiet'], ON_FLINK);
        expect(local.code, describeRun(local)).toBe(1);
        expect(flink.code, describeRun(flink)).toBe(1);
        expect(flink.stderr.trim()).toBe(local.stderr.trim());
        expect(flink.stderr.trim()).toBe(`pipewright: operator "src": table "${prefix}_none" does not exist`);
      } finally {
        await dropAll(`${prefix}_none`, prefix);
      }
    },
    FLINK_TIMEOUT,
  );
});
