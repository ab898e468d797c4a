// A record as it leaves user code (ctx.emit, or what map, flatMap, filter and generate hand
// back): copied as JSON at that moment, so changing the object afterwards changes nothing
// downstream, and refused when JSON cannot hold it, so the error names the emitting operator
// and the field instead of surfacing later in a sink as "Do not know how to serialize a BigInt".
//
// The copy follows JSON.stringify + JSON.parse where JSON keeps what the user meant: own
// enumerable string-keyed properties, toJSON (a Date becomes its ISO text), boxed primitives
// unwrapped, an `undefined` property left out and an `undefined` array element (or a hole) as
// null. Where JSON.stringify would lose data silently it is an error instead: a BigInt,
// a Symbol, a function, NaN or ±Infinity, a Map, Set, WeakMap, WeakSet, Promise, RegExp, Error,
// ArrayBuffer or typed array, a cycle, nesting deeper than MAX_DEPTH, more text than
// MAX_RECORD_TEXT, and a getter, proxy or toJSON that throws.
//
// Cost, measured with bench/micro/recordCopy.mjs (Node 20, after lockdown, CPU time per record
// on a shared 2-core machine): for a 6-field record holding an array of 2 objects and an object,
// this walk 0.5 µs, JSON.parse(JSON.stringify(r)) 3.3 µs (and it locates nothing),
// structuredClone 3.6 µs (and it keeps Maps and BigInts), JSON.stringify alone 1.2 µs; for a flat
// { k, n, sum }, 0.12 µs against 0.95, 1.2 and 0.33. Against ~6 µs per record for the whole
// path, the walk is the one that fits. The JSONL sink still serializes the copy itself: the walk
// makes no text, and making one here would only move JSON.stringify from the sink to every
// emit, records that never reach a sink included.
import { describeUserThrow } from '../sandbox/userCodeError.js';

/** Deeper than this is refused: as deep as JSON.stringify's cycle check in the state codecs. */
export const MAX_DEPTH = 1000;

/**
 * Characters of text (string values, all together) a record may hold: its JSON must fit in one
 * string, whatever escaping makes of it (at most 6 characters for one: \u0000), and V8's longest
 * string is 2^29 - 24 characters. Past that a map's 512 MB string was refused only by the sink,
 * as "RangeError: Invalid string length" blamed on it; here it is the operator that made it.
 */
export const MAX_RECORD_TEXT = 64 * 2 ** 20;

type PathStep = string | number;

const TOO_DEEP = `nested deeper than ${MAX_DEPTH} levels`;

/** What was wrong and where; only ever caught by recordCopy below, never handed to user code. */
class NotJson {
  /** From the record inward; filled in as the walk unwinds. */
  readonly path: PathStep[] = [];
  constructor(
    readonly what: string,
    /** A cycle: how many steps of `path` lead to the object it refers back to. */
    readonly cycleTo?: number,
  ) {}
}

/** The objects being copied, outermost first: a cycle is one of them seen again. */
const ancestors: object[] = [];
/** What is left of MAX_RECORD_TEXT for the record being copied. */
let textLeft = MAX_RECORD_TEXT;

const UNSUPPORTED: readonly [unknown, string][] = [
  [Map, 'a Map, which JSON cannot hold (convert it with Object.fromEntries(map) or [...map])'],
  [Set, 'a Set, which JSON cannot hold (convert it with [...set])'],
  [WeakMap, 'a WeakMap, which JSON cannot hold'],
  [WeakSet, 'a WeakSet, which JSON cannot hold'],
  [Promise, 'a Promise, which JSON cannot hold (a missing await?)'],
  [RegExp, 'a RegExp, which JSON cannot hold (use its source text)'],
  [Error, 'an Error object, which JSON cannot hold (use its message)'],
  [ArrayBuffer, 'an ArrayBuffer, which JSON cannot hold (convert it to an array of numbers)'],
];

function copyValue(value: unknown): unknown {
  switch (typeof value) {
    case 'string':
      textLeft -= value.length;
      if (textLeft < 0) {
        throw new NotJson(
          `a string of ${value.length} characters: a record may hold ${MAX_RECORD_TEXT} characters of text in all (its JSON must fit in one string)`,
        );
      }
      return value;
    case 'boolean':
    case 'undefined':
      return value;
    case 'number':
      if (Number.isFinite(value)) return value;
      throw new NotJson(`${value}, which JSON cannot hold (it would be written as null)`);
    case 'object':
      return value === null ? null : copyObject(value);
    case 'bigint':
      throw new NotJson(
        `a BigInt (${value}n), which JSON cannot hold (convert it with Number() or String())`,
      );
    case 'symbol':
      throw new NotJson(`a Symbol (${String(value)}), which JSON cannot hold`);
    default:
      throw new NotJson(
        `a function${(value as { name?: unknown }).name ? ` (${String((value as { name: unknown }).name)})` : ''}, which JSON cannot hold`,
      );
  }
}

