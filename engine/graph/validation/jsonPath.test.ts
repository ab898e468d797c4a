import { describe, expect, it } from 'vitest';
import { formatJsonPath } from './jsonPath.js';

describe('formatJsonPath', () => {
  it('formatJsonPath', () => {
    expect(formatJsonPath([])).toBe('$');
    expect(formatJsonPath(['edges', 2, 'to'])).toBe('$.edges[2].to');
    expect(formatJsonPath(['editor', 'positions', 'my op', 'x'])).toBe('$.editor.positions["my op"].x');
  });
});
