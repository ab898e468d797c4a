import { describe, expect, it } from 'vitest';
import { defaultSides } from './stateCompare';

describe('state compare', () => {
  it('offers the checkpoints there are: the two newest, or the only one and the live state', () => {
    expect(defaultSides([], {})).toBeUndefined();
    expect(defaultSides([13, 12, 11], {})).toEqual({ from: 12, to: 13 });
    expect(defaultSides([4], {})).toEqual({ from: 4, to: 'live' });
    // A choice stays while its checkpoint is there; one that is gone falls back.
    expect(defaultSides([13, 12, 11], { from: 11, to: 'live' })).toEqual({ from: 11, to: 'live' });
    expect(defaultSides([14, 13, 12], { from: 11, to: 13 })).toEqual({ from: 13, to: 13 });
  });
});
