// A statement the server refused for its data, as one line naming the column. PostgreSQL's
// "invalid input syntax for type integer" does not say which column: the values of each column
// the statement wrote are written on their own into a scratch table until one fails. (Only on the failure
// path: the batch is not slowed for it.)
import type pg from 'pg';
import { JobError } from '../../../graph/jobError.js';
import { describeCause } from '../../connectors/serverRetry.js';
import { sqlState } from '../pgErrors.js';
import type { InsertStatement } from './insertStatements.js';
import type { PgTable } from './pgTable.js';

/** Whether the server refused the rows themselves (a data exception or a violated constraint). */
export function isDataError(error: unknown): boolean {
  const state = sqlState(error);
  return state !== undefined && (state.startsWith('22') || state.startsWith('23'));
}

export async function rejectedValue(
  client: pg.Client,
  error: unknown,
  table: PgTable,
  tableName: string,
  statement: InsertStatement,
  operatorId: string,
): Promise<JobError> {
  const cause = describeCause(error);
  const fail = (what: string) =>
    new JobError(`operator "${operatorId}": table "${tableName}" ${what}`, operatorId);
  if (sqlState(error)?.startsWith('23')) return fail(`rejects a row: ${cause}`);
  // The failed statement may have left a transaction aborted: nothing more is written anyway.
  await client.query('ROLLBACK').catch(() => {});
  for (const [c, name] of statement.columns.entries()) {
    const column = table.columns.get(name)!;
    const values = statement.columnValues[c]!;
    // Into a scratch table of the column's type, as the statement put them: the same input
    // function and length checks (a cast would cut a too long varchar instead of failing).
    const tuples = values.map((_, i) => `($${i + 1})`).join(',');
    try {
      await client.query('BEGIN');
      await client.query(`CREATE TEMP TABLE pipewright_probe (v ${column.type}) ON COMMIT DROP`);
      await client.query(`INSERT INTO pipewright_probe (v) VALUES ${tuples}`, values);
    } catch (probeError) {
      return fail(
        `rejects a value of column "${column.name}" (${column.type}): ${describeCause(probeError)}`,
      );
    } finally {
      await client.query('ROLLBACK').catch(() => {});
    }
  }
  return fail(`rejects a row: ${cause}`);
}
