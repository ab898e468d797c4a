// The window kind's built-in aggregates: count, sum, min, max and avg over a field of the record
// (a dotted path). Their accumulators are JSON (numbers, or { sum, count } for avg). Pure.
import type { WindowAggregate } from './windowAggregate.js';

export type BuiltinAggregateName = 'count' | 'sum' | 'min' | 'max' | 'avg';

/** The numeric field of `record` at `path` (["price"] or ["item", "price"]); throws one clear line. */
function readNumber(record: unknown, path: readonly string[]): number {
  let value = record;
  for (const step of path) {
    value =
      value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[step] : undefined;
  }
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  const name = path.join('.');
  const got = value === undefined ? 'the record has no such field' : `got ${preview(value)}`;
  throw new TypeError(`field "${name}" must be a number to aggregate (${got})`);
}

function preview(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}

/** min or max: null until the window's first record. */
function extreme(pick: (a: number, b: number) => number, path: readonly string[]): WindowAggregate {
  return {
    createAccumulator: () => null,
    add: (acc, record) => {
      const value = readNumber(record, path);
      return acc === null ? value : pick(acc as number, value);
    },
    merge: (a, b) => (a === null ? b : b === null ? a : pick(a as number, b as number)),
    result: (acc) => acc,
  };
}

interface Average {
  sum: number;
  count: number;
}

/**
 * A built-in aggregate; `field` is the dotted path every one but count reads (validation makes
 * sure it is there). count counts records, whatever their fields.
 */
export function builtinAggregate(name: BuiltinAggregateName, field: string | undefined): WindowAggregate {
  if (name === 'count') {
    return {
      createAccumulator: () => 0,
      add: (acc) => (acc as number) + 1,
      merge: (a, b) => (a as number) + (b as number),
      result: (acc) => acc,
    };
  }
  if (field === undefined) throw new TypeError(`the ${name} aggregate needs a field`);
  const path = field.split('.');
  switch (name) {
    case 'sum':
      return {
        createAccumulator: () => 0,
        add: (acc, record) => (acc as number) + readNumber(record, path),
        merge: (a, b) => (a as number) + (b as number),
        result: (acc) => acc,
      };
    case 'min':
      return extreme(Math.min, path);
    case 'max':
      return extreme(Math.max, path);
    case 'avg':
      return {
        createAccumulator: (): Average => ({ sum: 0, count: 0 }),
        add: (acc, record) => {
          const { sum, count } = acc as Average;
          return { sum: sum + readNumber(record, path), count: count + 1 };
        },
        merge: (a, b) => {
          const x = a as Average;
          const y = b as Average;
          return { sum: x.sum + y.sum, count: x.count + y.count };
        },
        result: (acc) => {
          const { sum, count } = acc as Average;
          return count === 0 ? null : sum / count;
        },
      };
  }
}
