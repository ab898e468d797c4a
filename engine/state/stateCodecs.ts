// How a store holds state values. State values are JSON values with value semantics: what
// get() returns is a copy, and what set() stores is a copy, on every backend. LevelDB holds
// JSON text. The heap holds copies of the values themselves: copying a small object costs a
// fraction of a JSON round trip, and that round trip was a quarter of a keyed job's time.
// Both count a value's size as the length of its JSON text, so sizes agree across backends.

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
   * Writes `fresh` (just encoded) over `stored` in place, where the codec can (see heapCodec's):
   * the change in length, or undefined with nothing changed where it cannot (then `fresh` is put).
   */
  overwrite?(stored: unknown, fresh: unknown): number | undefined;
}

function notJson(what: string, reason: string): TypeError {
  return new TypeError(`${what} must be a JSON value (${reason})`);
}

/**
 * What JSON.stringify escapes in a string: a quote, a backslash, a control character, and a
 * lone surrogate (this also finds a paired one, which it writes as it is).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what JSON escapes.
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;
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

/** A value on the heap with the length of its JSON text (for a flat object, see FlatValue). */
class Held {
  constructor(
    readonly value: unknown,
    readonly length: number,
    /** No object or array inside: a copy is one spread. */
    readonly flat: boolean,
  ) {}
}

/**
 * The copy of a plain object, made by encode: a flat one is stored as it is, its JSON length in a
 * private field (no field JSON, for-in, a spread or Object.keys can see), so a read reaches the
 * value in one step, not through a holder: that step was a cache miss per record, ~9% of the
 * CPU of the keyed job on the heap (measured). Decoded by a spread, a plain object again.
 */
class FlatValue {
  #length = 0;
  [field: string]: unknown;

  static lengthOf(value: FlatValue): number {
    return value.#length;
  }

  static setLength(value: FlatValue, length: number): void {
    value.#length = length;
  }
}

/** Length of JSON.stringify(text), without building it. */
function stringLength(text: string): number {
  if (!NEEDS_ESCAPE.test(text)) return text.length + 2;
  let n = 2;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 || c === 0x5c) n += 2;
    else if (c < 0x20) n += c === 8 || c === 9 || c === 10 || c === 12 || c === 13 ? 2 : 6;
    else if (c >= 0xd800 && c <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        n += 2;
        i++;
      } else n += 6;
    } else if (c >= 0xdc00 && c <= 0xdfff) n += 6;
    else n += 1;
  }
  return n;
}

/** What JSON.stringify leaves out of an object (and writes as null in an array). */
const OMIT = Symbol('omit');

/** Deeper than this is taken for a cycle, as JSON.stringify would find one. */
const MAX_DEPTH = 1000;

/** The JSON text length of the value being copied, summed as it goes (no allocation per call). */
let measured = 0;
let depth = 0;
/** The deepest nesting seen while copying: 1 means a flat object or array. */
let deepest = 0;

/** Field names recur (every record has the same few): their JSON length is looked up, not scanned. */
const keyLengths = new Map<string, number>();

function keyLength(key: string): number {
  let length = keyLengths.get(key);
  if (length === undefined) {
    length = stringLength(key);
    if (keyLengths.size < 4096) keyLengths.set(key, length);
  }
  return length;
}

function numberLength(value: number): number {
  if (Number.isInteger(value) && value > -1e9 && value < 1e9) {
    let length = value < 0 ? 2 : 1;
    for (let rest = Math.abs(value); rest >= 10; rest = Math.floor(rest / 10)) length++;
    return length;
  }
  return String(value).length;
}

/**
 * Copies a value as JSON.parse(JSON.stringify(value)) would, adding the length of that JSON
 * text to `measured`. Anything unusual (toJSON, boxed primitives) takes the real round trip.
 */
function copyMeasured(value: unknown): unknown {
  switch (typeof value) {
    case 'string':
      measured += stringLength(value);
      return value;
    case 'number':
      if (!Number.isFinite(value)) {
        measured += 4;
        return null;
      }
      measured += numberLength(value);
      return value === 0 ? 0 : value;
    case 'boolean':
      measured += value ? 4 : 5;
      return value;
    case 'bigint':
      throw new TypeError('Do not know how to serialize a BigInt');
    case 'object': {
      if (value === null) {
        measured += 4;
        return null;
      }
      const object = value as Record<string, unknown>;
      if (
        typeof object.toJSON === 'function' ||
        value instanceof Number ||
        value instanceof String ||
        value instanceof Boolean
      ) {
        const json = JSON.stringify(value);
        if (json === undefined) return OMIT;
        measured += json.length;
        return JSON.parse(json);
      }
      if (++depth > deepest) deepest = depth;
      if (depth > MAX_DEPTH) {
        throw new TypeError('Converting circular structure to JSON (or nesting deeper than 1000)');
      }
      let copy: unknown;
      if (Array.isArray(value)) {
        const array: unknown[] = new Array(value.length);
        measured += value.length === 0 ? 2 : value.length + 1;
        for (let i = 0; i < value.length; i++) {
          const element = copyMeasured(value[i]);
          if (element === OMIT) {
            measured += 4;
            array[i] = null;
          } else array[i] = element;
        }
        copy = array;
      } else {
        // The value itself (depth 1) is a FlatValue: stored as it is if it proves flat.
        const result: Record<string, unknown> = depth === 1 ? new FlatValue() : {};
        let fields = 0;
        // for-in where no prototype adds fields (a plain object): Object.keys makes an array each time.
        const proto = Object.getPrototypeOf(object);
        if (proto === Object.prototype || proto === null) {
          for (const key in object) fields += copyField(object, key, result);
        } else {
          for (const key of Object.keys(object)) fields += copyField(object, key, result);
        }
        measured += fields === 0 ? 2 : fields + 1;
        copy = result;
      }
      depth--;
      return copy;
    }
    default:
      return OMIT;
  }
}

