// sink.postgres: records as rows; "upsert" on key columns (a replay writes the same rows again) or
// "append", exactly once through PREPARE TRANSACTION at the barrier and COMMIT PREPARED when the
// checkpoint completes. keyColumns for upsert (and only for upsert) is checked by its checkParams,
// below the schema.
import { z } from 'zod';
import { connectionString, retryTimeoutMs } from './connectorParams.js';
import { defineKind, type ParamProblem } from './kindDescriptor.js';

export const sinkPostgresKind = defineKind({
  kind: 'sink.postgres',
  role: 'sink',
  params: z.strictObject({
    connection: connectionString('A PostgreSQL connection string, "postgres://user:password@host:port/db"'),
    table: z
      .string()
      .min(1)
      .describe('The table, "name" or "schema.name"; a record\'s fields are its columns.'),
    mode: z
      .enum(['upsert', 'append'])
      .describe(
        '"upsert": insert or update on keyColumns; "append": insert, exactly once by two-phase commit.',
      ),
    keyColumns: z
      .array(z.string().min(1))
      .min(1)
      .optional()
      .describe('The columns a row is identified by (upsert).'),
    retryTimeoutMs,
  }),
  ports: { inputs: true, outputs: [] },
  keyedInput: 'never',
  available: true,
  designer: {
    label: 'PostgreSQL table',
    group: 'sink',
    description: 'Writes records as rows: upsert on key columns, or append exactly once.',
    idBase: 'pg-out',
    defaultParams: { connection: '${env:PG_URL}', table: 'results', mode: 'upsert', keyColumns: ['id'] },
    icon: 'M3 3.5c0-1 2.2-2 5-2s5 1 5 2v9c0 1-2.2 2-5 2s-5-1-5-2z M3 3.5c0 1 2.2 2 5 2s5-1 5-2 M3 8c0 1 2.2 2 5 2s5-1 5-2',
    connectionParams: ['connection'],
    // Key columns are what an upsert finds its row by, and an append refuses them.
    fieldConditions: { keyColumns: { field: 'mode', oneOf: ['upsert'], required: true } },
  },
  checkParams: postgresSinkProblems,
});

/** Key columns for an upsert, and none for an append (which would not use them). */
function postgresSinkProblems(params: Readonly<Record<string, unknown>>): ParamProblem[] {
  if (params.mode === 'upsert' && params.keyColumns === undefined) {
    return [
      {
        code: 'required',
        path: ['keyColumns'],
        message: 'mode "upsert" needs params.keyColumns, the columns a row is identified by',
      },
    ];
  }
  if (params.mode === 'append' && params.keyColumns !== undefined) {
    return [
      {
        code: 'invalid-value',
        path: ['keyColumns'],
        message:
          'params.keyColumns is used only with mode "upsert" (this sink appends every record as a new row)',
      },
    ];
  }
  return [];
}
