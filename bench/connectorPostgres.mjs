// The connectors suite's PostgreSQL part: a source table filled from a keyed JSONL input before
// the runs, a target table, replication slot and publication per run (removed after its check, so
// that no slot is left holding the server's log), and the engine job and the hand-written script
// measured on it.
import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import pg from 'pg';
import { finalDigest } from './connectorVerify.mjs';
import { clean, runBaseline, runEngine, writeJob } from './engineRun.mjs';

export const PG_URL =
  process.env.PIPEWRIGHT_PG_URL ?? 'postgres://pipewright:pipewright@127.0.0.1:5432/pipewright';

async function withClient(use) {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

export async function postgresProblem() {
  try {
    await withClient((c) => c.query('SELECT 1'));
    return undefined;
  } catch (e) {
    return `no PostgreSQL answers at ${PG_URL.replace(/:[^:@/]*@/, ':***@')} (${e.message.split('\n')[0]})`;
  }
}

/**
 * The source table `bench_conn_src_<run>` (id, k, v) holding the input's records in order, and
 * `bench_conn_one_<run>` holding its first row.
 */
export async function postgresSetup(d, log) {
  const run = randomBytes(3).toString('hex');
  const source = `bench_conn_src_${run}`;
  // Its first row alone: the same job on it costs what a run costs whatever its size (start-up,
  // connections, slot, shutdown), the fixed part of each CPU figure.
  const oneRow = `bench_conn_one_${run}`;
  log(`connectors: inserting ${d.records} rows into ${source}`);
  await withClient(async (c) => {
    await c.query(`CREATE TABLE ${source} (id integer PRIMARY KEY, k text NOT NULL, v integer NOT NULL)`);
    const rl = createInterface({ input: createReadStream(d.path), crlfDelay: Number.POSITIVE_INFINITY });
    let ids = [];
    let ks = [];
    let vs = [];
    const flush = async () => {
      if (ids.length === 0) return;
      await c.query(`INSERT INTO ${source} SELECT * FROM unnest($1::integer[], $2::text[], $3::integer[])`, [
        ids,
        ks,
        vs,
      ]);
      ids = [];
      ks = [];
      vs = [];
    };
    let id = 0;
    for await (const line of rl) {
      if (line.length === 0) continue;
      const r = JSON.parse(line);
      ids.push(++id);
      ks.push(r.k);
      vs.push(r.v);
      if (ids.length === 10_000) await flush();
    }
    await flush();
    await c.query(`ANALYZE ${source}`);
    await c.query(`CREATE TABLE ${oneRow} AS SELECT * FROM ${source} WHERE id = 1`);
    await c.query(`ALTER TABLE ${oneRow} ADD PRIMARY KEY (id)`);
  });
  return {
    run,
    source,
    oneRow,
    drop: () => withClient((c) => c.query(`DROP TABLE IF EXISTS ${source}, ${oneRow}`)),
  };
}

/** A target table for one run, and what it leaves on the server to remove after. */
async function makeTarget(name) {
  await withClient((c) =>
    c.query(`CREATE TABLE ${name} (k text PRIMARY KEY, n integer NOT NULL, sum bigint NOT NULL)`),
  );
}

async function dropRun(target, slot) {
  await withClient(async (c) => {
    await c.query(`DROP TABLE IF EXISTS ${target}`);
    if (slot) {
      await c.query(
        'SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = $1',
        [slot],
      );
      await c.query(`DROP PUBLICATION IF EXISTS ${slot}`);
    }
  });
}

/** The target's rows against the expected final values (count and digest). */
async function checkTarget(target, expected) {
  const { rows } = await withClient((c) => c.query(`SELECT k, n, sum FROM ${target}`));
  if (rows.length !== expected.keys) return `${rows.length} rows in ${target}, expected ${expected.keys}`;
  const values = new Map(rows.map((r) => [r.k, { n: Number(r.n), sum: Number(r.sum) }]));
  if (finalDigest(values) !== expected.digest) return `the rows of ${target} differ from the expected ones`;
  return undefined;
}

/**
 * The script and the engine job (snapshot, stopAt "current", upsert), each run on a fresh target:
 * on the whole table, and (`fixed`) on its first row alone.
 */
export function postgresConfigs({ d, expected, setup, ctx, code, checkpointMs }) {
  let round = 0;
  let target;
  let slot;
  const verify = async () => {
    try {
      return await checkTarget(target, expected);
    } finally {
      await dropRun(target, slot);
    }
  };
  const verifyOne = async () => {
    try {
      const { rows } = await withClient((c) => c.query(`SELECT n FROM ${target}`));
      return rows.length === 1 && Number(rows[0].n) === 1 ? undefined : `${target} does not hold the one row`;
    } finally {
      await dropRun(target, slot);
    }
  };
  const stateDir = join(ctx.stateDir, 'connectors-pg');
  const script = (source) => async () => {
    target = `bench_conn_dst_${setup.run}_${round++}`;
    slot = undefined;
    await makeTarget(target);
    return runBaseline(
      'postgres-keyed-upsert.mjs',
      { url: PG_URL, source, target },
      { timeoutMs: 20 * 60_000 },
    );
  };
  const engine = (source) => async () => {
    target = `bench_conn_dst_${setup.run}_${round++}`;
    slot = `bench_conn_slot_${setup.run}_${round}`;
    await makeTarget(target);
    const job = postgresJob('connectors-pg', source, target, slot, code, checkpointMs);
    const jobPath = writeJob(join(ctx.jobsDir, 'connectors-pg.job.json'), job);
    return runEngine(jobPath, {
      entry: ctx.engineEntry,
      stateDir,
      timeoutMs: 20 * 60_000,
      extraArgs: ['--threads', '1'],
    });
  };
  return [
    {
      id: 'pg-script',
      label: 'baseline: script, pg, Map, pages of 5,000 rows, one upsert and commit per page',
      records: d.records,
      kind: 'baseline',
      prepare: () => {},
      run: script(setup.source),
      verify,
    },
    {
      id: 'pg-engine',
      label: `engine: snapshot, upsert exactly once, checkpoints every ${checkpointMs / 1000} s`,
      records: d.records,
      kind: 'engine',
      stateDir,
      prepare: () => clean(stateDir),
      run: engine(setup.source),
      verify,
    },
    {
      id: 'pg-script-fixed',
      label: 'baseline on the first row alone',
      records: 1,
      kind: 'baseline',
      fixed: true,
      prepare: () => {},
      run: script(setup.oneRow),
      verify: verifyOne,
    },
    {
      id: 'pg-engine-fixed',
      label: 'engine on the first row alone',
      records: 1,
      kind: 'engine',
      fixed: true,
      stateDir,
      prepare: () => clean(stateDir),
      run: engine(setup.oneRow),
      verify: verifyOne,
    },
  ];
}

/** rows (source.postgres, bounded) -> acc (process, hash on after.k) -> out (sink.postgres upsert). */
function postgresJob(name, source, target, slot, code, checkpointIntervalMs) {
  return {
    format: 'pipewright.job/1',
    name,
    settings: { maxParallelism: 128, stateBackend: 'memory', checkpointIntervalMs },
    operators: [
      {
        id: 'rows',
        kind: 'source.postgres',
        parallelism: 1,
        params: { connection: PG_URL, table: source, slot, publication: slot, stopAt: 'current' },
      },
      { id: 'acc', kind: 'process', parallelism: 1, params: { code } },
      {
        id: 'out',
        kind: 'sink.postgres',
        parallelism: 1,
        params: { connection: PG_URL, table: target, mode: 'upsert', keyColumns: ['k'] },
      },
    ],
    edges: [
      { id: 'e1', from: 'rows', to: 'acc', partition: 'hash', key: 'after.k' },
      { id: 'e2', from: 'acc', to: 'out', partition: 'forward' },
    ],
  };
}
