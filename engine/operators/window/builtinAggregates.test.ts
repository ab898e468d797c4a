import { describe, expect, it } from 'vitest';
import { builtinAggregate } from './builtinAggregates.js';
import type { WindowAggregate } from './windowAggregate.js';

/** Adds the records one by one from a fresh accumulator, as a window does; JSON in between, as state is. */
function fold(aggregate: WindowAggregate, records: unknown[]): unknown {
  let acc = aggregate.createAccumulator();
  for (const record of records) acc = JSON.parse(JSON.stringify(aggregate.add(acc, record)));
  return acc;
}

const records = [{ p: 3 }, { p: -1.5 }, { p: 10 }];

describe('built-in aggregates', () => {
  it.each([
    ['count', 3],
    ['sum', 11.5],
    ['min', -1.5],
    ['max', 10],
    ['avg', 11.5 / 3],
  ] as const)('%s', (name, expected) => {
    const aggregate = builtinAggregate(name, 'p');
    expect(aggregate.result(fold(aggregate, records))).toBe(expected);
  });

  it.each(['count', 'sum', 'min', 'max', 'avg'] as const)(
    '%s: merging two windows equals one over both',
    (name) => {
      const aggregate = builtinAggregate(name, 'p');
      const merged = aggregate.merge(fold(aggregate, records.slice(0, 1)), fold(aggregate, records.slice(1)));
      expect(aggregate.result(merged)).toBe(aggregate.result(fold(aggregate, records)));
      const empty = aggregate.createAccumulator();
      expect(aggregate.result(aggregate.merge(empty, fold(aggregate, records)))).toBe(
        aggregate.result(fold(aggregate, records)),
      );
    },
  );

  it('reads a dotted field path', () => {
    const aggregate = builtinAggregate('sum', 'bid.price');
    expect(aggregate.result(fold(aggregate, [{ bid: { price: 2 } }, { bid: { price: 5 } }]))).toBe(7);
  });

  it('count counts every record, whatever its fields', () => {
    const aggregate = builtinAggregate('count', undefined);
    expect(aggregate.result(fold(aggregate, [{}, 7, null]))).toBe(3);
  });

  it.each([
    [{ q: 1 }, 'field "p" must be a number to aggregate (the record has no such field)'],
    [{ p: '12' }, 'field "p" must be a number to aggregate (got "12")'],
    [{ p: null }, 'field "p" must be a number to aggregate (got null)'],
    [5, 'field "p" must be a number to aggregate (the record has no such field)'],
  ])('a record whose field is not a number (%j) fails naming the field', (record, message) => {
    const aggregate = builtinAggregate('max', 'p');
    expect(() => aggregate.add(aggregate.createAccumulator(), record)).toThrow(message);
  });

  it('accumulators are JSON', () => {
    for (const name of ['count', 'sum', 'min', 'max', 'avg'] as const) {
      const aggregate = builtinAggregate(name, 'p');
      const acc = fold(aggregate, records);
      expect(JSON.parse(JSON.stringify(acc))).toEqual(acc);
    }
  });
});
