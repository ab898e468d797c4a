// Rows as INSERT statements: rows that set the same columns go in one statement, as one array
// per column, INSERT ... SELECT * FROM unnest($1::integer[], $2::text[], ...). Measured against
// multi-row VALUES ($1, $2), ($3, $4) ... (100k rows of 5 columns, batches of 1000): unnest wrote
// 1.5-1.9x the rows a second for plain inserts and 1.0-1.3x for upserts, with one parameter a
// column rather than one a value. A group with an array-typed column uses VALUES (unnest would
// flatten its arrays). For upsert, ON CONFLICT on the key columns updates the columns the rows set.
import { arrayLiteral } from './arrayLiteral.js';
import { type PgTable, quoteIdent } from './pgTable.js';
import type { PgValue, SinkRow } from './sinkRow.js';

const MAX_PARAMETERS = 65_535;
/**
 * Rows a statement takes at most. Each statement is a round trip the sink's subtask may wait
 * for: in the connectors benchmark (200,000 upserts over 20,000 keys, one thread) 5000 (with
 * the source's batches of 5000) took the job from 6.9-7.8 s to 5.7-6.6 s, best of 3 each.
 */
export const ROWS_PER_STATEMENT = 5000;

export interface InsertStatement {
  readonly text: string;
  readonly parameters: unknown[];
  readonly columns: readonly string[];
  /** The values of each column, in `columns` order. */
  readonly columnValues: readonly PgValue[][];
  readonly rows: number;
}

/** The statements that write `rows`, in groups of the same columns. */
export function insertStatements(
  table: PgTable,
  rows: Iterable<SinkRow>,
  keyColumns: readonly string[] | undefined,
): InsertStatement[] {
  const groups = new Map<string, { columns: string[]; rows: SinkRow[] }>();
  // Rows made from records of one shape list their fields in one order: a row whose fields are
  // the previous row's, in the same order, joins its group without a sorted signature made for it.
  let lastFields: string[] = [];
  let lastGroup: { columns: string[]; rows: SinkRow[] } | undefined;
  for (const row of rows) {
    if (lastGroup === undefined || !sameFields(row, lastFields)) {
      const fields = Object.keys(row);
      const columns = [...fields].sort();
      const signature = columns.join('\u0000');
      lastGroup = groups.get(signature);
      if (lastGroup === undefined) {
        lastGroup = { columns, rows: [] };
        groups.set(signature, lastGroup);
      }
      lastFields = fields;
    }
    lastGroup.rows.push(row);
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

/** Whether `row`'s fields are `fields`, in that order (for...in: no array made per row). */
function sameFields(row: SinkRow, fields: readonly string[]): boolean {
  let i = 0;
  for (const field in row) if (field !== fields[i++]) return false;
  return i === fields.length;
}

function statement(
  table: PgTable,
  columns: readonly string[],
  rows: readonly SinkRow[],
  keyColumns: readonly string[] | undefined,
): InsertStatement {
  const columnValues = columns.map((column) => rows.map((row) => row[column]!));
  // Arrays of the base type: a cast to varchar(6)[] would cut a longer string where the insert's
  // own assignment to the column refuses it.
  const types = columns.map((column) => table.columns.get(column)!.base);
  let text = `INSERT INTO ${table.sql} (${columns.map(quoteIdent).join(',')}) `;
  let parameters: unknown[];
  if (types.some((type) => type.endsWith(']'))) {
    parameters = [];
    const tuples: string[] = [];
    for (let r = 0; r < rows.length; r++) {
      const placeholders = columnValues.map((values) => {
        parameters.push(values[r]);
        return `$${parameters.length}`;
      });
      tuples.push(`(${placeholders.join(',')})`);
    }
    text += `VALUES ${tuples.join(',')}`;
  } else {
    parameters = columnValues.map(arrayLiteral);
    text += `SELECT * FROM unnest(${types.map((type, i) => `$${i + 1}::${type}[]`).join(', ')})`;
  }
  if (keyColumns !== undefined) {
    const keys = new Set(keyColumns);
    const updated = columns.filter((c) => !keys.has(c));
    const conflict = `ON CONFLICT (${keyColumns.map(quoteIdent).join(',')})`;
    text +=
      updated.length === 0
        ? ` ${conflict} DO NOTHING`
        : ` ${conflict} DO UPDATE SET ${updated.map((c) => `${quoteIdent(c)} = EXCLUDED.${quoteIdent(c)}`).join(', ')}`;
  }
  return { text, parameters, columns, columnValues, rows: rows.length };
}
