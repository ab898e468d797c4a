// source.postgres: a table's rows, then its changes by logical replication (pgoutput through a
// replication slot), as { op, before, after } records. One split, read by the first subtask;
// see postgresReader.ts for how it reads and what a checkpoint holds.
import { createHash } from 'node:crypto';
import { JobError } from '../../../graph/jobError.js';
import type { ParamsOf } from '../../../graph/schema.js';
import type { Source } from '../../../runtime/source.js';
import { describeCause } from '../../connectors/serverRetry.js';
import type { ConnectionCheck, KindFactory } from '../../kindFactory.js';
import { postgresServer } from '../pgErrors.js';
import { PgClient } from '../pgPackages.js';
import { SESSION_OPTIONS } from './pgValues.js';
import { PostgresReader } from './postgresReader.js';
import { type PostgresSplit, postgresEnumerator, postgresSerializer } from './postgresSplit.js';
import { resolveTable, setupProblem, walLevelProblem } from './tableSetup.js';

/** PostgreSQL's identifiers are at most 63 bytes. */
const MAX_NAME = 63;

/**
 * The default slot and publication name, one per job and operator: "pipewright_", a hash of the
 * job's folder, the job's name and the operator id, then the job's name and the operator id in
 * slot-name letters (lower case, other characters as "_") for whoever reads the server's list,
 * cut to 63 bytes. The hash is never cut, so two jobs of one folder, or two long names that
 * differ only past the cut, never share one. A checkpoint keeps the names its split was made with
 * (postgresSplit.ts), so a restore uses those even where this default changed.
 */
export function defaultName(jobDir: string, jobName: string, operatorId: string): string {
  const hash = createHash('sha256').update(`${jobDir}\0${jobName}\0${operatorId}`).digest('hex').slice(0, 12);
  const words = `${jobName}_${operatorId}`.toLowerCase().replace(/[^a-z0-9_]/g, '_');
  return `pipewright_${hash}_${words}`.slice(0, MAX_NAME);
}

export function postgresSource(
  jobDir: string,
  jobName: string,
  operatorId: string,
  params: ParamsOf<'source.postgres'>,
): Source<PostgresSplit> {
  const name = defaultName(jobDir, jobName, operatorId);
  const fresh: PostgresSplit = {
    fresh: true,
    slot: params.slot ?? name,
    publication: params.publication ?? name,
  };
  return {
    waitsOnWorld: true,
    splitKind: 'source.postgres',
    serializer: postgresSerializer,
    enumerator: postgresEnumerator(fresh),
    createReader: (env) => new PostgresReader(env, params),
  };
}

/** Does the server answer (its version), does the table exist (its row estimate), is wal_level logical. */
async function testConnection(
  params: Readonly<Record<string, unknown>>,
  operatorId: string,
): Promise<ConnectionCheck> {
  const { connection, table } = params as ParamsOf<'source.postgres'>;
  const server = postgresServer(connection);
  const client = new PgClient({
    connectionString: connection,
    options: SESSION_OPTIONS,
    connectionTimeoutMillis: 5000,
  });
  client.on('error', () => {});
  try {
    await client.connect();
    const version = (await client.query<{ server_version: string }>('SHOW server_version')).rows[0]!
      .server_version;
    const walLevel = (await client.query<{ wal_level: string }>('SHOW wal_level')).rows[0]!.wal_level;
    const resolved = await resolveTable(client, table, operatorId);
    const rows =
      resolved.rowEstimate < 0 ? 'no row estimate yet' : `about ${Math.round(resolved.rowEstimate)} rows`;
    const answer = `${server} answers (PostgreSQL ${version.split(' ')[0]}); table "${resolved.schema}.${resolved.name}" has ${rows}`;
    if (walLevel !== 'logical')
      return {
        ok: false,
        message: `${answer}, but ${walLevelProblem(operatorId, walLevel).replace(/^operator "[^"]*": /, '')}`,
      };
    return { ok: true, message: `${answer}; wal_level is logical` };
  } catch (error) {
    const line =
      error instanceof JobError
        ? error.message
        : (setupProblem(error, operatorId, '') ?? `${server}: ${describeCause(error)}`);
    return { ok: false, message: line.replace(/^operator "[^"]*": /, '') };
  } finally {
    await client.end().catch(() => {});
  }
}

export const sourcePostgresFactory: KindFactory = {
  role: 'source',
  createSource: ({ planned, jobDir, jobName }) =>
    postgresSource(
      jobDir,
      jobName,
      planned.id,
      planned.operator.params as ParamsOf<'source.postgres'>,
    ) as Source<unknown>,
  testConnection,
};
