// Paths into the job document: how a problem names where it is, and how problems are put in
// the order they appear in the file.

export type Segment = string | number;

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `["edges", 2, "to"]` -> `$.edges[2].to`; keys that are not identifiers are bracketed. */
export function formatJsonPath(path: readonly Segment[]): string {
  let out = '$';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(segment)) out += `.${segment}`;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out;
}

/** The same path without the leading `$.`, as it reads inside a sentence: `params.code`. */
export function fieldName(path: readonly Segment[]): string {
  return formatJsonPath(path).slice(1).replace(/^\./, '');
}

export function valueAt(root: unknown, path: readonly Segment[]): unknown {
  let current = root;
  for (const segment of path) {
    if (Array.isArray(current) && typeof segment === 'number') current = current[segment];
    else if (isRecord(current) && typeof segment === 'string' && Object.hasOwn(current, segment))
      current = current[segment];
    else return undefined;
  }
  return current;
}

/**
 * Where a path falls in the document as written: array indexes and the position of each key
 * among its object's keys. A key that is absent (a required field) sorts after its siblings.
 */
export function documentPosition(root: unknown, path: readonly Segment[]): number[] {
  const position: number[] = [];
  let current = root;
  for (const segment of path) {
    if (Array.isArray(current) && typeof segment === 'number') {
      position.push(segment);
      current = current[segment];
    } else if (isRecord(current)) {
      const keys = Object.keys(current);
      const index = keys.indexOf(String(segment));
      position.push(index === -1 ? keys.length : index);
      current = index === -1 ? undefined : current[String(segment)];
    } else {
      position.push(0);
      current = undefined;
    }
  }
  return position;
}

export function comparePositions(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    if (a[i] !== b[i]) return a[i]! - b[i]!;
  }
  return a.length - b.length;
}
