import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeKey, encodeKey } from './stateKeys.js';

describe('encodeKey', () => {
  it('writes a number as its JSON, so keys stored before read the same', () => {
    const numbers = [0, -0, 7, -7, 1.5, -1e-7, 1e21, -1e21, 2 ** 53 + 2, 5e-324, Number.MAX_VALUE, 0.1 + 0.2];
    const check = (n: number) => {
      expect(encodeKey(n)).toBe(`\x01${JSON.stringify(n)}`);
      expect(Object.is(decodeKey(encodeKey(n)), n === 0 ? 0 : n)).toBe(true);
    };
    for (const n of numbers) check(n);
    fc.assert(fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), check), { numRuns: 5000 });
    fc.assert(fc.property(fc.integer(), check), { numRuns: 2000 });
  });

  it('keeps a string as it is, and encodes one that could pass for an encoded key', () => {
    expect(encodeKey('key-1')).toBe('key-1');
    expect(encodeKey('\x01x')).toBe('\x01"\\u0001x"');
    expect(decodeKey(encodeKey('\x01x'))).toBe('\x01x');
    expect(encodeKey('a\0b')).toBe('\x01"a\\u0000b"');
  });
});