function copyObject(value: object): unknown {
  const array = Array.isArray(value);
  let plain = true;
  if (!array) {
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) {
      const converted = convertSpecial(value);
      if (converted !== value) return converted;
      plain = false;
    }
  }
  if (ancestors.includes(value)) throw new NotJson('', ancestors.indexOf(value));
  if (ancestors.length >= MAX_DEPTH) throw new NotJson(TOO_DEEP);
  ancestors.push(value);
  let step: PathStep | undefined;
  try {
    if (array) {
      const source = value as unknown[];
      const length = source.length;
      // Pushed, not stored into new Array(length): once lockdown has frozen Array.prototype, a
      // store into a hole takes V8's slow path (0.4 µs for 5 elements against 0.03, measured).
      const copy: unknown[] = [];
      for (let i = 0; i < length; i++) {
        step = i;
        const element = copyValue(source[i]);
        copy.push(element === undefined ? null : element);
      }
      return copy;
    }
    // Built field by field: a spread is faster but takes symbol-keyed fields along, and
    // dropping them again (getOwnPropertySymbols) costs what it saved (measured).
    const source = value as Record<string, unknown>;
    const copy: Record<string, unknown> = {};
    // for-in is a fifth faster than Object.keys, and the same where no prototype adds fields.
    if (plain) {
      for (const key in source) {
        step = key;
        copyField(source, key, copy);
      }
    } else {
      for (const key of Object.keys(source)) {
        step = key;
        copyField(source, key, copy);
      }
    }
    return copy;
  } catch (error) {
    throw locate(error, step);
  } finally {
    ancestors.pop();
  }
}

function copyField(source: Record<string, unknown>, key: string, copy: Record<string, unknown>): void {
  const field = copyValue(source[key]);
  if (field === undefined) return;
  // Assigning '__proto__' would set the copy's prototype instead of adding the field.
  if (key === '__proto__') {
    Object.defineProperty(copy, key, { value: field, enumerable: true, writable: true, configurable: true });
  } else copy[key] = field;
}

/** A Date, boxed primitive or class instance as JSON sees it; the object itself for a plain copy. */
function convertSpecial(value: object): unknown {
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    let json: unknown;
    try {
      json = (value as { toJSON(key: string): unknown }).toJSON('');
    } catch (error) {
      throw new NotJson(`unreadable (its toJSON() threw ${describeUserThrow(error, '').message})`);
    }
    return copyValue(json);
  }
  if (value instanceof Number) return copyValue(Number(value));
  if (value instanceof String) return String(value);
  if (value instanceof Boolean) return value.valueOf();
  for (const [type, what] of UNSUPPORTED) {
    if (value instanceof (type as new () => object)) throw new NotJson(what);
  }
  if (ArrayBuffer.isView(value)) {
    throw new NotJson('a typed array, which JSON cannot hold (convert it with Array.from())');
  }
  // A class instance, or an object of another prototype: its own enumerable fields, as JSON.
  return value;
}

function locate(error: unknown, step: PathStep | undefined): NotJson {
  const located =
    error instanceof NotJson
      ? error
      : new NotJson(`unreadable (reading it threw ${describeUserThrow(error, '').message})`);
  if (step !== undefined) located.path.unshift(step);
  return located;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** `record.items[3].id`, `record["a b"]`. */
export function formatPath(root: string, path: readonly PathStep[]): string {
  let text = root;
  for (const step of path) {
    if (typeof step === 'number') text += `[${step}]`;
    else text += IDENTIFIER.test(step) ? `.${step}` : `[${JSON.stringify(step)}]`;
  }
  return text;
}

/** A path longer than this, written out, is shortened: its first and last steps. */
const LONG_PATH = 120;
const HEAD_STEPS = 8;
const TAIL_STEPS = 4;

/**
 * `record.a.a.a.a.a.a.a.a … .a.a.a.a, 1000 levels down` for a path too long to read (a record
 * nested thousands deep made a line of thousands of characters, cut before its reason); the
 * whole path when it is short enough.
 */
function shortPath(path: readonly PathStep[]): { readonly text: string; readonly shortened: boolean } {
  const text = formatPath('record', path);
  if (text.length <= LONG_PATH || path.length <= HEAD_STEPS + TAIL_STEPS) return { text, shortened: false };
  const head = formatPath('record', path.slice(0, HEAD_STEPS));
  const tail = formatPath('', path.slice(-TAIL_STEPS));
  return { text: `${head} … ${tail}, ${path.length} levels down`, shortened: true };
}

/** What was wrong, the reason first when the path had to be shortened. */
function describeNotJson(notJson: NotJson): string {
  const field = shortPath(notJson.path);
  if (notJson.cycleTo !== undefined) {
    const target = shortPath(notJson.path.slice(0, notJson.cycleTo));
    return field.shortened
      ? `record has a cycle JSON cannot hold (${field.text} refers back to ${target.text})`
      : `${field.text} refers back to ${target.text}, a cycle JSON cannot hold`;
  }
  if (!field.shortened) return `${field.text} is ${notJson.what}`;
  if (notJson.what === TOO_DEEP) return `record is ${TOO_DEEP}, more than a record may be (at ${field.text})`;
  return `record holds ${notJson.what} (at ${field.text})`;
}

/**
 * The JSON copy of a record user code handed over. Anything JSON cannot hold throws a TypeError
 * (an intrinsic, safe to let pass through user code) led by `where()` (called only then, e.g.
 * "ctx.emit at line 3 of its code") and naming the field: `record.items[3].id is a BigInt (7n),
 * which JSON cannot hold (...)`.
 */
export function recordCopy(value: unknown, where: () => string): unknown {
  textLeft = MAX_RECORD_TEXT;
  try {
    if (value === undefined) throw new NotJson('undefined, which is not a record');
    return copyValue(value);
  } catch (error) {
    throw new TypeError(`${where()}: ${describeNotJson(locate(error, undefined))}`);
  }
}
