// What a sink's writer learns when it opens, and what testConnection checks: the server answers
// (waited for, within retryTimeoutMs), the table exists with its columns, upsert's key columns
// have a unique index, append's server allows prepared transactions.
import { JobError } from '../../../graph/jobError.js';
import type { ParamsOf } from '../../../graph/schema.js';
import type { PgSession } from './pgSession.js';
import { checkKeyColumns, describeTable, type PgTable } from './pgTable.js';

export type SinkPostgresParams = ParamsOf<'sink.postgres'>;

export async function openSinkTable(
  session: PgSession,
  params: SinkPostgresParams,
  operatorId: string,
): Promise<PgTable> {
  const action = `reading table "${params.table}"`;
  try {
    return await session.run(action, async (client) => {
      const table = await describeTable(client, params.table, operatorId, session.server);
      if (params.mode === 'upsert') {
        checkKeyColumns(table, params.keyColumns ?? [], params.table, operatorId);
      } else {
        const { rows } = await client.query<{ max_prepared_transactions: string }>(
          'SHOW max_prepared_transactions',
        );
        if (Number(rows[0]?.max_prepared_transactions ?? 0) === 0) {
          throw new JobError(
            `operator "${operatorId}": ${session.server} has max_prepared_transactions = 0, and mode "append" writes exactly once through prepared transactions: set max_prepared_transactions (at least the sink's parallelism times 2) in postgresql.conf and restart the server, or use mode "upsert"`,
            operatorId,
          );
        }
      }
      return table;
    });
  } catch (error) {
    throw session.failure(error, action);
  }
}
