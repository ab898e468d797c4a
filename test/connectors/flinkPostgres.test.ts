// sink.postgres on the Flink cluster of `npm run services` (issue 28): a job source.jsonl ->
// keyed process -> sink.postgres, upsert and append, run with `pipewright run` and with
// `pipewright flink --cluster`, each into tables of its own, leaves the same rows: strings,
// numbers (as JavaScript writes them), booleans, nulls, objects into json, jsonb and text columns,
// and no prepared transaction behind. A value the table refuses fails the job on both with the
// same line, and a missing table is refused before anything is submitted, with the local line.

import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  describeRun,
  type JobDocument,
  makeTempDir,
  removeTempDirs,
  runCli,
  writeJob,
} from '../cliHarness.js';
import { FLINK_TIMEOUT, ON_FLINK } from '../flinkHarness.js';
import { adminClient, dropTable, preparedOn, tableLines, uniqueTable } from './postgresSinkTables.js';
import { describeWithServers, FLINK_URL, PG_URL } from './servers.js';

const KEYS = 23;
const RECORDS = 2000;
const COLUMNS = 'k, n, sum, ratio, last, flag, note, doc, meta, tags';
const TABLE = `(k text, n integer, sum bigint, ratio double precision, last text, flag boolean, note text,
  doc json, meta jsonb, tags text, seen timestamptz DEFAULT now())`;

let admin: pg.Client;
const tables: string[] = [];

afterAll(async () => {
  for (const table of tables) await dropTable(admin, table);
  await admin?.end();
  await removeTempDirs();
});

/** Records {k, i, v, s} with strings that need escaping in an array literal, and nulls. */
function input(): string {
  return Array.from({ length: RECORDS }, (_, i) =>
    JSON.stringify({
      k: `k${i % KEYS}`,
      i,
      v: (i * 7) % 13,
      s: i % 5 === 0 ? `quote " and \\ ${i}` : i % 7 === 0 ? null : `s${i}`,
    }),
  ).join('\n');
}

/** A running sum per key, emitted with values of each type the sink converts. */
const PROCESS = `function process(r, ctx) {
  const s = ctx.state.value('s');
  const a = s.get() ?? { n: 0, sum: 0 };
  a.n += 1; a.sum += r.v;
  s.set(a);
  ctx.emit({ k: r.k, n: a.n, sum: a.sum, ratio: a.sum / 3, last: r.s, flag: r.v % 2 === 0,
    note: r.i % 11 === 0 ? null : { i: r.i, "2": "two", "1": [r.v, 1.5, 1e21] },
    doc: { b: r.i, a: [true, null, "x\\u0001y"] }, meta: r.s, tags: [r.k, r.v] });
}`;

function job(name: string, upsert: string, append: string): JobDocument {
  return {
    format: 'pipewright.job/1',
    name,
    settings: { checkpointIntervalMs: 300 },
    operators: [
      { id: 'in', kind: 'source.jsonl', params: { path: 'in.jsonl' } },
      { id: 'acc', kind: 'process', parallelism: 2, params: { code: PROCESS } },
      {
        id: 'latest',
        kind: 'sink.postgres',
        parallelism: 2,
        params: { connection: PG_URL, table: upsert, mode: 'upsert', keyColumns: ['k'] },
      },
      {
        id: 'all',
        kind: 'sink.postgres',
        parallelism: 2,
        params: { connection: PG_URL, table: append, mode: 'append' },
      },
    ],
    edges: [
      { id: 'in-acc', from: 'in', to: 'acc', partition: 'hash', key: 'k' },
      { id: 'acc-latest', from: 'acc', to: 'latest', partition: 'forward' },
      { id: 'acc-all', from: 'acc', to: 'all', partition: 'rebalance' },
    ],
  };
}

async function makeTable(prefix: string, primaryKey: boolean): Promise<string> {
  const table = uniqueTable(prefix);
  tables.push(table);
  await admin.query(
    `CREATE TABLE ${table} ${primaryKey ? TABLE.replace('k text,', 'k text PRIMARY KEY,') : TABLE}`,
  );
  return table;
}

