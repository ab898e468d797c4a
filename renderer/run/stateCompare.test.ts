import { describe, expect, it } from 'vitest';
import type { StateEntryView } from '../../engine/protocol/protocol.js';
import { compareEntries, entriesOfKey, keyText } from './stateCompare';

const entry = (key: unknown, state: string, value: unknown, elementCount?: number): StateEntryView => ({
  key,
  state,
  type: elementCount === undefined ? 'value' : 'map',
  value,
  bytes: 10,
  ...(elementCount === undefined ? {} : { elementCount }),
});

describe('state compare', () => {
  it('writes keys as the prefix search matches them', () => {
    expect(keyText('o7')).toBe('o7');
    expect(keyText(7)).toBe('7');
    expect(keyText(['a', 1])).toBe('["a",1]');
  });

  it('keeps only the entries of the exact key out of a prefix page', () => {
    const page = [entry('o7', 'items', 1), entry('o70', 'items', 2), entry('o7', 'waiting', 3)];
    expect(entriesOfKey(page, 'o7').map((e) => e.state)).toEqual(['items', 'waiting']);
  });

  it('lines two sides up by state and says what changed', () => {
    const rows = compareEntries(
      [entry('o7', 'items', { i1: 1 }, 1), entry('o7', 'waiting', [])],
      [entry('o7', 'items', { i1: 1, i2: 2 }, 2), entry('o7', 'count', 4)],
    );
    expect(rows.map((r) => [r.state, r.changed, r.from !== undefined, r.to !== undefined])).toEqual([
      ['items', true, true, true],
      ['waiting', true, true, false],
      ['count', true, false, true],
    ]);
    expect(compareEntries([entry('k', 'v', 1)], [entry('k', 'v', 1)])[0]!.changed).toBe(false);
  });
});
