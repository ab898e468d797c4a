// Key groups, bit for bit as Flink computes them (KeyGroupRangeAssignment, MathUtils), so
// that a key lands on the same key group, and so the same subtask, here as in a Flink job
// keyed by the equivalent Java value. Pure: the designer imports it to show where keys go.
//
// How a key becomes a Java hashCode:
// - string: String.hashCode() over UTF-16 code units, with 32-bit wraparound.
// - integer in int32 range: Integer.hashCode(), the value itself. -0 counts as 0 and 1.0 as 1:
//   JavaScript (and JSON) cannot tell them apart.
// - other safe integer (|v| <= 2^53 - 1): Long.hashCode(), (int)(v ^ (v >>> 32)).
// - any other number (fractions, NaN, +-Infinity, integers beyond 2^53): Double.hashCode(),
//   doubleToLongBits (NaN canonical) then (int)(bits ^ (bits >>> 32)).
// - boolean: Boolean.hashCode(), 1231 for true and 1237 for false.
// - null: 0.
// - array, i.e. a composite key (`"key": ["a", "b"]` on an edge): List.hashCode(), h = 1 then
//   h = 31 * h + hash(element) for each element, 32-bit; elements are hashed by these same
//   rules (a nested array is a nested List). This is java.util.List (Arrays.asList(...)),
//   not Flink's TupleN, whose hashCode starts from 0.
// - object: String.hashCode() of its canonical JSON: keys sorted by UTF-16 code units at every
//   depth, no whitespace, strings and numbers written as JSON.stringify writes them (which is
//   RFC 8785, JCS), properties whose value is undefined left out as JSON.stringify does.
// - undefined (a key field the record does not have), functions, symbols and bigints are
//   refused with an Error: they have no JSON form, so no stable key group.

const INT32_MIN = -0x80000000;
const INT32_MAX = 0x7fffffff;
const TWO_POW_32 = 0x1_0000_0000;

/** Java's hashCode for the Java value a JSON key value stands for (rules above). */
import { canonicalJson } from './canonicalJson.js';
export function javaHashCode(key: unknown): number {
  switch (typeof key) {
    case 'string':
      return stringHashCode(key);
    case 'number':
      return numberHashCode(key);
    case 'boolean':
      return key ? 1231 : 1237;
    case 'object':
      if (key === null) return 0;
      if (Array.isArray(key)) return listHashCode(key);
      return stringHashCode(canonicalJson(key, 'key'));
    case 'undefined':
      throw new Error('a key is undefined: the record has no value at the key path');
    default:
      throw new Error(`a key must be a JSON value, got a ${typeof key}`);
  }
}

function stringHashCode(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) {
    h = (Math.imul(31, h) + s.charCodeAt(i)) | 0;
  }
  return h;
}

function numberHashCode(v: number): number {
  if (Number.isInteger(v)) {
    if (v >= INT32_MIN && v <= INT32_MAX) return v | 0;
    if (Number.isSafeInteger(v)) {
      // Two's complement split without BigInt: v = hi * 2^32 + lo with 0 <= lo < 2^32.
      const hi = Math.floor(v / TWO_POW_32);
      const lo = v - hi * TWO_POW_32;
      return (hi ^ lo) | 0;
    }
  }
  return doubleHashCode(v);
}

const doubleView = new DataView(new ArrayBuffer(8));

function doubleHashCode(v: number): number {
  // doubleToLongBits collapses every NaN to 0x7ff8000000000000; DataView may keep a payload.
  if (Number.isNaN(v)) return 0x7ff80000 | 0;
  doubleView.setFloat64(0, v);
  return (doubleView.getUint32(0) ^ doubleView.getUint32(4)) | 0;
}

function listHashCode(items: readonly unknown[]): number {
  let h = 1;
  for (const item of items) {
    h = (Math.imul(31, h) + javaHashCode(item)) | 0;
  }
  return h;
}

/** org.apache.flink.util.MathUtils.murmurHash(int): murmur3's one-block finalisation, made non-negative. */
export function murmurHash(code: number): number {
  code = Math.imul(code | 0, 0xcc9e2d51);
  code = rotateLeft(code, 15);
  code = Math.imul(code, 0x1b873593);
  code = rotateLeft(code, 13);
  code = (Math.imul(code, 5) + 0xe6546b64) | 0;
  code ^= 4;
  code = bitMix(code);
  if (code >= 0) return code;
  if (code !== INT32_MIN) return -code;
  return 0;
}

function rotateLeft(x: number, n: number): number {
  return (x << n) | (x >>> (32 - n));
}

function bitMix(x: number): number {
  x ^= x >>> 16;
  x = Math.imul(x, 0x85ebca6b);
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2ae35);
  x ^= x >>> 16;
  return x;
}

/** KeyGroupRangeAssignment.assignToKeyGroup: the key group, 0..maxParallelism-1, a key belongs to. */
export function keyGroupOf(key: unknown, maxParallelism: number): number {
  return murmurHash(javaHashCode(key)) % maxParallelism;
}

/** KeyGroupRangeAssignment.computeOperatorIndexForKeyGroup: the subtask that owns a key group. */
export function subtaskOfKeyGroup(keyGroup: number, parallelism: number, maxParallelism: number): number {
  return Math.floor((keyGroup * parallelism) / maxParallelism);
}

/**
 * KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex: the key groups a subtask
 * owns, both ends inclusive. The ranges of subtasks 0..parallelism-1 tile 0..maxParallelism-1.
 */
export function keyGroupRange(
  subtask: number,
  parallelism: number,
  maxParallelism: number,
): { start: number; end: number } {
  return {
    start: Math.floor((subtask * maxParallelism + parallelism - 1) / parallelism),
    end: Math.floor(((subtask + 1) * maxParallelism - 1) / parallelism),
  };
}
