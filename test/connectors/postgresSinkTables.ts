// What the sink.postgres tests share: an admin connection to the test server, tables with
// unique names made and dropped (after rolling back whatever prepared transaction still holds
// them), and a table's rows as sorted lines to compare.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { PG_URL } from './servers.js';

export async function adminClient(url = PG_URL): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return client;
}

/** A table name no other test uses. */
export const uniqueTable = (prefix: string) => `${prefix}_${randomBytes(5).toString('hex')}`;

/** Prepared transactions that hold a lock on `table`. */
export async function preparedOn(client: pg.Client, table: string): Promise<string[]> {
  const { rows } = await client.query<{ gid: string }>(
    `SELECT DISTINCT p.gid FROM pg_prepared_xacts p
       JOIN pg_locks x ON x.locktype = 'transactionid' AND x.transactionid = p.transaction AND x.pid IS NULL
       JOIN pg_locks r ON r.virtualtransaction = x.virtualtransaction AND r.locktype = 'relation' AND r.relation = to_regclass($1)`,
    [table],
  );
  return rows.map((r) => r.gid);
}

/** Drops `table`, first rolling back prepared transactions a failed test left on it (they would block the drop). */
export async function dropTable(client: pg.Client, table: string): Promise<void> {
  for (const gid of await preparedOn(client, table)) await client.query(`ROLLBACK PREPARED '${gid}'`);
  await client.query(`DROP TABLE IF EXISTS ${table}`);
}

/** The table's rows as JSON lines, sorted: a multiset to compare. */
export async function tableLines(client: pg.Client, table: string, columns: string): Promise<string[]> {
  const { rows } = await client.query(`SELECT ${columns} FROM ${table}`);
  return rows.map((r) => JSON.stringify(r)).sort();
}
