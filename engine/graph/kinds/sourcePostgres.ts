// source.postgres: a table's snapshot, then its changes by logical replication (pgoutput, a
// replication slot), the log position (LSN) in checkpoints, acknowledged once a checkpoint is
// complete. Records are { op, before, after }.
import { z } from 'zod';
import { connectionString, retryTimeoutMs } from './connectorParams.js';
import { defineKind } from './kindDescriptor.js';
import { describeFields } from './paramFields.js';

const params = z.strictObject({
  connection: connectionString('A PostgreSQL connection string, "postgres://user:password@host:port/db"'),
  table: z.string().min(1).describe('The table, "name" or "schema.name".'),
  snapshot: z.boolean().optional().describe('Read the rows already there first (default true).'),
  slot: z
    .string()
    .min(1)
    .optional()
    .describe('Replication slot name (default: made from the job and operator).'),
  publication: z
    .string()
    .min(1)
    .optional()
    .describe('Publication name (default: made from the job and operator).'),
  stopAt: z
    .enum(['current'])
    .optional()
    .describe('"current": a bounded read that ends at the log position current when the job started.'),
  retryTimeoutMs,
});

export const sourcePostgresKind = defineKind({
  kind: 'source.postgres',
  role: 'source',
  params,
  ports: { inputs: false, outputs: ['out'] },
  keyedInput: 'never',
  available: true,
  designer: {
    label: 'PostgreSQL changes',
    group: 'source',
    description: "Reads a table's rows, then every insert, update and delete as { op, before, after }.",
    idBase: 'pg',
    defaultParams: { connection: '${env:PG_URL}', table: 'orders' },
    icon: 'M3 3.5c0-1 2.2-2 5-2s5 1 5 2v9c0 1-2.2 2-5 2s-5-1-5-2z M3 3.5c0 1 2.2 2 5 2s5-1 5-2 M3 8c0 1 2.2 2 5 2s5-1 5-2',
    connectionParams: ['connection'],
    // Absent, snapshot is true: the checkbox shows that, and unchecking it writes false.
    fields: describeFields(params).map((field) =>
      field.name === 'snapshot' ? { ...field, defaultValue: true } : field,
    ),
  },
});
