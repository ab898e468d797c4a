import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { txRouter } from './txRouter.js';
import { txRows } from './txRows.js';

const TABLES = new Set(['accounts', 'items']);

describe('txRouter', () => {
  it('sends a record to the subtasks txRows makes its participants', () => {
    const pair = fc.tuple(
      fc.constantFrom('accounts', 'items'),
      fc.oneof(fc.string({ maxLength: 6 }), fc.integer({ min: -1000, max: 1000 })),
    );
    fc.assert(
      fc.property(fc.array(pair, { maxLength: 6 }), fc.integer({ min: 1, max: 9 }), (pairs, parallelism) => {
        const router = txRouter(() => pairs, TABLES, parallelism, 128);
        expect([...router.targets({})!]).toEqual(txRows(pairs, TABLES, parallelism, 128).participants);
      }),
      { numRuns: 500 },
    );
  });

  it('sends a record keys() fails on to every subtask, to fail there as it would have', () => {
    const cases: unknown[] = [
      'accounts',
      [['accounts']],
      [['nope', 'a']],
      [['accounts', Number.NaN]],
      [['accounts', { id: 1 }]],
    ];
    for (const returned of cases) {
      expect(() => txRows(returned, TABLES, 3, 128)).toThrow(TypeError);
      expect(txRouter(() => returned, TABLES, 3, 128).targets({})).toBeUndefined();
    }
    const throwing = txRouter(
      () => {
        throw new Error('no');
      },
      TABLES,
      3,
      128,
    );
    expect(throwing.targets({})).toBeUndefined();
  });
});
