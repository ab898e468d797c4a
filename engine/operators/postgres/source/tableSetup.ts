// What a fresh start of source.postgres does on the server before it reads: the table checked
// (it exists; the server's wal_level is logical), its publication made if absent or checked to
// publish the table, and the lines that say what is wrong when they fail, naming the operator.

import type pg from 'pg';
import { JobError } from '../../../graph/jobError.js';

/** The table as the server resolved it. */
export interface ResolvedTable {
  readonly schema: string;
  readonly name: string;
  /** pg_class.reltuples: the planner's estimate (-1 before the first ANALYZE). */
  readonly rowEstimate: number;
}

export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

export function qualifiedName(table: ResolvedTable): string {
  return `${quoteIdent(table.schema)}.${quoteIdent(table.name)}`;
}

/** The table named "name" or "schema.name" (the search path finds a bare name), or a JobError. */
export async function resolveTable(
  client: pg.Client,
  table: string,
  operatorId: string,
): Promise<ResolvedTable> {
  const result = await client.query<{ schema: string; name: string; reltuples: number }>(
    `SELECT n.nspname AS schema, c.relname AS name, c.reltuples::float8 AS reltuples
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE c.oid = to_regclass($1) AND c.relkind IN ('r', 'p')`,
    [table],
  );
  const row = result.rows[0];
  if (row === undefined) {
    throw new JobError(`operator "${operatorId}": table "${table}" does not exist`, operatorId);
  }
  return { schema: row.schema, name: row.name, rowEstimate: Number(row.reltuples) };
}

/** The line a server whose wal_level is not logical gets. */
export function walLevelProblem(operatorId: string, walLevel: string): string {
  return `operator "${operatorId}": the server's wal_level is "${walLevel}", and reading changes needs "logical" (set wal_level = logical in postgresql.conf and restart the server)`;
}

export async function checkWalLevel(client: pg.Client, operatorId: string): Promise<void> {
  const result = await client.query<{ wal_level: string }>('SHOW wal_level');
  const level = result.rows[0]?.wal_level ?? 'unknown';
  if (level !== 'logical') throw new JobError(walLevelProblem(operatorId, level), operatorId);
}

/**
 * Makes the publication for the table unless one of that name is there; one that is there must
 * publish the table (checkPublication).
 */
export async function ensurePublication(
  client: pg.Client,
  publication: string,
  table: ResolvedTable,
  operatorId: string,
): Promise<void> {
  const found = await client.query('SELECT 1 FROM pg_publication WHERE pubname = $1', [publication]);
  if (found.rowCount === 0) {
    try {
      await client.query(`CREATE PUBLICATION ${quoteIdent(publication)} FOR TABLE ${qualifiedName(table)}`);
      return;
    } catch (error) {
      // Another run made it between the two statements: use it, if it publishes the table.
      if ((error as { code?: string }).code !== '42710') throw error;
    }
  }
  await checkPublication(client, publication, table, operatorId);
}

/**
 * A publication that does not publish the table streams none of its changes, without a word from
 * the server: refused here, in one line naming the operator, the publication and the table.
 */
export async function checkPublication(
  client: pg.Client,
  publication: string,
  table: { readonly schema: string; readonly name: string },
  operatorId: string,
): Promise<void> {
  const published = await client.query<{ schemaname: string; tablename: string }>(
    'SELECT schemaname, tablename FROM pg_publication_tables WHERE pubname = $1 ORDER BY schemaname, tablename',
    [publication],
  );
  if (published.rows.some((row) => row.schemaname === table.schema && row.tablename === table.name)) return;
  const exists = await client.query('SELECT 1 FROM pg_publication WHERE pubname = $1', [publication]);
  const wanted = `${table.schema}.${table.name}`;
  if (exists.rowCount === 0) {
    throw new JobError(
      `operator "${operatorId}": publication "${publication}" does not exist (dropped while the job was away?), so the changes of table "${wanted}" cannot be read: start the job fresh`,
      operatorId,
    );
  }
  const shown = published.rows.slice(0, 5).map((row) => `"${row.schemaname}.${row.tablename}"`);
  const more = published.rows.length - shown.length;
  const publishes =
    published.rows.length === 0
      ? 'it publishes no table'
      : `it publishes ${shown.join(', ')}${more > 0 ? ` and ${more} more` : ''}`;
  throw new JobError(
    `operator "${operatorId}": publication "${publication}" does not publish table "${wanted}" (${publishes}): name a publication that does, or add the table to it (ALTER PUBLICATION ${quoteIdent(publication)} ADD TABLE ${qualifiedName({ ...table, rowEstimate: 0 })})`,
    operatorId,
  );
}

/** Drops a slot of that name left by a fresh start that crashed before its first checkpoint. */
export async function dropLeftoverSlot(client: pg.Client, slot: string): Promise<void> {
  await client.query(
    'SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = $1',
    [slot],
  );
}

/**
 * Prepared transactions pending in the server: making a slot waits until they end (its
 * snapshot must follow every transaction in progress), which may be long.
 */
export async function preparedTransactions(client: pg.Client): Promise<number> {
  const result = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_prepared_xacts');
  return result.rows[0]?.n ?? 0;
}

/**
 * The server's current end of the log: where a bounded read (stopAt "current") ends. The insert
 * position, not pg_current_wal_lsn()'s write position: with synchronous_commit off a commit
 * returns before its record is written, so the write position can lie short of transactions
 * already committed (every time, measured here), and the read would end before them.
 */
export async function currentLsn(client: pg.Client): Promise<string> {
  const result = await client.query<{ lsn: string }>('SELECT pg_current_wal_insert_lsn()::text AS lsn');
  return result.rows[0]!.lsn;
}

/** The line for errors a fresh start or a restore meets that no retry mends, if it is one. */
export function setupProblem(error: unknown, operatorId: string, slot: string): string | undefined {
  const code = (error as { code?: string }).code;
  const message = error instanceof Error ? error.message : String(error);
  if (code === '28P01' || code === '28000')
    return `operator "${operatorId}": the server refused the login: ${message}`;
  if (code === '3D000') return `operator "${operatorId}": ${message}`;
  if (code === '42501' && /replication/i.test(message)) {
    return `operator "${operatorId}": its user may not read changes (${message}): grant it REPLICATION (ALTER ROLE ... REPLICATION)`;
  }
  if (code === '42704' && /slot/.test(message)) {
    return `operator "${operatorId}": replication slot "${slot}" is gone (dropped while the job was away), so the changes since its checkpoint cannot be read: start the job fresh`;
  }
  if (code === '53400') {
    return `operator "${operatorId}": the server has no free replication slot (max_replication_slots): ${message}`;
  }
  return undefined;
}
