import { describe, expect, it } from 'vitest';
import { javaHashCode, keyGroupOf, keyGroupRange, murmurHash, subtaskOfKeyGroup } from './keyGroups.js';

describe('javaHashCode', () => {
  it('matches Java String.hashCode', () => {
    expect(javaHashCode('hello')).toBe(99162322);
    expect(javaHashCode('')).toBe(0);
    expect(javaHashCode('a')).toBe(97);
    // Overflows int32 many times over; Java: "The quick brown fox jumps over the lazy dog".hashCode()
    expect(javaHashCode('The quick brown fox jumps over the lazy dog')).toBe(-609428141);
    // UTF-16 code units, not code points: U+1F600 is the surrogate pair D83D DE00.
    expect(javaHashCode('\u{1F600}')).toBe(31 * 0xd83d + 0xde00);
  });

  it('matches Java Integer, Long and Double hashCode', () => {
    expect(javaHashCode(0)).toBe(0);
    expect(javaHashCode(-0)).toBe(0);
    expect(javaHashCode(42)).toBe(42);
    expect(javaHashCode(-7)).toBe(-7);
    expect(javaHashCode(2147483647)).toBe(2147483647);
    expect(javaHashCode(-2147483648)).toBe(-2147483648);
    // Long.hashCode(1L << 40) = (int)((1L << 40) ^ (1L << 8)) = 256
    expect(javaHashCode(2 ** 40)).toBe(256);
    // Long.hashCode(-(1L << 40)): 0xFFFFFF00_FFFFFF00 -> -256
    expect(javaHashCode(-(2 ** 40))).toBe(-256);
    // Long.hashCode(2147483648L) = Integer.MIN_VALUE
    expect(javaHashCode(2147483648)).toBe(-2147483648);
    // Long.hashCode(Long.MAX safe 2^53-1) = (int)(0x1FFFFF_FFFFFFFF ^ 0x1FFFFF) = 0xFFE00000
    expect(javaHashCode(Number.MAX_SAFE_INTEGER)).toBe(0xffe00000 | 0);
    expect(javaHashCode(1.5)).toBe(1073217536);
    // Double.hashCode(0.1) = 0x3FB99999 ^ 0x9999999A
    expect(javaHashCode(0.1)).toBe((0x3fb99999 ^ 0x9999999a) | 0);
    expect(javaHashCode(Number.NaN)).toBe(0x7ff80000);
    expect(javaHashCode(Number.POSITIVE_INFINITY)).toBe(0x7ff00000);
    // 2^60 is an integer but not a safe one: Double.hashCode(0x43B0000000000000)
    expect(javaHashCode(2 ** 60)).toBe(0x43b00000);
  });

  it('matches Java Boolean and null', () => {
    expect(javaHashCode(true)).toBe(1231);
    expect(javaHashCode(false)).toBe(1237);
    expect(javaHashCode(null)).toBe(0);
  });

  it('hashes a composite key as java.util.List', () => {
    expect(javaHashCode([])).toBe(1);
    // Arrays.asList("a", 1).hashCode() = 31 * (31 * 1 + 97) + 1
    expect(javaHashCode(['a', 1])).toBe(31 * (31 + 97) + 1);
    expect(javaHashCode([null])).toBe(31);
    expect(javaHashCode([['x']])).toBe(31 + (31 + 120));
    expect(javaHashCode(['a', 'b'])).not.toBe(javaHashCode(['b', 'a']));
  });

  it('hashes an object by its canonical JSON', () => {
    const h = javaHashCode({ b: [1, { d: true, c: null }], a: 'x' });
    expect(h).toBe(javaHashCode('{"a":"x","b":[1,{"c":null,"d":true}]}'));
    expect(javaHashCode({ a: 1, skip: undefined })).toBe(javaHashCode('{"a":1}'));
    // Sorted by code units, not in JavaScript's integer-keys-first property order.
    expect(javaHashCode({ b: 1, 10: 2, 9: 3 })).toBe(javaHashCode('{"10":2,"9":3,"b":1}'));
  });

  it('refuses undefined and values with no JSON form', () => {
    expect(() => javaHashCode(undefined)).toThrow(/undefined/);
    expect(() => javaHashCode(['a', undefined])).toThrow(/undefined/);
    expect(() => javaHashCode(() => 1)).toThrow(/JSON value/);
    expect(() => javaHashCode(1n)).toThrow(/JSON value/);
    expect(() => javaHashCode({ f: Symbol('s') })).toThrow(/key\.f must be a JSON value/);
  });
});

describe('murmurHash', () => {
  it('is never negative, including for Integer.MIN_VALUE', () => {
    for (const code of [0, 1, -1, 2147483647, -2147483648, 99162322, -609428141]) {
      const m = murmurHash(code);
      expect(m).toBeGreaterThanOrEqual(0);
      expect(Number.isInteger(m)).toBe(true);
      expect(m).toBeLessThanOrEqual(2147483647);
    }
  });
});

describe('key groups (vectors computed with Flink, maxParallelism 128, parallelism 4)', () => {
  const vectors: [unknown, number, number][] = [
    [0, 94, 2],
    [1, 86, 2],
    [2, 127, 3],
    [42, 29, 0],
    ['hello', 35, 1],
    ['user-1', 121, 3],
  ];
  for (const [key, group, subtask] of vectors) {
    it(`${JSON.stringify(key)} -> key group ${group} -> subtask ${subtask}`, () => {
      expect(keyGroupOf(key, 128)).toBe(group);
      expect(subtaskOfKeyGroup(group, 4, 128)).toBe(subtask);
    });
  }
});

describe('keyGroupRange', () => {
  it('matches Flink at maxParallelism 128, parallelism 4', () => {
    expect(keyGroupRange(0, 4, 128)).toEqual({ start: 0, end: 31 });
    expect(keyGroupRange(3, 4, 128)).toEqual({ start: 96, end: 127 });
  });

  it('matches Flink when parallelism does not divide maxParallelism', () => {
    // computeKeyGroupRangeForOperatorIndex(128, 3, i)
    expect(keyGroupRange(0, 3, 128)).toEqual({ start: 0, end: 42 });
    expect(keyGroupRange(1, 3, 128)).toEqual({ start: 43, end: 85 });
    expect(keyGroupRange(2, 3, 128)).toEqual({ start: 86, end: 127 });
  });

  const shapes: [number, number][] = [
    [1, 1],
    [1, 128],
    [3, 128],
    [4, 128],
    [7, 128],
    [128, 128],
    [5, 7],
    [10, 32768],
    [13, 1000],
  ];
  for (const [p, maxP] of shapes) {
    it(`tiles 0..${maxP - 1} and agrees with subtaskOfKeyGroup for parallelism ${p}`, () => {
      let next = 0;
      for (let s = 0; s < p; s++) {
        const { start, end } = keyGroupRange(s, p, maxP);
        expect(start).toBe(next);
        expect(end).toBeGreaterThanOrEqual(start);
        next = end + 1;
      }
      expect(next).toBe(maxP);
      const outside: string[] = [];
      for (let g = 0; g < maxP; g++) {
        const s = subtaskOfKeyGroup(g, p, maxP);
        const { start, end } = keyGroupRange(s, p, maxP);
        if (g < start || g > end) outside.push(`key group ${g} -> subtask ${s} [${start}, ${end}]`);
      }
      expect(outside).toEqual([]);
    });
  }
});
