import { describe, expect, it } from 'vitest';
import { FILL_LEVELS, fillColour, fillLevel, fillText } from './edgeFill';

describe('edge fill', () => {
  it('rounds a fill to a level and clamps what is out of range', () => {
    expect(fillLevel(0)).toBe(0);
    expect(fillLevel(0.04)).toBe(0);
    expect(fillLevel(0.55)).toBe(6);
    expect(fillLevel(1)).toBe(FILL_LEVELS);
    expect(fillLevel(3)).toBe(FILL_LEVELS);
    expect(fillLevel(-1)).toBe(0);
    expect(fillLevel(Number.NaN)).toBe(0);
  });

  it('goes from green through amber to red', () => {
    expect(fillColour(0)).toBe('hsl(120 75% 40%)');
    expect(fillColour(6)).toBe('hsl(48 75% 40%)');
    expect(fillColour(FILL_LEVELS)).toBe('hsl(0 75% 40%)');
  });

  it('says the fill in words', () => {
    expect(fillText(7)).toBe('channel fill 70%');
  });
});
