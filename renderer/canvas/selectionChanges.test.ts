import { describe, expect, it } from 'vitest';
import { applySelectChanges } from './selectionChanges';

describe('selection changes', () => {
  const current = { operators: ['a', 'b'], edges: ['e1'] };

  it('adds and removes ids on one side and leaves the other alone', () => {
    expect(
      applySelectChanges(current, 'operators', [
        { id: 'a', selected: false },
        { id: 'c', selected: true },
      ]),
    ).toEqual({ operators: ['b', 'c'], edges: ['e1'] });
    expect(applySelectChanges(current, 'edges', [{ id: 'e1', selected: false }])).toEqual({
      operators: ['a', 'b'],
      edges: [],
    });
  });

  it('returns the same selection when nothing changes, so the store is not written', () => {
    expect(applySelectChanges(current, 'operators', [])).toBe(current);
    expect(applySelectChanges(current, 'operators', [{ id: 'a', selected: true }])).toBe(current);
    expect(applySelectChanges(current, 'edges', [{ id: 'e9', selected: false }])).toBe(current);
  });
});