/** One field of copyMeasured's object: 1 when copied, 0 when JSON leaves it out. */
function copyField(object: Record<string, unknown>, key: string, result: Record<string, unknown>): number {
  const field = copyMeasured(object[key]);
  if (field === OMIT) return 0;
  measured += keyLength(key) + 1;
  // Assigning '__proto__' would set the copy's prototype instead of adding the field.
  if (key === '__proto__') {
    Object.defineProperty(result, key, {
      value: field,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  } else result[key] = field;
  return 1;
}

/** Copies a value that is JSON-shaped already (what the heap holds); spreads keep V8's fast path. */
function copyStored(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    const array = value.slice();
    for (let i = 0; i < array.length; i++) {
      const element = array[i];
      if (typeof element === 'object' && element !== null) array[i] = copyStored(element);
    }
    return array;
  }
  const object: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  for (const key in object) {
    const field = object[key];
    if (typeof field === 'object' && field !== null) object[key] = copyStored(field);
  }
  return object;
}

/**
 * A flat object's fields copied over a stored flat object with the same fields in the same order:
 * a read-modify-write's value (`{ n, sum }`) then keeps no new object, and nothing is left to
 * survive into the old generation until the key comes round again (that promotion was most of a
 * keyed job's GC). `fresh` is encode's copy, so no user code runs here. Undefined for anything
 * else; else the change in length.
 */
export function overwriteHeld(stored: unknown, fresh: unknown): number | undefined {
  if (!(stored instanceof FlatValue) || !(fresh instanceof FlatValue)) return undefined;
  // Both are objects the codec made: for-in gives their own fields, in Object.keys order.
  // The same fields in the same order, or the stored object would show the old order.
  const order = sourceOrder;
  let count = 0;
  for (const key in fresh) order[count++] = key;
  let i = 0;
  for (const key in stored) if (i >= count || key !== order[i++]) return undefined;
  if (i !== count) return undefined;
  for (i = 0; i < count; i++) {
    const key = order[i]!;
    stored[key] = fresh[key];
  }
  const before = FlatValue.lengthOf(stored);
  FlatValue.setLength(stored, FlatValue.lengthOf(fresh));
  return FlatValue.lengthOf(stored) - before;
}

/** overwriteHeld's scratch: no array per call (setting its length to 0 would give up its storage). */
const sourceOrder: string[] = [];

/** The JSON length of a value as the heap codec stores it. */
function storedLength(stored: unknown): number {
  if (typeof stored === 'number') return numberLength(stored);
  if (typeof stored === 'boolean') return stored ? 4 : 5;
  return stored instanceof FlatValue ? FlatValue.lengthOf(stored) : (stored as Held).length;
}

/**
 * The heap codec's stored form: a finite number or a boolean is stored as itself (its JSON length
 * is cheap to count again), a flat object as a FlatValue, anything else in a Held. A number in a
 * holder cost a cache miss per read on top of the Map's own: the transfers job's two balances
 * per transaction (measured in docs/benchmarks.md, issue 27).
 */
export const heapCodec: StateCodec = {
  encode(what, value) {
    if (typeof value === 'number') {
      if (Number.isFinite(value)) return value === 0 ? 0 : value;
    } else if (typeof value === 'boolean') return value;
    // A getter in the value may set state itself: its encode must not reset the count of ours.
    const outer = measured;
    const outerDepth = depth;
    const outerDeepest = deepest;
    measured = 0;
    depth = 0;
    deepest = 0;
    let copy: unknown;
    let length: number;
    let flat: boolean;
    try {
      copy = copyMeasured(value);
      length = measured;
      flat = deepest <= 1;
    } catch (error) {
      throw notJson(what, (error as Error).message);
    } finally {
      measured = outer;
      depth = outerDepth;
      deepest = outerDeepest;
    }
    if (copy === OMIT) throw notJson(what, `got ${typeof value}`);
    if (flat && copy instanceof FlatValue) {
      FlatValue.setLength(copy, length);
      return copy;
    }
    return new Held(copy, length, flat);
  },
  decode(stored) {
    if (typeof stored !== 'object') return stored;
    if (stored instanceof FlatValue) return { ...stored };
    const { value, flat } = stored as Held;
    if (!flat) return copyStored(value);
    if (typeof value !== 'object' || value === null) return value;
    return Array.isArray(value) ? value.slice() : { ...value };
  },
  length: storedLength,
  toJson: (stored) =>
    JSON.stringify(
      typeof stored !== 'object' || stored instanceof FlatValue ? stored : (stored as Held).value,
    ),
  fromJson: (json) => {
    const value: unknown = JSON.parse(json);
    return typeof value === 'number' || typeof value === 'boolean'
      ? value
      : new Held(value, json.length, false);
  },
  overwrite: overwriteHeld,
};
