// The batch's state cache (batchState.ts) against a fake runner's state: what it asks, what user
// code sees, and the writes it hands back.
import { describe, expect, it } from 'vitest';
import { encodeKey } from '../state/stateKeys.js';
import { BatchState, type StateReader, type StateText } from './batchState.js';

/** A runner's state at the batch's start, by key (JSON) and name, and the reads it was asked. */
function fakeRunner(
  keys: Record<
    string,
    { v?: Record<string, string>; m?: Record<string, [string, string][]>; l?: Record<string, string[]> }
  >,
  records: readonly unknown[],
) {
  const asked: string[] = [];
  const of = (i: number) => keys[JSON.stringify(records[i])] ?? {};
  const reader: StateReader = {
    value: (i, name) => {
      asked.push(`${i} value ${name}`);
      return of(i).v?.[name] ?? null;
    },
    mapElement: (i, name, mk) => {
      asked.push(`${i} map ${name} ${mk}`);
      return new Map(of(i).m?.[name]).get(mk) ?? null;
    },
    mapEntries: (i, name) => {
      asked.push(`${i} mapEntries ${name}`);
      return of(i).m?.[name] ?? [];
    },
    list: (i, name) => {
      asked.push(`${i} list ${name}`);
      return of(i).l?.[name] ?? [];
    },
  };
  return { reader, asked };
}

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of iterable) all.push(item);
  return all;
}

describe('value state in a batch', () => {
  it('takes what the runner sent, asks for the rest once per key, and sees its own writes', () => {
    const records = ['a', 'b', 'a'];
    const { reader, asked } = fakeRunner({ '"a"': { v: { n: '41', other: '"x"' } }, '"b"': {} }, records);
    const state = new BatchState(reader);
    state.beginBatch();
    state.setRecord(0, 'a', { n: '41' });
    const n = state.api.value('n');
    expect(n.get()).toBe(41);
    n.set(42);
    expect(state.api.value('other').get()).toBe('x');
    state.setRecord(1, 'b', { n: null });
    expect(n.get()).toBeUndefined();
    n.set(1);
    // The runner sends the batch's start for "a" again: the batch's own write wins.
    state.setRecord(2, 'a', { n: '41' });
    expect(n.get()).toBe(42);
    expect(state.api.value('other').get()).toBe('x');
    n.clear();
    expect(n.get()).toBeUndefined();
    expect(asked).toEqual(['0 value other']);
    expect(state.writes()).toEqual([
      [0, 'v', 'n', '42'],
      [1, 'v', 'n', '1'],
      [2, 'v', 'n', null],
    ]);
  });

  it('has value semantics: get gives a fresh copy, set stores one', () => {
    const state = new BatchState(fakeRunner({}, ['k']).reader);
    state.beginBatch();
    state.setRecord(0, 'k', {});
    const v = state.api.value('v');
    const stored = { list: [1] };
    v.set(stored);
    stored.list.push(2);
    const read = v.get() as { list: number[] };
    expect(read).toEqual({ list: [1] });
    read.list.push(3);
    expect(v.get()).toEqual({ list: [1] });
    expect(v.get()).not.toBe(v.get());
    v.set(undefined);
    expect(state.writes().at(-1)).toEqual([0, 'v', 'v', null]);
  });

  it("refuses bad names and values in the local engine's words", () => {
    const state = new BatchState(fakeRunner({}, ['k']).reader);
    state.beginBatch();
    state.setRecord(0, 'k', {});
    expect(() => state.api.value('')).toThrow(
      'state names are non-empty strings of at most 200 characters (got )',
    );
    expect(() => state.api.map('a\0b')).toThrow(TypeError);
    expect(() => state.api.value('v').set(() => 1)).toThrow(
      'value state "v" must be a JSON value (got function)',
    );
    expect(() => state.api.map('m').set('k', undefined)).toThrow(
      'map state "m": set(key, undefined); use delete(key)',
    );
    expect(() => state.api.list('l').add(10n)).toThrow(/^list state "l" must be a JSON value/);
    expect(state.writes()).toEqual([]);
  });

  it("carries the values a batch ended with over the next one's `s`, and nothing else", async () => {
    const { reader, asked } = fakeRunner({ '"k"': { v: { n: '1' }, m: { m: [['a', '1']] } } }, ['k']);
    const state = new BatchState(reader);
    state.beginBatch();
    state.setRecord(0, 'k', undefined);
    state.api.value('n').set(5);
    await state.api.map('m').set('a', 2);
    // The runner read this `s` before the batch above was applied (two batches in flight).
    state.beginBatch();
    state.setRecord(0, 'k', { n: '1' });
    expect(state.api.value('n').get()).toBe(5);
    // A map read goes to the runner, which answers after applying the batch before.
    expect(await state.api.map('m').get('a')).toBe(1);
    expect(asked).toEqual(['0 map m a']);
    expect(state.writes()).toEqual([]);
    // Two batches on, nothing is carried: the runner's `s` has the writes.
    state.beginBatch();
    state.beginBatch();
    state.setRecord(0, 'k', { n: '7' });
    expect(state.api.value('n').get()).toBe(7);
  });
});

