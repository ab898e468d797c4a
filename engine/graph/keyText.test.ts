import { describe, expect, it } from 'vitest';
import { keysOfText, keyText } from './keyText.js';

describe('keys as the state browser writes and reads them', () => {
  it('writes a string as it is, anything else as JSON', () => {
    expect(keyText('o7')).toBe('o7');
    expect(keyText(7)).toBe('7');
    expect(keyText(['a', 1])).toBe('["a",1]');
  });

  it('reads what a typed key may stand for: a string, and a JSON value of another type', () => {
    expect(keysOfText('k7')).toEqual(['k7']);
    expect(keysOfText('7')).toEqual(['7', 7]);
    expect(keysOfText('"7"')).toEqual(['7']);
    expect(keysOfText('["a",1]')).toEqual(['["a",1]', ['a', 1]]);
    expect(keysOfText('{')).toEqual(['{']);
  });
});
