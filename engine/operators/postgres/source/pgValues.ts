// A column's value as a record field, from the text PostgreSQL gives for it (the snapshot's rows
// and the replication stream's tuples alike, so a row reads the same either way): numbers where
// a JavaScript number is exact (int2, int4, oid, float4, float8), int8 and numeric as strings
// (they may not fit a double), booleans, json/jsonb parsed, timestamps as ISO 8601 strings with
// their microseconds (the session's TimeZone is UTC, so a timestamptz ends in "Z"), everything
// else (date, time, uuid, arrays, bytea as "\x..." hex, ...) as PostgreSQL's text.

const INT2 = 21;
const INT4 = 23;
const OID = 26;
const FLOAT4 = 700;
const FLOAT8 = 701;
const BOOL = 16;
const JSON_OID = 114;
const JSONB = 3802;
const TIMESTAMP = 1114;
const TIMESTAMPTZ = 1184;

export type ValueParser = (text: string) => unknown;

const asText: ValueParser = (text) => text;
const asInteger: ValueParser = (text) => Number(text);
/** NaN and ±Infinity have no JSON number: they stay PostgreSQL's words. */
const asFloat: ValueParser = (text) => {
  const n = Number(text);
  return Number.isFinite(n) ? n : text;
};
const asBoolean: ValueParser = (text) => text === 't' || text === 'true';
const asJson: ValueParser = (text) => JSON.parse(text);

/** "2024-01-02 03:04:05.123456" -> "2024-01-02T03:04:05.123456"; infinity and BC dates stay text. */
const asTimestamp: ValueParser = (text) =>
  /^\d{4,}-\d\d-\d\d \d/.test(text) ? text.replace(' ', 'T') : text;
/** "2024-01-02 03:04:05.123+00" (TimeZone UTC) -> "2024-01-02T03:04:05.123Z". */
const asTimestampTz: ValueParser = (text) => {
  const local = asTimestamp(text) as string;
  return local === text ? text : local.replace(/\+00(:00)?$/, 'Z');
};

export function valueParser(typeOid: number): ValueParser {
  switch (typeOid) {
    case INT2:
    case INT4:
    case OID:
      return asInteger;
    case FLOAT4:
    case FLOAT8:
      return asFloat;
    case BOOL:
      return asBoolean;
    case JSON_OID:
    case JSONB:
      return asJson;
    case TIMESTAMP:
      return asTimestamp;
    case TIMESTAMPTZ:
      return asTimestampTz;
    default:
      return asText;
  }
}

/** Connection options that make the server's text forms the ones above. */
export const SESSION_OPTIONS = '-c TimeZone=UTC -c DateStyle=ISO -c extra_float_digits=1';
