// A Kafka record as the job sees it: the value (JSON, or a string), or with includeMetadata
// { topic, partition, offset, timestamp, key, value, headers } (key a string or JSON, headers an
// object of strings). A value or key that cannot be read is a bad record: the reason, in words.
import type { FetchedRecord } from './fetchedRecords.js';

export interface RecordShape {
  readonly format: 'json' | 'string';
  readonly keyFormat: 'json' | 'string';
  readonly includeMetadata: boolean;
}

export type Shaped =
  | { readonly ok: true; readonly record: unknown }
  | { readonly ok: false; readonly why: string };

function parse(bytes: Buffer | null, format: 'json' | 'string', what: string): Shaped {
  if (bytes === null) return { ok: true, record: null };
  const text = bytes.toString('utf8');
  if (format === 'string') return { ok: true, record: text };
  try {
    return { ok: true, record: JSON.parse(text) };
  } catch (error) {
    return { ok: false, why: `its ${what} is not JSON (${(error as Error).message})` };
  }
}

function headerObject(headers: FetchedRecord['headers']): Record<string, string> {
  const object: Record<string, string> = {};
  for (const [key, value] of headers) {
    if (key === null) continue;
    object[key.toString('utf8')] = value === null ? '' : value.toString('utf8');
  }
  return object;
}

export function shapeRecord(
  record: FetchedRecord,
  topic: string,
  partition: number,
  shape: RecordShape,
): Shaped {
  const value = parse(record.value, shape.format, 'value');
  if (!value.ok) return value;
  if (!shape.includeMetadata) {
    // A record without a value (a tombstone) has nothing to hand on alone.
    if (value.record === null) return { ok: false, why: 'it has no value (a tombstone)' };
    return value;
  }
  const key = parse(record.key, shape.keyFormat, 'key');
  if (!key.ok) return key;
  return {
    ok: true,
    record: {
      topic,
      partition,
      offset: record.offset,
      timestamp: record.timestamp,
      key: key.record,
      value: value.record,
      headers: headerObject(record.headers),
    },
  };
}
