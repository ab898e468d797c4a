// What the debugger shows of a record or a state value: a JSON copy taken when the step happened,
// so later changes (user code mutating a record it was handed) never alter what was shown, and a
// view is plain data the host can send as it is.

export function jsonCopy(value: unknown): unknown {
  switch (typeof value) {
    case 'undefined':
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      return Number.isFinite(value) ? value : null;
    case 'object':
      if (value === null) return null;
      break;
    default:
      // A function, symbol or bigint is not JSON; say what it was.
      return String(value);
  }
  try {
    const text = JSON.stringify(value);
    return text === undefined ? undefined : JSON.parse(text);
  } catch {
    return String(value);
  }
}
