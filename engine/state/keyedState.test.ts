// Value, map and list state through `new KeyedState(store).api`, the same tests on both backends:
// the heap (MemoryKvStore) and LevelDB (LevelKvStore, real classic-level in a temp dir). Then
// what only LevelDB has: flushes, reopening, a cache far smaller than the state, the key layout.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClassicLevel } from 'classic-level';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeyedState } from './keyedState.js';
import type { KvStore } from './kvStore.js';
import { LevelKvStore } from './levelKvStore.js';
import { MemoryKvStore } from './memoryKvStore.js';

let root: string;
let dirs = 0;
const freshDir = () => join(root, `db-${dirs++}`);

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'pipewright-keyed-state-'));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

interface Backend {
  readonly name: string;
  open(cacheBytes?: number): Promise<KvStore>;
}

const backends: Backend[] = [
  { name: 'memory', open: async () => new MemoryKvStore() },
  { name: 'level', open: (cacheBytes = 1 << 20) => LevelKvStore.open(freshDir(), cacheBytes) },
];

/** Runs `body` on a fresh store and state, and closes the store whatever happens. */
async function withState(
  backend: Backend,
  body: (state: KeyedState, store: KvStore) => Promise<void> | void,
  cacheBytes?: number,
): Promise<void> {
  const store = await backend.open(cacheBytes);
  try {
    await body(new KeyedState(store), store);
  } finally {
    await store.close();
  }
}

