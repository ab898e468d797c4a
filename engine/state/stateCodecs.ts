// How a store holds state values. State values are JSON values with value semantics: what
// get() returns is a copy, and what set() stores is a copy, on every backend. LevelDB holds
// JSON text (here); the heap holds copies of the values themselves (heapCodec.ts). Both count a
// value's size as the length of its JSON text, so sizes agree across backends.

export interface StateCodec {
  /** The stored form of a JSON value (a copy); a TypeError naming `what` for anything else. */
  encode(what: string, value: unknown): unknown;
  /** A fresh copy of a stored value. */
  decode(stored: unknown): unknown;
  /** Length of the stored value's JSON text. */
  length(stored: unknown): number;
  /** JSON text of a stored value, for checkpoints. */
  toJson(stored: unknown): string;
  /** The stored form of JSON text, for restores. */
  fromJson(json: string): unknown;
  /**
   * As encode, where the result may be the codec's own scratch, good only until the next call:
   * for a value written over the one stored at once (the heap's `overwrite`), or made a stored
   * value by `keep`. Value state's set uses it, so a read-modify-write makes no copy in between.
   */
  encodeTransient?(what: string, value: unknown): unknown;
  /** What encodeTransient returned, as a stored value that lasts. */
  keep?(fresh: unknown): unknown;
}

export function notJson(what: string, reason: string): TypeError {
  return new TypeError(`${what} must be a JSON value (${reason})`);
}

/**
 * What JSON.stringify escapes in a string: a quote, a backslash, a control character, and a
 * lone surrogate (this also finds a paired one, which it writes as it is).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what JSON escapes.
export const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;
/** From this length a string with nothing to escape is quoted, not stringified (below). */
const QUOTED_FROM = 32;

export const jsonTextCodec: StateCodec = {
  encode(what, value) {
    // A finite number's JSON text is its String(), at a fifth of JSON.stringify's cost (measured).
    if (typeof value === 'number' && Number.isFinite(value)) return String(value);
    // JSON.stringify of a string it has not seen before walks it a character at a time: ~2.9 µs
    // for a 1,000-character payload on Node 20, where this test and the quotes take ~1.3
    // (measured); large state's map elements are such strings.
    if (typeof value === 'string' && value.length >= QUOTED_FROM && !NEEDS_ESCAPE.test(value))
      return `"${value}"`;
    let json: string | undefined;
    try {
      json = JSON.stringify(value);
    } catch (error) {
      throw notJson(what, (error as Error).message);
    }
    if (json === undefined) throw notJson(what, `got ${typeof value}`);
    return json;
  },
  decode: (stored) => {
    const text = stored as string;
    // JSON.stringify wrote every stored text: one that starts as a number is a number, and
    // Number() reads it as JSON.parse does at a fifth of the cost (a counter's read, measured).
    const first = text.charCodeAt(0);
    return (first >= 48 && first <= 57) || first === 45 ? Number(text) : JSON.parse(text);
  },
  length: (stored) => (stored as string).length,
  toJson: (stored) => stored as string,
  fromJson: (json) => json,
};
