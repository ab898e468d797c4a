import { describe, expect, it } from 'vitest';
import { defaultSides, keysOfText, keyText } from './stateCompare';

describe('state compare', () => {
  it('writes keys as the prefix search matches them, and reads typed keys as the host does', () => {
    expect(keyText('o7')).toBe('o7');
    expect(keyText(7)).toBe('7');
    expect(keyText(['a', 1])).toBe('["a",1]');
    expect(keysOfText('o7')).toEqual(['o7']);
    expect(keysOfText('7')).toEqual(['7', 7]);
    expect(keysOfText('"7"')).toEqual(['7']);
  });

  it('offers the checkpoints there are: the two newest, or the only one and the live state', () => {
    expect(defaultSides([], {})).toBeUndefined();
    expect(defaultSides([13, 12, 11], {})).toEqual({ from: 12, to: 13 });
    expect(defaultSides([4], {})).toEqual({ from: 4, to: 'live' });
    // A choice stays while its checkpoint is there; one that is gone falls back.
    expect(defaultSides([13, 12, 11], { from: 11, to: 'live' })).toEqual({ from: 11, to: 'live' });
    expect(defaultSides([14, 13, 12], { from: 11, to: 13 })).toEqual({ from: 13, to: 13 });
  });
});
