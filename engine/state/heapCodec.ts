// The heap backend's codec: state values held as copies of the values themselves, not as JSON
// text. Copying a small object costs a fraction of a JSON round trip, and that round trip was a
// quarter of a keyed job's time. The copy measures the JSON text's length as it goes, so sizes
// agree with LevelDB's.
import { keyLength, numberLength, stringLength } from './jsonLength.js';
import { notJson, type StateCodec } from './stateCodecs.js';

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

/** What JSON.stringify leaves out of an object (and writes as null in an array). */
const OMIT = Symbol('omit');

/** Deeper than this is taken for a cycle, as JSON.stringify would find one. */
const MAX_DEPTH = 1000;

/** The JSON text length of the value being copied, summed as it goes (no allocation per call). */
let measured = 0;
let depth = 0;
/** The deepest nesting seen while copying: 1 means a flat object or array. */
let deepest = 0;

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
      } else if (depth === 1 && toScratch) {
        copy = scratchFields(object);
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
  return putField(result, key, copyMeasured(object[key]));
}

/** A copied field into its object, measured: 1, or 0 when JSON leaves it out. */
function putField(result: Record<string, unknown>, key: string, field: unknown): number {
  if (field === OMIT) return 0;
  measured += keyLength(key) + 1;
  setField(result, key, field);
  return 1;
}

