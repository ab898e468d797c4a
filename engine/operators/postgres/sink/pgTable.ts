// The table a sink writes, as the server describes it when the sink opens: its name as SQL, its
// columns and their types, and the column sets that have a unique index (what ON CONFLICT can
// name). A missing table, a key column it lacks, or keys without a unique index are errors then,
// before any row is written.
import type pg from 'pg';
import { JobError } from '../../../graph/jobError.js';

export interface TableColumn {
  readonly name: string;
  /** As format_type gives it: "integer", "text", "jsonb", "numeric(10,2)". */
  readonly type: string;
  /** The type without its modifier ("character varying" for "character varying(6)"). */
  readonly base: string;
}

export interface PgTable {
  /** The table as SQL: quoted where needed, schema-qualified when not on the search path. */
  readonly sql: string;
  readonly columns: ReadonlyMap<string, TableColumn>;
  /** Each unique index (without predicate or expressions) as its column names. */
  readonly uniqueKeys: readonly (readonly string[])[];
}

const DESCRIBE = `
SELECT c.oid::regclass::text AS name,
  (SELECT json_agg(json_build_object('name', a.attname, 'type', format_type(a.atttypid, a.atttypmod), 'base', format_type(a.atttypid, NULL)) ORDER BY a.attnum)
     FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped) AS columns,
  (SELECT json_agg(ARRAY(SELECT a.attname FROM unnest(i.indkey::int2[]) k JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = k)::text[])
     FROM pg_index i WHERE i.indrelid = c.oid AND i.indisunique AND i.indpred IS NULL AND i.indexprs IS NULL) AS unique_keys
FROM pg_class c WHERE c.oid = to_regclass($1) AND c.relkind IN ('r', 'p')`;

export const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** The table, or a JobError naming the operator when it does not exist. */
export async function describeTable(
  client: pg.Client,
  table: string,
  operatorId: string,
  server: string,
): Promise<PgTable> {
  const { rows } = await client.query<{
    name: string;
    columns: TableColumn[] | null;
    unique_keys: string[][] | null;
  }>(DESCRIBE, [table]);
  const row = rows[0];
  if (row === undefined) {
    throw new JobError(`operator "${operatorId}": table "${table}" does not exist in ${server}`, operatorId);
  }
  return {
    sql: row.name,
    columns: new Map((row.columns ?? []).map((c) => [c.name, c])),
    uniqueKeys: row.unique_keys ?? [],
  };
}

/**
 * Upsert: every key column exists and the key columns are exactly a unique index's (ON CONFLICT
 * needs one to find the row); else a JobError saying which.
 */
export function checkKeyColumns(
  table: PgTable,
  keyColumns: readonly string[],
  name: string,
  operatorId: string,
): void {
  for (const key of keyColumns) {
    if (!table.columns.has(key)) {
      throw new JobError(
        `operator "${operatorId}": key column "${key}" is not a column of table "${name}"`,
        operatorId,
      );
    }
  }
  const wanted = new Set(keyColumns);
  const indexed = table.uniqueKeys.some(
    (key) => key.length === wanted.size && key.every((c) => wanted.has(c)),
  );
  if (!indexed) {
    throw new JobError(
      `operator "${operatorId}": table "${name}" has no primary key or unique index on (${keyColumns.join(', ')}), which upsert needs (ON CONFLICT finds the row by it)`,
      operatorId,
    );
  }
}
