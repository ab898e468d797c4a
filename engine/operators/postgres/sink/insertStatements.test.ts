import { describe, expect, it } from 'vitest';
import { insertStatements } from './insertStatements.js';
import type { PgTable, TableColumn } from './pgTable.js';
import type { SinkRow } from './sinkRow.js';

const column = (name: string, type: string): [string, TableColumn] => [name, { name, type, base: type }];
const table: PgTable = {
  sql: 't',
  columns: new Map([column('k', 'text'), column('n', 'integer'), column('sum', 'bigint')]),
  uniqueKeys: [['k']],
};

describe('insertStatements', () => {
  it('groups rows by the columns they set, whatever order their fields come in', () => {
    const rows: SinkRow[] = [
      { k: 'a', n: 1, sum: 2 },
      { n: 3, k: 'b', sum: 4 },
      { k: 'c', n: 5 },
      { k: 'd', n: 6, sum: 7 },
      { sum: 8, k: 'e' },
      { k: 'f', n: 9 },
    ];
    const statements = insertStatements(table, rows, ['k']);
    expect(statements.map((s) => [s.columns, s.columnValues])).toEqual([
      [
        ['k', 'n', 'sum'],
        [
          ['a', 'b', 'd'],
          [1, 3, 6],
          [2, 4, 7],
        ],
      ],
      [
        ['k', 'n'],
        [
          ['c', 'f'],
          [5, 9],
        ],
      ],
      [
        ['k', 'sum'],
        [['e'], [8]],
      ],
    ]);
    expect(statements[1]!.text).toBe(
      'INSERT INTO t ("k","n") SELECT * FROM unnest($1::text[], $2::integer[]) ON CONFLICT ("k") DO UPDATE SET "n" = EXCLUDED."n"',
    );
  });
});
