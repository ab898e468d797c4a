import { describe, expect, it } from 'vitest';
import type { PgTable, TableColumn } from './pgTable.js';
import { keyOf, type SinkRow, toRow } from './sinkRow.js';

const column = (name: string, type: string): [string, TableColumn] => [name, { name, type, base: type }];
const table: PgTable = {
  sql: 't',
  columns: new Map([column('k', 'text'), column('n', 'integer'), column('doc', 'jsonb')]),
  uniqueKeys: [['k']],
};

describe('toRow', () => {
  it('keeps plain values, writes objects as JSON text, and every value of a json column as JSON', () => {
    expect(toRow({ k: 'a', n: 1, doc: 'x' }, table, 't', 'out')).toEqual({ k: 'a', n: 1, doc: '"x"' });
    expect(toRow({ k: { a: 1 }, n: null }, table, 't', 'out')).toEqual({ k: '{"a":1}', n: null });
  });

  it('refuses a field the table has no column for, naming it', () => {
    expect(() => toRow({ k: 'a', typo: 1 }, table, 't', 'out')).toThrow(
      'operator "out": field "typo" is not a column of table "t"',
    );
  });
});

describe('keyOf', () => {
  it('tells keys apart as their JSON text does, with one key column or more', () => {
    const rows: SinkRow[] = [{ k: 'a' }, { k: 'a', n: 2 }, { k: '1' }, { k: 1 }];
    const one = rows.map((r) => keyOf(r, ['k'], 't', 'out'));
    expect(new Set(one).size).toBe(3);
    expect(one[0]).toBe(one[1]);
    const pairs: SinkRow[] = [
      { k: 'a', n: 1 },
      { k: 'a', n: 1 },
      { k: 'a', n: '1' },
    ];
    const two = pairs.map((r) => keyOf(r, ['k', 'n'], 't', 'out'));
    expect(new Set(two).size).toBe(2);
  });

  it('refuses a missing or null key column', () => {
    expect(() => keyOf({ n: 1 }, ['k'], 't', 'out')).toThrow('has no key column "k"');
    expect(() => keyOf({ k: null }, ['k'], 't', 'out')).toThrow('has a null key column "k"');
  });
});
