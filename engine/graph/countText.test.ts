import { describe, expect, it } from 'vitest';
import { countText } from './countText.js';

describe('countText', () => {
  it('groups thousands with commas whatever the process locale', () => {
    expect(countText(20_001)).toBe('20,001');
    expect(countText(2_000_000)).toBe('2,000,000');
    expect(countText(999)).toBe('999');
  });

  it('rounds to a whole number', () => {
    expect(countText(1234.6)).toBe('1,235');
  });
});
