// The jobs of the sink.postgres CLI tests: generated records (the same every run, replayed from
// the generator's checkpointed position) into a table, upserted on `k` (hash-partitioned on it,
// so each key's records keep their order) or appended, and what the table must hold after a
// clean run.
import path from 'node:path';
import type pg from 'pg';
import { type JobDocument, makeTempDir, writeJob } from '../cliHarness.js';
import { PG_URL } from './servers.js';

export interface SinkRecord {
  readonly id: number;
  readonly k: number;
  readonly amount: number;
  readonly note: string | null;
  readonly data: { readonly id: number; readonly tags: readonly string[] };
}

export const TABLE_COLUMNS = 'id int, k int, amount int, note text, data jsonb';

/** `count` records over `keys` keys. */
export function sinkRecords(count: number, keys: number): SinkRecord[] {
  return Array.from({ length: count }, (_, id) => ({
    id,
    k: (id * 7919) % keys,
    amount: id * 3 - 1000,
    note: id % 5 === 0 ? null : `note ${id}`,
    data: { id, tags: id % 2 === 0 ? ['even'] : ['odd', 'x'] },
  }));
}

/** sinkRecords as a generator's code. */
export const generatorCode = (keys: number) => `function generate(i, ctx) {
  return {
    id: i,
    k: (i * 7919) % ${keys},
    amount: i * 3 - 1000,
    note: i % 5 === 0 ? null : 'note ' + i,
    data: { id: i, tags: i % 2 === 0 ? ['even'] : ['odd', 'x'] },
  };
}`;

/** The table after a clean run, as sorted JSON lines of (id, k, amount, note, data). */
export function expectedLines(records: readonly SinkRecord[], mode: 'upsert' | 'append'): string[] {
  const rows = mode === 'append' ? records : [...new Map(records.map((r) => [r.k, r])).values()];
  return rows
    .map((r) => JSON.stringify({ id: r.id, k: r.k, amount: r.amount, note: r.note, data: r.data }))
    .sort();
}

export async function createSinkTable(
  client: pg.Client,
  table: string,
  mode: 'upsert' | 'append',
): Promise<void> {
  await client.query(
    `CREATE TABLE ${table} (${TABLE_COLUMNS}${mode === 'upsert' ? ', PRIMARY KEY (k)' : ''})`,
  );
}

export interface SinkJobShape {
  readonly table: string;
  readonly count: number;
  readonly keys: number;
  readonly mode: 'upsert' | 'append';
  readonly parallelism: number;
  readonly intervalMs: number;
  readonly connection?: string;
  readonly retryTimeoutMs?: number;
  /** Records a second the source reads at most (none: as fast as it can). */
  readonly ratePerSec?: number;
}

export function sinkJob(shape: SinkJobShape): JobDocument {
  return {
    format: 'pipewright.job/1',
    name: 'pg-sink',
    settings: { checkpointIntervalMs: shape.intervalMs, checkpointsRetained: 3 },
    operators: [
      {
        id: 'input',
        kind: 'source.generator',
        params: {
          code: generatorCode(shape.keys),
          count: shape.count,
          ...(shape.ratePerSec === undefined ? {} : { ratePerSec: shape.ratePerSec }),
        },
      },
      {
        id: 'pg-out',
        kind: 'sink.postgres',
        parallelism: shape.parallelism,
        params: {
          connection: shape.connection ?? PG_URL,
          table: shape.table,
          mode: shape.mode,
          ...(shape.mode === 'upsert' ? { keyColumns: ['k'] } : {}),
          ...(shape.retryTimeoutMs === undefined ? {} : { retryTimeoutMs: shape.retryTimeoutMs }),
        },
      },
    ],
    edges: [
      shape.mode === 'upsert'
        ? { id: 'rows', from: 'input', to: 'pg-out', partition: 'hash', key: 'k' }
        : { id: 'rows', from: 'input', to: 'pg-out', partition: 'rebalance' },
    ],
  };
}

export interface SinkRunDir {
  readonly dir: string;
  readonly jobPath: string;
  readonly checkpointDir: string;
}

export async function sinkRunDir(label: string, job: JobDocument): Promise<SinkRunDir> {
  const dir = await makeTempDir(`pipewright-pgsink-${label}-`);
  const jobPath = path.join(dir, 'pg-sink.job.json');
  await writeJob(jobPath, job);
  return { dir, jobPath, checkpointDir: path.join(dir, '.pipewright', 'pg-sink', 'checkpoints') };
}
