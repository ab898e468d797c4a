// A decoded pgoutput change as the record source.postgres emits: { op, before, after }, the
// rows as plain objects. `before` is what the table's REPLICA IDENTITY gives: the whole old row
// (FULL), the old key columns (when the key changed, or on delete), or null.
import type { Pgoutput } from 'pg-logical-replication';

export interface ChangeRecord {
  readonly op: 'insert' | 'update' | 'delete';
  readonly before: Record<string, unknown> | null;
  readonly after: Record<string, unknown> | null;
}

/** A tuple of the parser (a null-prototype object, key-only columns undefined) as a plain row. */
function plain(tuple: Record<string, unknown> | null | undefined): Record<string, unknown> | null {
  if (tuple === null || tuple === undefined) return null;
  const record: Record<string, unknown> = {};
  for (const key of Object.keys(tuple)) if (tuple[key] !== undefined) record[key] = tuple[key];
  return record;
}

/** The record of an insert, update or delete of the table `schema.name`; undefined for anything else. */
export function changeRecord(
  message: Pgoutput.Message,
  schema: string,
  name: string,
): ChangeRecord | undefined {
  if (message.tag !== 'insert' && message.tag !== 'update' && message.tag !== 'delete') return undefined;
  if (message.relation.schema !== schema || message.relation.name !== name) return undefined;
  switch (message.tag) {
    case 'insert':
      return { op: 'insert', before: null, after: plain(message.new) };
    case 'update':
      return { op: 'update', before: plain(message.old) ?? plain(message.key), after: plain(message.new) };
    case 'delete':
      return { op: 'delete', before: plain(message.old) ?? plain(message.key), after: null };
  }
}
