import { describe, expect, it } from 'vitest';
import { keyGroupOf, subtaskOfKeyGroup } from '../../graph/keyGroups.js';
import { txRows } from './txRows.js';

const tables = new Set(['accounts', 'items']);

describe('txRows', () => {
  it('places each row on the subtask that owns its key group; the first row names the leader', () => {
    const rows = txRows(
      [
        ['accounts', 'a7'],
        ['items', 3],
        ['accounts', 'a7'],
      ],
      tables,
      4,
      128,
    );
    expect(rows.rows.map((r) => `${r.table}/${r.key}`)).toEqual(['accounts/a7', 'items/3']);
    const owner = (key: unknown) => subtaskOfKeyGroup(keyGroupOf(key, 128), 4, 128);
    expect(rows.rows.map((r) => r.owner)).toEqual([owner('a7'), owner(3)]);
    expect(rows.leader).toBe(owner('a7'));
    expect(rows.participants).toEqual([...new Set([owner('a7'), owner(3)])].sort((a, b) => a - b));
  });

  it('lists every participant once, ascending, however its rows come', () => {
    const owner = (key: unknown) => subtaskOfKeyGroup(keyGroupOf(key, 128), 7, 128);
    for (let seed = 0; seed < 200; seed++) {
      const keys = Array.from({ length: 1 + (seed % 12) }, (_, i) => (seed * 7919 + i * 104_729) % 1000);
      const rows = txRows(
        keys.map((key) => ['items', key]),
        tables,
        7,
        128,
      );
      expect(rows.participants).toEqual([...new Set(keys.map(owner))].sort((a, b) => a - b));
    }
  });

  it('a transaction naming no row still has one participant', () => {
    expect(txRows([], tables, 3, 128).participants).toEqual([0]);
  });

  it.each([
    [{ accounts: 'a' }, /must return an array of \[table, key\] pairs/],
    [['accounts', 'a'], /must return \[table, key\] pairs; it returned "accounts"/],
    [[['ledger', 'a']], /table "ledger", which is not one of this operator's tables \(accounts, items\)/],
    [[['accounts', { id: 1 }]], /the key \{"id":1\}: a key is a string or a finite number/],
    [[['accounts', Number.NaN]], /a key is a string or a finite number/],
  ])('refuses %j', (returned, message) => {
    expect(() => txRows(returned, tables, 2, 128)).toThrow(message);
  });
});
