// A column's values as one PostgreSQL array literal ('{1,2,NULL}', '{"a","b \"c\""}'), the
// parameter an unnest statement casts to the column's array type. pg would encode a JS array
// itself, but quotes and regex-escapes every element: in a profile of the connectors benchmark
// (200,000 upserts of {k, n, sum}) its escapeElement took 852 ms of the worker's 4.4 CPU-s.
// Numbers and booleans need no quotes; a string is scanned once, and escaped only when it holds
// a quote or a backslash.
import type { PgValue } from './sinkRow.js';

const QUOTE = 34;
const BACKSLASH = 92;

export function arrayLiteral(values: readonly PgValue[]): string {
  // One join, not a string added to per value: the additions made a rope of ~3 pieces a value
  // (51 MB of the 409 MB the connectors benchmark's run thread allocated), flattened again when
  // pg measured and wrote it.
  if (values.every(isBare)) return `{${values.join(',')}}`;
  if (values.every(isPlainString)) return values.length === 0 ? '{}' : `{"${values.join('","')}"}`;
  const parts = new Array<string>(values.length);
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    if (value === null || value === undefined) parts[i] = 'NULL';
    else if (typeof value === 'string') parts[i] = quoted(value);
    else parts[i] = String(value);
  }
  return `{${parts.join(',')}}`;
}

/** A number or boolean: written as JavaScript writes it, as join does. */
const isBare = (value: PgValue) => typeof value === 'number' || typeof value === 'boolean';

/** A string that needs no escape inside its quotes. */
function isPlainString(value: PgValue): boolean {
  if (typeof value !== 'string') return false;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c === QUOTE || c === BACKSLASH) return false;
  }
  return true;
}

function quoted(text: string): string {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE || c === BACKSLASH) return `"${text.replace(/[\\"]/g, '\\$&')}"`;
  }
  return `"${text}"`;
}
