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
  let literal = '{';
  for (let i = 0; i < values.length; i++) {
    if (i > 0) literal += ',';
    const value = values[i];
    if (value === null || value === undefined) literal += 'NULL';
    else if (typeof value === 'string') literal += quoted(value);
    else literal += String(value);
  }
  return `${literal}}`;
}

function quoted(text: string): string {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE || c === BACKSLASH) return `"${text.replace(/[\\"]/g, '\\$&')}"`;
  }
  return `"${text}"`;
}