/** Runs the job on one engine into tables of its own; their rows as sorted lines. */
async function runJob(engine: 'local' | 'flink') {
  const upsert = await makeTable(`flink_pg_upsert_${engine}`, true);
  const append = await makeTable(`flink_pg_append_${engine}`, false);
  const dir = await makeTempDir(`pipewright-flink-pg-${engine}-`);
  await writeFile(path.join(dir, 'in.jsonl'), input());
  const jobPath = path.join(dir, 'job.job.json');
  await writeJob(jobPath, job(`${path.basename(dir)}-${engine}`, upsert, append));
  const ran =
    engine === 'local'
      ? await runCli(['run', jobPath, '--quiet'])
      : await runCli(['flink', jobPath, '--cluster', FLINK_URL, '--quiet'], ON_FLINK);
  expect(ran.code, describeRun(ran)).toBe(0);
  expect(await preparedOn(admin, upsert)).toEqual([]);
  expect(await preparedOn(admin, append)).toEqual([]);
  return {
    upsert: await tableLines(admin, upsert, COLUMNS),
    append: await tableLines(admin, append, COLUMNS),
    // The json column keeps its text as written: JSON.stringify's, on both engines.
    docs: (await admin.query<{ d: string }>(`SELECT doc::text AS d FROM ${append}`)).rows
      .map((r) => r.d)
      .sort(),
  };
}

await describeWithServers(['postgres', 'flink'], 'sink.postgres on Flink', () => {
  beforeAll(async () => {
    admin = await adminClient();
  });

  it(
    "leaves the local engine's rows, upserted and appended exactly once",
    async () => {
      const local = await runJob('local');
      const flink = await runJob('flink');
      expect(local.upsert.length).toBe(KEYS);
      expect(local.append.length).toBe(RECORDS);
      expect(flink.upsert).toEqual(local.upsert);
      expect(flink.append).toEqual(local.append);
      expect(flink.docs).toEqual(local.docs);
    },
    2 * FLINK_TIMEOUT,
  );

  it(
    "fails with the local engine's line for a value the table refuses, and a missing table before submitting",
    async () => {
      const dir = await makeTempDir('pipewright-flink-pg-bad-');
      await writeFile(path.join(dir, 'in.jsonl'), '{"k":"a","n":1}\n{"k":"b","n":"two"}\n');
      const lines = async (table: string): Promise<[string, string]> => {
        const jobPath = path.join(dir, 'bad.job.json');
        await writeJob(jobPath, {
          format: 'pipewright.job/1',
          name: `${path.basename(dir)}-bad`,
          operators: [
            { id: 'in', kind: 'source.jsonl', params: { path: 'in.jsonl' } },
            { id: 'out', kind: 'sink.postgres', params: { connection: PG_URL, table, mode: 'append' } },
          ],
          edges: [{ id: 'e', from: 'in', to: 'out', partition: 'forward' }],
        });
        const local = await runCli(['run', jobPath, '--quiet']);
        const flink = await runCli(['flink', jobPath, '--cluster', FLINK_URL, '--quiet'], ON_FLINK);
        expect(local.code, describeRun(local)).toBe(1);
        expect(flink.code, describeRun(flink)).toBe(1);
        return [local.stderr.trim(), flink.stderr.trim()];
      };
      const [localMissing, flinkMissing] = await lines('flink_pg_no_such_table');
      expect(flinkMissing).toBe(localMissing);
      expect(flinkMissing).toMatch(
        /^pipewright: operator "out": table "flink_pg_no_such_table" does not exist in /,
      );
      const table = await makeTable('flink_pg_bad', false);
      const [localBad, flinkBad] = await lines(table);
      expect(flinkBad).toBe(localBad);
      expect(flinkBad).toBe(
        `pipewright: operator "out": table "${table}" rejects a value of column "n" (integer): invalid input syntax for type integer: "two"`,
      );
      expect(await preparedOn(admin, table)).toEqual([]);
      expect((await admin.query(`SELECT count(*)::int AS c FROM ${table}`)).rows[0].c).toBe(0);
    },
    2 * FLINK_TIMEOUT,
  );
});