describe('map state in a batch', () => {
  const records = ['k'];
  const base = {
    '"k"': {
      m: { m: [[encodeKey('b'), '2'] as [string, string], [encodeKey(7), '"seven"'] as [string, string]] },
    },
  };

  it('orders entries by encoded key, with the batch writes merged over the runner', async () => {
    const { reader, asked } = fakeRunner(base, records);
    const state = new BatchState(reader);
    state.beginBatch();
    state.setRecord(0, 'k', {});
    const m = state.api.map('m');
    m.set('a', { x: 1 });
    m.set('b', 3);
    expect(m.delete(7)).toBe(true);
    expect(m.delete('nothing')).toBe(false);
    m.set('c', null);
    expect(await collect(m.entries())).toEqual([
      ['a', { x: 1 }],
      ['b', 3],
      ['c', null],
    ]);
    expect(await collect(m.keys())).toEqual(['a', 'b', 'c']);
    expect(m.has(7)).toBe(false);
    expect(m.get('b')).toBe(3);
    // Once read whole, nothing more is asked of the runner.
    expect(m.get('zz')).toBeUndefined();
    expect(asked).toEqual(['0 map m \u00017', '0 map m nothing', '0 mapEntries m']);
    expect(state.writes()).toEqual([
      [0, 'm', 'm', 'a', '{"x":1}'],
      [0, 'm', 'm', 'b', '3'],
      [0, 'm', 'm', '\u00017', null],
      [0, 'm', 'm', 'c', 'null'],
    ]);
  });

  it('orders keys as UTF-8, as LevelDB does (not as UTF-16), encoded ones (\\x01...) first', async () => {
    const state = new BatchState(fakeRunner({}, records).reader);
    state.beginBatch();
    state.setRecord(0, 'k', {});
    const m = state.api.map('m');
    for (const key of ['\u{1F600}', '\uFF61', 'b', 1, 'a']) m.set(key, 0);
    expect(await collect(m.keys())).toEqual([1, 'a', 'b', '\uFF61', '\u{1F600}']);
  });

  it('after clear sees only what was set since, without asking', async () => {
    const { reader, asked } = fakeRunner(base, records);
    const state = new BatchState(reader);
    state.beginBatch();
    state.setRecord(0, 'k', {});
    const m = state.api.map('m');
    m.clear();
    expect(m.get('b')).toBeUndefined();
    m.set('z', 1);
    expect(await collect(m.values())).toEqual([1]);
    expect(asked).toEqual([]);
    expect(state.writes()).toEqual([
      [0, 'mc', 'm'],
      [0, 'm', 'm', 'z', '1'],
    ]);
  });

  it('gives fresh copies of its elements', async () => {
    const state = new BatchState(fakeRunner({}, records).reader);
    state.beginBatch();
    state.setRecord(0, 'k', {});
    const m = state.api.map('m');
    const element = { n: 1 };
    m.set({ composite: true }, element);
    element.n = 2;
    const [[key, value]] = (await collect(m.entries())) as [[unknown, { n: number }]];
    expect(key).toEqual({ composite: true });
    value.n = 3;
    expect(m.get({ composite: true })).toEqual({ n: 1 });
  });
});

describe('list state in a batch', () => {
  const records = ['k', 'k'];
  const base = { '"k"': { l: { l: ['1', '2'] } } };

  it("is the runner's values, then those added, read once", async () => {
    const { reader, asked } = fakeRunner(base, records);
    const state = new BatchState(reader);
    state.beginBatch();
    state.setRecord(0, 'k', {});
    const l = state.api.list('l');
    l.add(3);
    state.setRecord(1, 'k', {});
    const values = l.values();
    l.add({ four: 4 });
    expect(await collect(values)).toEqual([1, 2, 3, { four: 4 }]);
    l.add(5);
    expect(await collect(l.values())).toEqual([1, 2, 3, { four: 4 }, 5]);
    expect(asked).toEqual(['1 list l']);
    expect(state.writes()).toEqual([
      [0, 'l', 'l', '3'],
      [1, 'l', 'l', '{"four":4}'],
      [1, 'l', 'l', '5'],
    ]);
  });

  it('once cleared holds only what was added since, and asks nothing', async () => {
    const { reader, asked } = fakeRunner(base, records);
    const state = new BatchState(reader);
    state.beginBatch();
    state.setRecord(0, 'k', {});
    const l = state.api.list('l');
    l.add(3);
    l.clear();
    l.add('x');
    expect(await collect(l.values())).toEqual(['x']);
    expect(asked).toEqual([]);
    expect(state.writes()).toEqual([
      [0, 'l', 'l', '3'],
      [0, 'lc', 'l'],
      [0, 'l', 'l', '"x"'],
    ]);
  });

  it('a scan is a snapshot taken when it starts', async () => {
    const state = new BatchState(fakeRunner(base, records).reader);
    state.beginBatch();
    state.setRecord(0, 'k', {});
    const l = state.api.list('l');
    const seen: unknown[] = [];
    for await (const value of l.values()) {
      seen.push(value);
      l.add(99);
    }
    expect(seen).toEqual([1, 2]);
  });
});

describe('keys', () => {
  it('keeps the state of keys that encode alike apart only when they differ', () => {
    const records = [1, '1', [1, 'a']];
    const runner: Record<string, { v: Record<string, string> }> = {
      '1': { v: { n: '"number"' } },
      '"1"': { v: { n: '"string"' } },
      '[1,"a"]': { v: { n: '"composite"' } },
    };
    const state = new BatchState(fakeRunner(runner, records).reader);
    state.beginBatch();
    const seen: StateText[] = [];
    records.forEach((key, i) => {
      state.setRecord(i, key, undefined);
      seen.push(state.api.value('n').get() as string);
    });
    expect(seen).toEqual(['number', 'string', 'composite']);
  });
});
