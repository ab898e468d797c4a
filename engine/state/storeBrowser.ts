// Reading a store's raw entries for a person looking at them (the designer's state browser): full
// keys in LevelDB's order, values as JSON text, a page at a time, so that a state far bigger than
// memory is never loaded whole. Nothing here writes.

/** Full store keys from `gt` or `gte` (or the start) up to `lt` (excluded). */
export interface KeyRange {
  readonly gt?: string;
  readonly gte?: string;
  readonly lt: string;
}

export interface StoreBrowser {
  /** At most `limit` full keys in the range, in order. */
  keys(range: KeyRange, limit: number): Promise<string[]>;
  /** At most `limit` entries in the range, in order, as [full key, JSON text]. */
  entries(range: KeyRange, limit: number): Promise<[string, string][]>;
  /** JSON text of each key's value (undefined where there is none). */
  values(keys: readonly string[]): Promise<(string | undefined)[]>;
}

/** Where a surrogate half sorts when strings are compared as UTF-8 bytes (code points) instead of UTF-16 units. */
function codePointOrder(unit: number): number {
  if (unit < 0xd800) return unit;
  // U+E000..U+FFFF go below the surrogates, which stand for code points above U+FFFF.
  return unit >= 0xe000 ? unit - 0x800 : unit + 0x2000;
}

/** Compares two strings as LevelDB compares their UTF-8 bytes (JavaScript's `<` compares UTF-16 units). */
export function compareUtf8(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codePointOrder(x) - codePointOrder(y);
  }
  return a.length - b.length;
}

/** Whether `key` lies in `range`, in UTF-8 order. */
export function inKeyRange(key: string, range: KeyRange): boolean {
  if (range.gt !== undefined && compareUtf8(key, range.gt) <= 0) return false;
  if (range.gte !== undefined && compareUtf8(key, range.gte) < 0) return false;
  return compareUtf8(key, range.lt) < 0;
}
