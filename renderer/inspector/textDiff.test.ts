import { describe, expect, it } from 'vitest';
import { textChange } from './textDiff';

const apply = (text: string, change: ReturnType<typeof textChange>): string =>
  change === undefined ? text : text.slice(0, change.from) + change.insert + text.slice(change.to);

describe('textChange', () => {
  it('is nothing for equal texts', () => {
    expect(textChange('abc', 'abc')).toBeUndefined();
  });

  it('finds an insertion, a deletion and a replacement in the middle', () => {
    expect(textChange('function map(r) {}', 'function map(record) {}')).toEqual({
      from: 14,
      to: 14,
      insert: 'ecord',
    });
    expect(textChange('abcdef', 'abef')).toEqual({ from: 2, to: 4, insert: '' });
    expect(textChange('return 1;', 'return 22;')).toEqual({ from: 7, to: 8, insert: '22' });
  });

  it('handles repeated characters at the seam without overlapping', () => {
    for (const [a, b] of [
      ['aaa', 'aaaa'],
      ['aaaa', 'aa'],
      ['', 'x'],
      ['x', ''],
      ['abab', 'ab'],
    ] as const) {
      const change = textChange(a, b)!;
      expect(change.from).toBeLessThanOrEqual(change.to);
      expect(apply(a, change)).toBe(b);
    }
  });
});
