// A record as a row: its fields are the columns it sets. A field the table has no column for is
// an error (as a Flink INSERT naming a column the sink table lacks), not silently dropped: a typo
// would otherwise lose data. A column the record lacks is not written: an insert gives it its
// default, an upsert's update leaves it as it was. Values go as they are (strings, numbers,
// booleans, null); objects and arrays as JSON text, and json/jsonb columns take every value as
// JSON (so a string is a JSON string there).
import { JobError } from '../../../graph/jobError.js';
import type { PgTable } from './pgTable.js';

export type PgValue = string | number | boolean | null;
export type SinkRow = Record<string, PgValue>;

const isJsonType = (type: string) => type === 'json' || type === 'jsonb';

export function toRow(record: unknown, table: PgTable, tableName: string, operatorId: string): SinkRow {
  if (record === null || typeof record !== 'object' || Array.isArray(record)) {
    throw new JobError(
      `operator "${operatorId}": a record for table "${tableName}" must be an object (its fields are the columns), not ${Array.isArray(record) ? 'an array' : (JSON.stringify(record) ?? typeof record)}`,
      operatorId,
    );
  }
  const row: SinkRow = {};
  const fields = record as Record<string, unknown>;
  // Object.keys, not Object.entries: no [field, value] pair made per field of every record.
  for (const field of Object.keys(fields)) {
    const value = fields[field];
    const column = table.columns.get(field);
    if (column === undefined) {
      throw new JobError(
        `operator "${operatorId}": field "${field}" is not a column of table "${tableName}"`,
        operatorId,
      );
    }
    row[field] = toValue(value, isJsonType(column.type));
  }
  return row;
}

function toValue(value: unknown, json: boolean): PgValue {
  if (value === null || value === undefined) return null;
  if (json) return JSON.stringify(value);
  switch (typeof value) {
    case 'string':
    case 'number':
    case 'boolean':
      return value;
    case 'bigint':
      return value.toString();
    default:
      return JSON.stringify(value) ?? null;
  }
}

/**
 * The key of an upsert row, the same for rows of the same key: with one key column its value
 * itself (a Map tells 1 from "1" as their JSON text did, without making that text for every
 * record), with more the values' JSON text. An error when a key column is missing or null.
 */
export function keyOf(
  row: SinkRow,
  keyColumns: readonly string[],
  tableName: string,
  operatorId: string,
): PgValue {
  if (keyColumns.length === 1) return keyValue(row, keyColumns[0]!, tableName, operatorId);
  const values: PgValue[] = [];
  for (const key of keyColumns) values.push(keyValue(row, key, tableName, operatorId));
  return JSON.stringify(values);
}

function keyValue(row: SinkRow, key: string, tableName: string, operatorId: string): PgValue {
  const value = row[key];
  if (value === undefined || value === null) {
    throw new JobError(
      `operator "${operatorId}": a record for table "${tableName}" has ${value === undefined ? 'no' : 'a null'} key column "${key}"`,
      operatorId,
    );
  }
  return value;
}
