// A statement the server refused for its data, as one line naming the column. PostgreSQL's
// "invalid input syntax for type integer" does not say which column: the values of each column
// the statement wrote are cast to its type on their own until one fails. (Only on the failure
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
  const width = statement.columns.length;
  for (let c = 0; c < width; c++) {
    const column = table.columns.get(statement.columns[c]!)!;
    const texts: (string | null)[] = [];
    for (let i = c; i < statement.values.length; i += width) {
      const value = statement.values[i];
      texts.push(value === null || value === undefined ? null : String(value));
    }
    try {
      await client.query(`SELECT v::${column.type} FROM unnest($1::text[]) AS v`, [texts]);
    } catch (castError) {
      return fail(`rejects a value of column "${column.name}" (${column.type}): ${describeCause(castError)}`);
    }
  }
  return fail(`rejects a row: ${cause}`);
}