describe.each(backends)('keyed state on the $name backend', (backend) => {
  it('value state: get, set, clear', () =>
    withState(backend, (state) => {
      state.setKey(3, 'a');
      const v = state.api.value('v');
      expect(v.get()).toBeUndefined();
      v.set(1);
      expect(v.get()).toBe(1);
      v.set({ a: [1, 'two', { three: 3 }], b: null });
      expect(v.get()).toEqual({ a: [1, 'two', { three: 3 }], b: null });
      v.set(null);
      expect(v.get()).toBeNull();
      v.set('');
      expect(v.get()).toBe('');
      v.clear();
      expect(v.get()).toBeUndefined();
      v.set(false);
      expect(v.get()).toBe(false);
      v.set(undefined);
      expect(v.get()).toBeUndefined();
      // The same name gives the same state.
      state.api.value('v').set(7);
      expect(v.get()).toBe(7);
      expect(state.api.value('w').get()).toBeUndefined();
    }));

  it('state is scoped to the key set with setKey', () =>
    withState(backend, async (state) => {
      const v = state.api.value('v');
      const m = state.api.map('m');
      const l = state.api.list('l');
      state.setKey(7, 'a');
      v.set('of a');
      m.set('x', 'a.x');
      l.add('a0');
      // Another key in the same key group sees none of it.
      state.setKey(7, 'b');
      expect(v.get()).toBeUndefined();
      expect(m.get('x')).toBeUndefined();
      expect(m.has('x')).toBe(false);
      expect(await collect(m.entries())).toEqual([]);
      expect(await collect(l.values())).toEqual([]);
      v.set('of b');
      m.set('x', 'b.x');
      l.add('b0');
      l.add('b1');
      state.setKey(7, 'a');
      expect(v.get()).toBe('of a');
      expect(m.get('x')).toBe('a.x');
      expect(await collect(l.values())).toEqual(['a0']);
      state.setKey(7, 'b');
      expect(v.get()).toBe('of b');
      expect(await collect(l.values())).toEqual(['b0', 'b1']);
      // A key that is a prefix of another, or extends it, is another key.
      for (const other of ['', 'a ', 'ab', 'b\u0001', 'a\u0000']) {
        state.setKey(7, other);
        expect(v.get(), JSON.stringify(other)).toBeUndefined();
        expect(await collect(m.entries()), JSON.stringify(other)).toEqual([]);
      }
      // Clearing one key's map or list leaves the other key's alone.
      state.setKey(7, 'a');
      m.clear();
      l.clear();
      state.setKey(7, 'b');
      expect(m.get('x')).toBe('b.x');
      expect(await collect(l.values())).toEqual(['b0', 'b1']);
    }));

  it('composite (array) keys, numbers and strings are distinct keys', () =>
    withState(backend, async (state) => {
      const keys: unknown[] = [
        1,
        '1',
        ['a', 'b'],
        ['ab'],
        'a,b',
        '["a","b"]',
        ['a', ['b']],
        [1, 'b'],
        ['1', 'b'],
        true,
        'true',
        { id: 1, n: 'x' },
        '\u0001"1"',
      ];
      const v = state.api.value('v');
      const m = state.api.map('m');
      keys.forEach((key, i) => {
        state.setKey(9, key);
        expect(v.get(), JSON.stringify(key)).toBeUndefined();
        v.set(i);
        m.set('i', i);
      });
      for (const [i, key] of keys.entries()) {
        state.setKey(9, key);
        expect(v.get(), JSON.stringify(key)).toBe(i);
        expect(await collect(m.entries()), JSON.stringify(key)).toEqual([['i', i]]);
      }
      // An equal composite key (a new array) finds the same state; so does an object with its
      // properties in another order.
      state.setKey(9, ['a', 'b']);
      expect(v.get()).toBe(2);
      state.setKey(9, { n: 'x', id: 1 });
      expect(v.get()).toBe(11);
      expect(state.stateSize().entries).toBe(2 * keys.length);
    }));

  it('map state: get, set, has, delete, clear', () =>
    withState(backend, async (state) => {
      state.setKey(1, 'k');
      const m = state.api.map('m');
      expect(m.get('a')).toBeUndefined();
      expect(m.has('a')).toBe(false);
      expect(m.delete('a')).toBe(false);
      m.set('a', 1);
      m.set('b', { n: 2 });
      expect(m.get('a')).toBe(1);
      expect(m.get('b')).toEqual({ n: 2 });
      expect(m.has('a')).toBe(true);
      m.set('a', 10);
      expect(m.get('a')).toBe(10);
      // null is a value, not an absence.
      m.set('nothing', null);
      expect(m.has('nothing')).toBe(true);
      expect(m.get('nothing')).toBeNull();
      expect(m.delete('a')).toBe(true);
      expect(m.delete('a')).toBe(false);
      expect(m.has('a')).toBe(false);
      expect(m.get('a')).toBeUndefined();
      // Map keys are JSON values: 1 and "1" differ, equal objects are one key.
      m.set(1, 'number');
      m.set('1', 'string');
      m.set({ x: 1, y: 2 }, 'object');
      expect(m.get(1)).toBe('number');
      expect(m.get('1')).toBe('string');
      expect(m.get({ y: 2, x: 1 })).toBe('object');
      expect(m.has(['1'])).toBe(false);
      m.clear();
      for (const key of ['a', 'b', 'nothing', 1, '1']) expect(m.has(key)).toBe(false);
      expect(await collect(m.entries())).toEqual([]);
      expect(m.delete('b')).toBe(false);
      m.clear();
      m.set('b', 'again');
      expect(m.get('b')).toBe('again');
      expect(await collect(m.entries())).toEqual([['b', 'again']]);
      // Map names are separate states; a map and a value or list of the same name too.
      state.api.value('m').set('value m');
      state.api.list('m').add('list m');
      expect(state.api.map('other').get('b')).toBeUndefined();
      expect(await collect(m.entries())).toEqual([['b', 'again']]);
    }));

  it('map state iterates entries, keys and values in key order, as async iterables', () =>
    withState(backend, async (state) => {
      state.setKey(2, 'k');
      const m = state.api.map('m');
      for (const key of ['delta', 'alpha', 'charlie', 'bravo', 'alpha2', 'Z', 'a']) m.set(key, key.length);
      const expected = ['Z', 'a', 'alpha', 'alpha2', 'bravo', 'charlie', 'delta'];
      const entries = m.entries();
      expect(typeof entries[Symbol.asyncIterator]).toBe('function');
      const first = await entries.next();
      expect(first).toEqual({ done: false, value: ['Z', 1] });
      const rest: unknown[] = [];
      for await (const entry of entries) rest.push(entry);
      expect([first.value, ...rest]).toEqual(expected.map((k) => [k, k.length]));
      expect(await collect(m.keys())).toEqual(expected);
      expect(await collect(m.values())).toEqual(expected.map((k) => k.length));
      // Non-string keys come back as the values they were.
      const n = state.api.map('n');
      n.set(['x', 1], 'composite');
      n.set(2, 'two');
      n.set({ b: 1, a: [true] }, 'object');
      const keys = await collect(n.keys());
      expect(keys).toHaveLength(3);
      expect(keys).toEqual(expect.arrayContaining([['x', 1], 2, { a: [true], b: 1 }]));
      // Deleted and cleared entries are gone from iteration; re-added ones are back.
      m.delete('bravo');
      expect(await collect(m.keys())).toEqual(expected.filter((k) => k !== 'bravo'));
      m.clear();
      expect(await collect(m.keys())).toEqual([]);
      expect(await collect(m.values())).toEqual([]);
      m.set('y', 1);
      m.set('x', 2);
      expect(await collect(m.entries())).toEqual([
        ['x', 2],
        ['y', 1],
      ]);
    }));

  it('an iteration is a snapshot: writes made during it do not show up in it', () =>
    withState(backend, async (state) => {
      state.setKey(2, 'k');
      const m = state.api.map('m');
      for (const key of ['a', 'b', 'c', 'd']) m.set(key, key);
      const seen: unknown[] = [];
      for await (const [key] of m.entries()) {
        seen.push(key);
        if (key === 'a') {
          m.set('e', 'added');
          m.delete('c');
          m.set('b', 'changed');
        }
      }
      expect(seen).toEqual(['a', 'b', 'c', 'd']);
      expect(await collect(m.entries())).toEqual([
        ['a', 'a'],
        ['b', 'changed'],
        ['d', 'd'],
        ['e', 'added'],
      ]);
    }));

  it('list state: add, values in insertion order, clear', () =>
    withState(backend, async (state) => {
      state.setKey(4, 'k');
      const l = state.api.list('l');
      expect(await collect(l.values())).toEqual([]);
      const added = ['z', 1, { a: 1 }, 'a', 1, null, [2, 3]];
      for (let i = 0; i < 40; i++) added.push(`item ${i}`);
      for (const value of added) l.add(value);
      expect(await collect(l.values())).toEqual(added);
      expect(state.stateSize().entries).toBe(added.length);
      l.clear();
      expect(await collect(l.values())).toEqual([]);
      expect(state.stateSize()).toEqual({ entries: 0, bytes: 0, keys: 0 });
      l.add('after');
      l.add('clear');
      expect(await collect(l.values())).toEqual(['after', 'clear']);
      // Clearing an empty list and adding again is fine too.
      const e = state.api.list('empty');
      e.clear();
      e.add(0);
      expect(await collect(e.values())).toEqual([0]);
    }));

  it('values are copies: mutating an object after set or after get leaves state unchanged', () =>
    withState(backend, async (state) => {
      state.setKey(0, 'k');
      const v = state.api.value('v');
      const m = state.api.map('m');
      const l = state.api.list('l');
      const original = { n: 1, list: [1, 2], nested: { deep: 'yes' } };
      const value = structuredClone(original);
      v.set(value);
      m.set('x', value);
      l.add(value);
      value.n = 99;
      value.list.push(3);
      value.nested.deep = 'no';
      expect(v.get()).toEqual(original);
      expect(m.get('x')).toEqual(original);
      expect(await collect(l.values())).toEqual([original]);
      const got = v.get() as typeof original;
      got.n = 42;
      got.nested.deep = 'changed';
      const gotFromMap = m.get('x') as typeof original;
      gotFromMap.list.length = 0;
      const [fromIteration] = (await collect(m.values())) as (typeof original)[];
      fromIteration!.n = -1;
      const [fromList] = (await collect(l.values())) as (typeof original)[];
      fromList!.nested.deep = 'changed';
      expect(v.get()).toEqual(original);
      expect(m.get('x')).toEqual(original);
      expect(await collect(m.values())).toEqual([original]);
      expect(await collect(l.values())).toEqual([original]);
      // A map key object mutated after use does not move the entry.
      const key = { id: 'a' };
      m.set(key, 'by key');
      key.id = 'b';
      expect(m.get({ id: 'a' })).toBe('by key');
      expect(m.has({ id: 'b' })).toBe(false);
    }));

  it('stateSize() counts entries, encoded bytes and keys exactly, back to zero after clearing everything', () =>
    withState(backend, async (state) => {
      // Layout (stateKeys.ts): value "<kg 4 hex>v<name>\0<key>", element
      // "<kg>m<name>\0<key>\0<generation>\0<element>", list positions 11 base-36 digits.
      // bytes = key length + JSON length, in UTF-16 code units. keys: a set value, a map or list
      // that is not empty, each of one key.
      expect(state.stateSize()).toEqual({ entries: 0, bytes: 0, keys: 0 });
      state.setKey(0x1a, 'key');
      const v = state.api.value('count');
      v.set(12345);
      const valueBytes = '001avcount\0key'.length + '12345'.length;
      expect(state.stateSize()).toEqual({ entries: 1, bytes: valueBytes, keys: 1 });
      v.set(7);
      expect(state.stateSize()).toEqual({ entries: 1, bytes: valueBytes - 4, keys: 1 });
      v.set(7);
      expect(state.stateSize()).toEqual({ entries: 1, bytes: valueBytes - 4, keys: 1 });

      const m = state.api.map('mm');
      m.set('a', 'xyz');
      m.set('bb', [1, 2]);
      const container = '001ammm\0key\x000\0';
      const mapBytes = container.length + 'a'.length + '"xyz"'.length + container.length + 'bb'.length + 5;
      expect(state.stateSize()).toEqual({ entries: 3, bytes: valueBytes - 4 + mapBytes, keys: 2 });
      m.set('a', 'xy'); // one byte shorter
      expect(state.stateSize()).toEqual({ entries: 3, bytes: valueBytes - 4 + mapBytes - 1, keys: 2 });
      expect(m.delete('bb')).toBe(true);
      const afterDelete = valueBytes - 4 + container.length + 1 + '"xy"'.length;
      expect(state.stateSize()).toEqual({ entries: 2, bytes: afterDelete, keys: 2 });
      // A non-string map key is written as \x01 + canonical JSON.
      m.set(5, true);
      const numericElement = container.length + '\x015'.length + 'true'.length;
      expect(state.stateSize()).toEqual({ entries: 3, bytes: afterDelete + numericElement, keys: 2 });

      state.setKey(0x1a, 'other');
      const l = state.api.list('l');
      l.add('x');
      const listElement = '001all\0other\x000\0'.length + 11 + '"x"'.length;
      expect(state.stateSize()).toEqual({
        entries: 4,
        bytes: afterDelete + numericElement + listElement,
        keys: 3,
      });

      // Rejected writes change nothing.
      expect(() => m.set('bad', undefined)).toThrow(TypeError);
      expect(() => v.set(1n)).toThrow(TypeError);
      expect(state.stateSize()).toEqual({
        entries: 4,
        bytes: afterDelete + numericElement + listElement,
        keys: 3,
      });

      l.clear();
      state.setKey(0x1a, 'key');
      m.clear();
      expect(state.stateSize()).toEqual({ entries: 1, bytes: valueBytes - 4, keys: 1 });
      // Clearing twice changes nothing more.
      m.clear();
      v.clear();
      expect(state.stateSize()).toEqual({ entries: 0, bytes: 0, keys: 0 });
      v.clear();
      expect(state.stateSize()).toEqual({ entries: 0, bytes: 0, keys: 0 });
      // A new generation after clear: "1" instead of "0", the same length.
      m.set('a', 'xyz');
      expect(state.stateSize()).toEqual({ entries: 1, bytes: container.length + 1 + 5, keys: 1 });
      m.delete('a');
      expect(state.stateSize()).toEqual({ entries: 0, bytes: 0, keys: 0 });
      expect(await collect(m.entries())).toEqual([]);
    }));

  it('recount() after a restore finds the sizes kept while writing', () =>
    withState(backend, async (state) => {
      for (let k = 0; k < 30; k++) {
        state.setKey(k % 7, `k${k}`);
        if (k % 2 === 0) state.api.value('v').set({ k });
        if (k % 3 === 0) state.api.map('m').set(`e${k}`, k);
        if (k % 5 === 0) state.api.list('l').add(k);
        if (k % 9 === 0) state.api.map('m').clear();
      }
      state.setKey(1, 'emptied');
      state.api.map('m').set('x', 1);
      state.api.map('m').delete('x');
      const kept = state.stateSize();
      expect(kept.keys).toBe(15 + 10 - 4 + 6);
      state.resetSize({ entries: 0, bytes: 0, keys: 0 });
      await state.recount();
      expect(state.stateSize()).toEqual(kept);
    }));

  it("a map element replaced by one of the same size writes the element only, not the map's meta", () =>
    withState(backend, async (state, store) => {
      state.setKey(5, 'k');
      const windows = state.api.map('windows');
      windows.set(1000, 7);
      const writes: string[] = [];
      // Every write, through the store or through a space's handle, by the tag of its space.
      const counting = new Proxy(store, {
        get(target, name, receiver) {
          const value = Reflect.get(target, name, receiver);
          if ((name === 'put' || name === 'set' || name === 'putUnread') && typeof value === 'function') {
            return (space: string, ...rest: unknown[]) => {
              writes.push(space.charAt(4));
              return value.call(target, space, ...rest);
            };
          }
          if (name === 'space') {
            return (space: string) => {
              const handle = value.call(target, space);
              return {
                get: (key: string) => handle.get(key),
                put: (key: string, stored: unknown) => {
                  writes.push(space.charAt(4));
                  return handle.put(key, stored);
                },
              };
            };
          }
          return value;
        },
      });
      const counted = new KeyedState(counting);
      for (let i = 0; i < 3; i++) {
        counted.setKey(5, 'k');
        const map = counted.api.map('windows');
        map.set(1000, ((map.get(1000) as number) + 1) % 10);
      }
      // One element write per record (m: a map element); a size change writes the meta too (M).
      expect(writes).toEqual(['m', 'm', 'm']);
      counted.setKey(5, 'k');
      counted.api.map('windows').set(1000, 10);
      expect(writes.slice(3)).toEqual(['m', 'M']);
      state.setKey(5, 'k');
      expect(await collect(state.api.map('windows').entries())).toEqual([[1000, 10]]);
    }));

  it('rejects values that are not JSON with a clear TypeError', () =>
    withState(backend, async (state) => {
      state.setKey(0, 'k');
      const v = state.api.value('v');
      const m = state.api.map('m');
      const l = state.api.list('l');
      expect(() => m.set('k', undefined)).toThrow(TypeError);
      expect(() => m.set('k', undefined)).toThrow(/map state "m".*undefined.*delete/);
      expect(() => v.set(10n)).toThrow(TypeError);
      expect(() => v.set(10n)).toThrow(/value state "v" must be a JSON value.*BigInt/);
      expect(() => m.set('k', { big: 1n })).toThrow(/map state "m" must be a JSON value/);
      expect(() => l.add(1n)).toThrow(/list state "l" must be a JSON value/);
      expect(() => v.set(() => 1)).toThrow(TypeError);
      expect(() => v.set(() => 1)).toThrow(/value state "v" must be a JSON value \(got function\)/);
      expect(() => m.set('k', () => 1)).toThrow(/map state "m" must be a JSON value \(got function\)/);
      expect(() => l.add(() => 1)).toThrow(/list state "l" must be a JSON value \(got function\)/);
      expect(() => l.add(undefined)).toThrow(/list state "l" must be a JSON value \(got undefined\)/);
      expect(() => v.set(Symbol('s'))).toThrow(TypeError);
      const cyclic: Record<string, unknown> = {};
      cyclic.self = cyclic;
      expect(() => v.set(cyclic)).toThrow(/value state "v" must be a JSON value/);
      // A map key that has no JSON form is refused too.
      expect(() => m.set(1n, 'x')).toThrow(/JSON value/);
      expect(() => m.get(undefined)).toThrow(/JSON value/);
      // Nothing was written by any of them.
      expect(v.get()).toBeUndefined();
      expect(m.has('k')).toBe(false);
      expect(await collect(l.values())).toEqual([]);
      expect(state.stateSize()).toEqual({ entries: 0, bytes: 0, keys: 0 });
      // Bad state names are refused.
      expect(() => state.api.value('')).toThrow(TypeError);
      expect(() => state.api.map('a\0b')).toThrow(TypeError);
    }));
});

