import { describe, expect, it } from 'vitest';
import { tableSizes } from './tableSizes';

describe("a transaction's tables per subtask", () => {
  it('lists each table on each subtask, empty where it has no rows, with totals', () => {
    const sizes = tableSizes(
      ['accounts', 'audit'],
      [
        { subtask: 1, states: [{ state: 'accounts', type: 'value', keys: 3, entries: 3, bytes: 90 }] },
        {
          subtask: 0,
          states: [
            { state: 'accounts', type: 'value', keys: 2, entries: 2, bytes: 60 },
            { state: 'notes', type: 'map', keys: 1, entries: 4, bytes: 10 },
            { state: 'extra', type: 'value', keys: 1, entries: 1, bytes: 5 },
          ],
        },
      ],
    );
    expect(sizes.rows).toEqual([
      { table: 'accounts', subtask: 0, rows: 2, bytes: 60 },
      { table: 'accounts', subtask: 1, rows: 3, bytes: 90 },
      { table: 'audit', subtask: 0, rows: 0, bytes: 0 },
      { table: 'audit', subtask: 1, rows: 0, bytes: 0 },
      { table: 'extra', subtask: 0, rows: 1, bytes: 5 },
      { table: 'extra', subtask: 1, rows: 0, bytes: 0 },
    ]);
    expect(sizes.totals).toEqual([
      { table: 'accounts', rows: 5, bytes: 150 },
      { table: 'audit', rows: 0, bytes: 0 },
      { table: 'extra', rows: 1, bytes: 5 },
    ]);
  });
});
