// Rows as multi-row INSERT statements: rows that set the same columns go in one statement
// (VALUES ($1, $2), ($3, $4) ...), up to PostgreSQL's 65535 parameters. For upsert, ON CONFLICT
// on the key columns updates the columns the rows set. (Measured against INSERT ... SELECT FROM
// unnest($1::type[], ...): see docs, the multi-row form was as fast or faster and needs no
// array types.)
import { type PgTable, quoteIdent } from './pgTable.js';
import type { PgValue, SinkRow } from './sinkRow.js';

const MAX_PARAMETERS = 65_535;
/** Rows a statement takes at most: more gains little and makes a failure's diagnosis longer. */
export const ROWS_PER_STATEMENT = 1000;

export interface InsertStatement {
  readonly text: string;
  readonly values: PgValue[];
  readonly columns: readonly string[];
  readonly rows: number;
}

/** The statements that write `rows`, in groups of the same columns. */
export function insertStatements(
  table: PgTable,
  rows: Iterable<SinkRow>,
  keyColumns: readonly string[] | undefined,
): InsertStatement[] {
  const groups = new Map<string, { columns: string[]; rows: SinkRow[] }>();
  for (const row of rows) {
    const columns = Object.keys(row).sort();
    const signature = columns.join('\u0000');
    let group = groups.get(signature);
    if (group === undefined) {
      group = { columns, rows: [] };
      groups.set(signature, group);
    }
    group.rows.push(row);
  }
  const statements: InsertStatement[] = [];
  for (const { columns, rows: groupRows } of groups.values()) {
    const perStatement = Math.max(
      1,
      Math.min(ROWS_PER_STATEMENT, Math.floor(MAX_PARAMETERS / columns.length)),
    );
    for (let start = 0; start < groupRows.length; start += perStatement) {
      statements.push(statement(table, columns, groupRows.slice(start, start + perStatement), keyColumns));
    }
  }
  return statements;
}

function statement(
  table: PgTable,
  columns: readonly string[],
  rows: readonly SinkRow[],
  keyColumns: readonly string[] | undefined,
): InsertStatement {
  const values: PgValue[] = [];
  const tuples: string[] = [];
  for (const row of rows) {
    const placeholders: string[] = [];
    for (const column of columns) {
      values.push(row[column]!);
      placeholders.push(`$${values.length}`);
    }
    tuples.push(`(${placeholders.join(',')})`);
  }
  let text = `INSERT INTO ${table.sql} (${columns.map(quoteIdent).join(',')}) VALUES ${tuples.join(',')}`;
  if (keyColumns !== undefined) {
    const keys = new Set(keyColumns);
    const updated = columns.filter((c) => !keys.has(c));
    const conflict = `ON CONFLICT (${keyColumns.map(quoteIdent).join(',')})`;
    text +=
      updated.length === 0
        ? ` ${conflict} DO NOTHING`
        : ` ${conflict} DO UPDATE SET ${updated.map((c) => `${quoteIdent(c)} = EXCLUDED.${quoteIdent(c)}`).join(', ')}`;
  }
  return { text, values, columns, rows: rows.length };
}