describe('keyed state on LevelDB', () => {
  it('survives flush, close and reopen', async () => {
    const dir = freshDir();
    let store = await LevelKvStore.open(dir, 1 << 20);
    let state = new KeyedState(store);
    state.setKey(10, 'k1');
    state.api.value('v').set({ saved: true });
    state.api.map('m').set('b', 2);
    state.api.map('m').set('a', 1);
    state.api.list('l').add('first');
    await store.flush();
    state.api.list('l').add('second');
    state.setKey(11, ['composite', 2]);
    state.api.value('v').set('two');
    state.api.map('cleared').set('gone', 1);
    state.api.map('cleared').clear();
    state.api.map('cleared').set('kept', 1);
    // No explicit flush: close writes what is pending.
    await store.close();

    store = await LevelKvStore.open(dir, 1 << 20);
    try {
      state = new KeyedState(store);
      state.setKey(10, 'k1');
      expect(state.api.value('v').get()).toEqual({ saved: true });
      expect(await collect(state.api.map('m').entries())).toEqual([
        ['a', 1],
        ['b', 2],
      ]);
      expect(await collect(state.api.list('l').values())).toEqual(['first', 'second']);
      // Adding after a reopen continues the list, not overwrites it.
      state.api.list('l').add('third');
      expect(await collect(state.api.list('l').values())).toEqual(['first', 'second', 'third']);
      state.setKey(11, ['composite', 2]);
      expect(state.api.value('v').get()).toBe('two');
      expect(await collect(state.api.map('cleared').entries())).toEqual([['kept', 1]]);
      state.setKey(10, ['composite', 2]);
      expect(state.api.value('v').get()).toBeUndefined();
    } finally {
      await store.close();
    }
  });

  it('reads see every write before, during and after flushes (tiny cache)', async () => {
    const store = await LevelKvStore.open(freshDir(), 1024);
    // White box: whether a batch is in LevelDB's hands right now, to prove reads happened then.
    const inFlight = () => (store as unknown as { flushing?: Promise<void> }).flushing !== undefined;
    try {
      const state = new KeyedState(store);
      const m = state.api.map('m');
      const v = state.api.value('v');
      const expected = new Map<string, number>();
      const N = 10_000;
      let readsDuringFlush = 0;
      const check = (key: string) => {
        state.setKey(key.length % 16, `key${key.length % 3}`);
        const want = expected.get(key);
        expect(m.get(key)).toBe(want);
        expect(m.has(key)).toBe(want !== undefined);
      };
      for (let i = 0; i < N; i++) {
        const key = `e${i % 6000}`;
        state.setKey(key.length % 16, `key${key.length % 3}`);
        if (i % 7 === 3) {
          m.delete(key);
          expected.delete(key);
        } else {
          m.set(key, i);
          expected.set(key, i);
        }
        state.setKey(i % 128, i % 50);
        v.set(i);
        expect(v.get()).toBe(i);
        const pending = store.maybeFlush();
        if (pending !== undefined) await pending;
        // Small writes seldom fill a batch (batchBudget.ts): cut one now and then, left in flight.
        if (i % 1000 === 999) store.flushNow();
        // Recent, older and much older writes, some of them deletes.
        for (const back of [0, 1, 4095, 4096, 5999]) {
          if (i >= back) {
            if (inFlight()) readsDuringFlush++;
            check(`e${(i - back) % 6000}`);
          }
        }
      }
      expect(readsDuringFlush).toBeGreaterThan(0);
      for (const key of Array.from({ length: 6000 }, (_, i) => `e${i}`)) check(key);
      await store.flush();
      for (const key of Array.from({ length: 6000 }, (_, i) => `e${i}`)) check(key);
      // Value state of the last 128 writes (one per key group 0..127) read back exactly.
      for (let i = N - 128; i < N; i++) {
        state.setKey(i % 128, i % 50);
        expect(v.get()).toBe(i);
      }
    } finally {
      await store.close();
    }
  });

  it('iterates a map far larger than the cache completely and in order', async () => {
    const store = await LevelKvStore.open(freshDir(), 64 * 1024);
    try {
      const state = new KeyedState(store);
      state.setKey(42, 'big');
      const m = state.api.map('m');
      const N = 20_000;
      const payload = 'x'.repeat(100);
      for (let i = 0; i < N; i++) {
        m.set(`k${String(i).padStart(6, '0')}`, { i, payload });
        const pending = store.maybeFlush();
        if (pending !== undefined) await pending;
      }
      // Some writes still pending when the iteration starts: it must see them.
      m.set('k999999', { i: -1, payload });
      m.delete('k000000');
      let count = 0;
      let previous = '';
      for await (const [key, value] of m.entries()) {
        const k = key as string;
        expect(k > previous).toBe(true);
        previous = k;
        const { i } = value as { i: number };
        if (k !== 'k999999') expect(k).toBe(`k${String(i).padStart(6, '0')}`);
        count++;
      }
      expect(count).toBe(N);
      expect(previous).toBe('k999999');
      let values = 0;
      for await (const value of m.values()) values += (value as { payload: string }).payload.length;
      expect(values).toBe(N * 100);
      expect(state.stateSize().entries).toBe(N);
    } finally {
      await store.close();
    }
  });

  it('lays out keys by key-group prefix, and clear() leaves no elements behind', async () => {
    const dir = freshDir();
    const store = await LevelKvStore.open(dir, 1 << 20);
    const keyGroups = [4, 5, 6, 0x15, 0x50, 0x105, 0x500];
    const state = new KeyedState(store);
    for (const keyGroup of keyGroups) {
      for (const key of ['a', 'zz', 7, ['c', 1]]) {
        state.setKey(keyGroup, Array.isArray(key) ? [`g${keyGroup}`, ...key] : `g${keyGroup}-${key}`);
        state.api.value('v').set(keyGroup);
        state.api.map('m').set('e1', 1);
        state.api.map('m').set('e2', 2);
        state.api.list('l').add('x');
        state.api.map('cleared').set('gone', 1);
        state.api.map('cleared').clear();
      }
    }
    await store.close();

    const db = new ClassicLevel<string, string>(dir, { keyEncoding: 'utf8', valueEncoding: 'utf8' });
    await db.open();
    let keys: string[];
    try {
      keys = await db.keys().all();
    } finally {
      await db.close();
    }
    expect(keys.length).toBeGreaterThan(0);
    for (const keyGroup of keyGroups) {
      const prefix = keyGroup.toString(16).padStart(4, '0');
      const tag = `g${keyGroup}`;
      const positions = keys.flatMap((key, i) =>
        key.includes(`${tag}-`) || key.includes(`"${tag}"`) ? [i] : [],
      );
      // 4 keys x (value, map meta, 2 map elements, list meta, list element, cleared map meta)
      expect(positions, `key group ${keyGroup}`).toHaveLength(4 * 7);
      // Contiguous, and exactly the keys that start with the key group's prefix.
      expect(positions[positions.length - 1]! - positions[0]!).toBe(positions.length - 1);
      expect(keys.filter((key) => key.startsWith(prefix))).toEqual(positions.map((i) => keys[i]));
    }
    // Everything is under some key group.
    expect(keys.every((key) => keyGroups.some((g) => key.startsWith(g.toString(16).padStart(4, '0'))))).toBe(
      true,
    );
    // The cleared maps' elements are deleted from LevelDB, not only hidden.
    expect(keys.filter((key) => key.includes('gone'))).toEqual([]);
  });
});