function setField(result: Record<string, unknown>, key: string, field: unknown): void {
  // Assigning '__proto__' would set the copy's prototype instead of adding the field.
  if (key === '__proto__') {
    Object.defineProperty(result, key, {
      value: field,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  } else result[key] = field;
}

/**
 * encodeTransient's copy of a flat object: its fields in arrays kept from call to call, not in a
 * new object, until they are written over the object held (overwriteHeld) or kept (`keep`).
 * A read-modify-write's set then makes no object at all: the copy and the look-up of its fields
 * were about a quarter of the state path's time on the heap (a micro-benchmark, issue 27).
 */
const scratch = {
  keys: [] as string[],
  keyLengths: [] as number[],
  values: [] as unknown[],
  count: 0,
  length: 0,
};
/** Whether copyMeasured copies the top-level object's fields into `scratch` (encodeTransient's). */
let toScratch = false;
/** Whether `scratch` is being filled: an encode that a getter starts meanwhile makes its own copy. */
let scratchBusy = false;
/** The top-level object's copy once a field proved not flat: the scratch's fields went into it. */
let spill: FlatValue | undefined;

/**
 * Copies the top-level object's fields into `scratch` while each is flat, reading each once in
 * copyMeasured's order (a getter runs as often as it would there); at the first object or array
 * the fields so far go into a FlatValue, and the rest are copied into it as copyMeasured does.
 */
function scratchFields(object: Record<string, unknown>): unknown {
  scratch.count = 0;
  spill = undefined;
  let fields = 0;
  const proto = Object.getPrototypeOf(object);
  if (proto === Object.prototype || proto === null) {
    for (const key in object) fields += scratchField(object, key);
  } else {
    for (const key of Object.keys(object)) fields += scratchField(object, key);
  }
  measured += fields === 0 ? 2 : fields + 1;
  const copy = spill ?? scratch;
  spill = undefined;
  return copy;
}

function scratchField(object: Record<string, unknown>, key: string): number {
  if (spill !== undefined) return copyField(object, key, spill);
  const field = object[key];
  if (typeof field === 'object' && field !== null) {
    spill = fromScratch();
    return putField(spill, key, copyMeasured(field));
  }
  let copied: unknown;
  // The usual fields measured here: through copyMeasured they cost a call each (measured).
  if (typeof field === 'number' && Number.isFinite(field)) {
    measured += numberLength(field);
    copied = field === 0 ? 0 : field;
  } else if (typeof field === 'string') {
    measured += stringLength(field);
    copied = field;
  } else {
    copied = copyMeasured(field);
    if (copied === OMIT) return 0;
  }
  const n = scratch.count++;
  const keys = scratch.keys;
  // The same field names as the last value's, most often: their lengths are known.
  if (keys[n] !== key) {
    keys[n] = key;
    scratch.keyLengths[n] = keyLength(key);
  }
  measured += scratch.keyLengths[n]! + 1;
  scratch.values[n] = copied;
  return 1;
}

/** A FlatValue holding the scratch's fields (their length is set by the caller). */
function fromScratch(): FlatValue {
  const copy = new FlatValue();
  const { keys, values, count } = scratch;
  for (let i = 0; i < count; i++) setField(copy, keys[i]!, values[i]);
  return copy;
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
 * encodeTransient's scratch written over a stored flat object with the same fields in the same
 * order: a read-modify-write's value (`{ n, sum }`) then keeps no new object, and nothing is left
 * to survive into the old generation until the key comes round again (that promotion was most of
 * a keyed job's GC). No user code runs here: the fields were read into the scratch already.
 * Undefined for anything else (a copy then, from `keep`, or a set that a getter started while the
 * scratch was being filled); else the change in length.
 */
export function overwriteHeld(stored: unknown, fresh: unknown): number | undefined {
  if (fresh !== scratch || !(stored instanceof FlatValue)) return undefined;
  // For-in gives a stored object's own fields (the codec made it), in Object.keys order: the
  // same fields in the same order, or the stored object would show the old order.
  const { keys, values, count } = scratch;
  let i = 0;
  for (const key in stored) if (i >= count || key !== keys[i++]) return undefined;
  if (i !== count) return undefined;
  for (i = 0; i < count; i++) stored[keys[i]!] = values[i];
  const before = FlatValue.lengthOf(stored);
  FlatValue.setLength(stored, scratch.length);
  return scratch.length - before;
}

/** The JSON length of a value as the heap codec stores it. */
function storedLength(stored: unknown): number {
  if (typeof stored === 'number') return numberLength(stored);
  if (typeof stored === 'boolean') return stored ? 4 : 5;
  return stored instanceof FlatValue ? FlatValue.lengthOf(stored) : (stored as Held).length;
}

/** encode, or encodeTransient with `transient`: then a flat object's copy may be the scratch. */
function encodeWith(what: string, value: unknown, transient: boolean): unknown {
  if (typeof value === 'number') {
    if (Number.isFinite(value)) return value === 0 ? 0 : value;
  } else if (typeof value === 'boolean') return value;
  // A getter in the value may set state itself: its encode must not reset the count of ours.
  const outer = measured;
  const outerDepth = depth;
  const outerDeepest = deepest;
  const outerToScratch = toScratch;
  measured = 0;
  depth = 0;
  deepest = 0;
  toScratch = transient;
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
    toScratch = outerToScratch;
  }
  if (copy === OMIT) throw notJson(what, `got ${typeof value}`);
  if (copy === scratch) {
    scratch.length = length;
    return scratch;
  }
  if (flat && copy instanceof FlatValue) {
    FlatValue.setLength(copy, length);
    return copy;
  }
  return new Held(copy, length, flat);
}

/**
 * The heap codec's stored form: a finite number or a boolean is stored as itself (its JSON length
 * is cheap to count again), a flat object as a FlatValue, anything else in a Held. A number in a
 * holder cost a cache miss per read on top of the Map's own: the transfers job's two balances
 * per transaction (measured in docs/benchmarks.md, issue 27).
 */
export const heapCodec: StateCodec = {
  encode: (what, value) => encodeWith(what, value, false),
  encodeTransient(what, value) {
    if (scratchBusy) return encodeWith(what, value, false);
    scratchBusy = true;
    try {
      return encodeWith(what, value, true);
    } finally {
      scratchBusy = false;
    }
  },
  keep(fresh) {
    if (fresh !== scratch) return fresh;
    const copy = fromScratch();
    FlatValue.setLength(copy, scratch.length);
    return copy;
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
};
