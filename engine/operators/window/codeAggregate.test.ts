import { describe, expect, it } from 'vitest';
import { compileCodeAggregate, requiredAggregateFunctions } from './codeAggregate.js';

const AVERAGE = `
function createAccumulator() { return { sum: 0, n: 0 }; }
function add(acc, record) { acc.sum += record.price; acc.n += 1; return acc; }
function merge(a, b) { return { sum: a.sum + b.sum, n: a.n + b.n }; }
function result(acc) { return acc.sum / acc.n; }
`;

describe('an aggregate in code', () => {
  it('runs createAccumulator, add, merge and result', () => {
    const aggregate = compileCodeAggregate({ code: AVERAGE, operatorId: 'w', windowType: 'session' });
    const a = aggregate.add(aggregate.createAccumulator(), { price: 2 });
    const b = aggregate.add(aggregate.add(aggregate.createAccumulator(), { price: 4 }), { price: 6 });
    expect(aggregate.result(aggregate.merge(a, b))).toBe(4);
  });

  it('gives back a copy of what add returned: the code keeping its object changes nothing stored', () => {
    const code = `let kept; function createAccumulator() { return []; }
      function add(acc, r) { acc.push(r); kept = acc; return acc; }
      function result(acc) { kept.push('changed later'); return acc.length; }`;
    const aggregate = compileCodeAggregate({ code, operatorId: 'w', windowType: 'tumbling' });
    const acc = aggregate.add(aggregate.createAccumulator(), 1);
    aggregate.result(acc);
    expect(acc).toEqual([1]);
  });

  it('merge is required for session windows only', () => {
    expect(requiredAggregateFunctions('tumbling')).toEqual(['createAccumulator', 'add', 'result']);
    expect(requiredAggregateFunctions('session')).toEqual(['createAccumulator', 'add', 'merge', 'result']);
    const noMerge = AVERAGE.replace(/function merge[^\n]*\n/, '');
    expect(() =>
      compileCodeAggregate({ code: noMerge, operatorId: 'w', windowType: 'sliding' }),
    ).not.toThrow();
    expect(() => compileCodeAggregate({ code: noMerge, operatorId: 'w', windowType: 'session' })).toThrow(
      'operator "w": params.code must define a function named merge',
    );
  });

  it('add returning nothing fails naming add', () => {
    const code = AVERAGE.replace('return acc; }', '}');
    const aggregate = compileCodeAggregate({ code, operatorId: 'w', windowType: 'tumbling' });
    expect(() => aggregate.add(aggregate.createAccumulator(), { price: 1 })).toThrow(
      'add must return the accumulator (it returned undefined)',
    );
  });

  it('an accumulator JSON cannot hold fails naming the function and the field', () => {
    const code = AVERAGE.replace('return { sum: 0, n: 0 };', 'return { sum: 0, n: 0, seen: new Set() };');
    const aggregate = compileCodeAggregate({ code, operatorId: 'w', windowType: 'tumbling' });
    expect(() => aggregate.createAccumulator()).toThrow(
      /^createAccumulator returned an accumulator JSON cannot hold: accumulator\.seen is a Set/,
    );
  });

  it('an async function fails: an accumulator is not a Promise', () => {
    const code = AVERAGE.replace('function add', 'async function add');
    const aggregate = compileCodeAggregate({ code, operatorId: 'w', windowType: 'tumbling' });
    expect(() => aggregate.add(aggregate.createAccumulator(), { price: 1 })).toThrow(/not a Promise/);
  });
});
