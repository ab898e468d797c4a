// JSON with object keys sorted, so equal values always encode the same: keys hash and are
// stored by this form. Pure: the designer computes key groups with it too.

export function canonicalJson(value: unknown, where = 'value'): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
    case 'number':
    case 'boolean':
      return JSON.stringify(value);
    case 'object': {
      if (Array.isArray(value)) {
        // As JSON.stringify does: an array hole or undefined element is null.
        return `[${value.map((v, i) => (v === undefined ? 'null' : canonicalJson(v, `${where}[${i}]`))).join(',')}]`;
      }
      const obj = value as Record<string, unknown>;
      const parts: string[] = [];
      for (const k of Object.keys(obj).sort()) {
        const v = obj[k];
        if (v === undefined) continue;
        parts.push(`${JSON.stringify(k)}:${canonicalJson(v, `${where}.${k}`)}`);
      }
      return `{${parts.join(',')}}`;
    }
    default:
      throw new TypeError(`${where} must be a JSON value, got a ${typeof value}`);
  }
}
