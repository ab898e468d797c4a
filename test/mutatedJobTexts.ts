// A valid job file's text and the same broken in the ways a client's copy of it can be: a value
// replaced by one of another kind, a field gone, the text cut short, or no JSON at all. The
// replacements are small on purpose (no parallelism of thousands, no huge counts): a fuzz that
// starts runs must not load the machine, and no path in the job is made absolute.
import fc from 'fast-check';

/** Every leaf of a JSON value, as the list of keys that reaches it. */
function leafPaths(value: unknown, at: (string | number)[] = []): (string | number)[][] {
  if (typeof value !== 'object' || value === null) return [at];
  const entries = Array.isArray(value) ? value.map((v, i) => [i, v] as const) : Object.entries(value);
  return [at, ...entries.flatMap(([key, v]) => leafPaths(v, [...at, key]))];
}

/** A copy of `value` with the value at `path` replaced (or deleted, for `undefined`). */
function replaced(value: unknown, path: readonly (string | number)[], by: unknown): unknown {
  if (path.length === 0) return by;
  const [head, ...rest] = path as [string | number, ...(string | number)[]];
  const copy = (Array.isArray(value) ? [...value] : { ...(value as object) }) as Record<
    string | number,
    unknown
  >;
  if (rest.length === 0 && by === undefined) delete copy[head];
  else copy[head] = replaced(copy[head], rest, by);
  return copy;
}

/** The valid text most often, else one of its mutations or `junk`. */
export function mutatedJobTexts(validText: string, junk: fc.Arbitrary<string>): fc.Arbitrary<string> {
  const job: unknown = JSON.parse(validText);
  const paths = leafPaths(job).filter((path) => path.length > 0);
  const small = fc.constantFrom(undefined, null, true, -1, 0, 1.5, 1e308, '', 'x', '__proto__', [], {}, 'é');
  return fc.oneof(
    { arbitrary: fc.constant(validText), weight: 6 },
    {
      arbitrary: fc
        .tuple(fc.constantFrom(...paths), small)
        .map(([path, by]) => JSON.stringify(replaced(job, path, by))),
      weight: 4,
    },
    { arbitrary: fc.nat(validText.length).map((n) => validText.slice(0, n)), weight: 1 },
    { arbitrary: junk, weight: 1 },
  );
}
