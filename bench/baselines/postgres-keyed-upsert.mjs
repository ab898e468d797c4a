#!/usr/bin/env node
// Baseline: the keyed read-modify-write from a PostgreSQL table to a PostgreSQL table, written by
// hand with pg:
//   node bench/baselines/postgres-keyed-upsert.mjs --url URL --source TABLE --target TABLE
// Reads the source's rows (id, k, v) in id order, a page of 5,000 at a time (keyset pagination,
// inside one REPEATABLE READ transaction, so that it sees one snapshot as source.postgres does),
// keeps {n, sum} per key in a Map, and upserts each page's last value per key into the target on
// a second connection, one transaction per page.
import pg from 'pg';
import { parseArgs } from './args.mjs';

const opt = parseArgs(process.argv.slice(2), { url: '', source: '', target: '', page: 5000 });

const reader = new pg.Client({ connectionString: opt.url });
const writer = new pg.Client({ connectionString: opt.url });
await Promise.all([reader.connect(), writer.connect()]);

const state = new Map();
await reader.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
let last = 0;
for (;;) {
  const { rows } = await reader.query(
    `SELECT id, k, v FROM ${opt.source} WHERE id > $1 ORDER BY id LIMIT $2`,
    [last, opt.page],
  );
  if (rows.length === 0) break;
  last = rows[rows.length - 1].id;
  const changed = new Map();
  for (const r of rows) {
    let a = state.get(r.k);
    if (a === undefined) {
      a = { n: 0, sum: 0 };
      state.set(r.k, a);
    }
    a.n += 1;
    a.sum += r.v;
    changed.set(r.k, a);
  }
  const ks = [...changed.keys()];
  await writer.query(
    `INSERT INTO ${opt.target} (k, n, sum) SELECT * FROM unnest($1::text[], $2::integer[], $3::bigint[])
     ON CONFLICT (k) DO UPDATE SET n = EXCLUDED.n, sum = EXCLUDED.sum`,
    [ks, ks.map((k) => changed.get(k).n), ks.map((k) => changed.get(k).sum)],
  );
}
await reader.query('COMMIT');
await Promise.all([reader.end(), writer.end()]);
