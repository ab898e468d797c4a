// A record's event time, read from a field (a source's timestampField): epoch ms as a number, or
// an ISO-8601 date as a string. Undefined when the field is missing or holds no time.

export function readTimestamp(record: unknown, path: readonly string[]): number | undefined {
  let value = record;
  for (const field of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[field];
  }
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string') {
    const parsed = Date.parse(value);
    return Number.isNaN(parsed) ? undefined : parsed;
  }
  return undefined;
}

/** What the message says a timestamp field must hold. */
export function timestampWanted(path: readonly string[]): string {
  return `no timestamp in field "${path.join('.')}" (a number of ms or an ISO date)`;
}
