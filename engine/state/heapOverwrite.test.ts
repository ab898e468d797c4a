// Value state on the heap written in place: a read-modify-write of a flat value keeps the object
// the store holds (nothing new survives until the key comes round again), while what user code
// sees, the state size and checkpoints stay as a JSON round trip would make them.
import { describe, expect, it } from 'vitest';
import { bytesPerCall } from '../../test/bytesAllocated.js';
import { KeyedState } from './keyedState.js';
import { MemoryKvStore } from './memoryKvStore.js';
import { StateTag, stateSpace } from './stateKeys.js';

function fresh() {
  const store = new MemoryKvStore();
  const state = new KeyedState(store);
  state.setKey(5, 'k');
  return { store, state, value: state.api.value('acc') };
}

/** What the store holds for key 'k', as the store holds it (not a copy). */
function held(store: MemoryKvStore): unknown {
  return store.space(stateSpace(5, StateTag.Value, 'acc')).get('k');
}

/** The size a restore would count from the store's JSON text. */
async function recounted(store: MemoryKvStore) {
  const again = new KeyedState(store);
  await again.recount();
  return again.stateSize();
}

describe('value state on the heap', () => {
  it('writes a read-modify-write of a flat value over the one it holds, with no new object kept', () => {
    const { store, value } = fresh();
    value.set({ n: 0, sum: 0 });
    const before = held(store);
    for (let i = 1; i <= 100; i++) {
      const a = value.get() as { n: number; sum: number };
      a.n += 1;
      a.sum += i * 1000;
      value.set(a);
    }
    expect(held(store)).toBe(before);
    expect(value.get()).toEqual({ n: 100, sum: 5_050_000 });
  });

  it('gives out plain objects with only their own fields, however the heap holds them', async () => {
    const { store, value } = fresh();
    value.set({ n: 1, sum: 2 });
    value.set({ n: 3, sum: 4 });
    const read = value.get() as object;
    expect(Object.getPrototypeOf(read)).toBe(Object.prototype);
    expect(Reflect.ownKeys(read)).toEqual(['n', 'sum']);
    const keys: string[] = [];
    for (const key in read) keys.push(key);
    expect(keys).toEqual(['n', 'sum']);
    const json = (await store.snapshotEntries()) as [string, string][][];
    expect(json.flat().map(([, text]) => text)).toEqual(['{"n":3,"sum":4}']);
    value.set({ nested: { n: 1 } });
    expect(Object.getPrototypeOf(value.get())).toBe(Object.prototype);
  });

  it('keeps value semantics: the object set and the object read are copies', () => {
    const { value } = fresh();
    value.set({ n: 1, s: 'a' });
    const mine = { n: 2, s: 'b' };
    value.set(mine);
    mine.n = 99;
    const read = value.get() as typeof mine;
    read.s = 'changed';
    expect(value.get()).toEqual({ n: 2, s: 'b' });
    expect(value.get()).not.toBe(value.get());
  });

  it('keeps sizes exact as lengths change, as a restore would count them', async () => {
    const { store, state, value } = fresh();
    const values = [
      { n: 1, s: 'x', b: true, z: null },
      { n: -0, s: 'quote " tab \t \u0001 😀 \ud800', b: false, z: null },
      { n: Number.NaN, s: '', b: true, z: null },
      { n: 1.5e300, s: 'ü', b: false, z: null },
      { n: Number.POSITIVE_INFINITY, s: 'long'.repeat(50), b: true, z: null },
    ];
    for (const v of values) {
      value.set(v);
      expect(value.get()).toEqual(JSON.parse(JSON.stringify(v)));
      expect(state.stateSize()).toEqual(await recounted(store));
    }
    const json = (await store.snapshotEntries()) as [string, string][][];
    expect(json.flat().map(([, text]) => text)).toEqual([JSON.stringify(values.at(-1))]);
  });

  it('takes the value whole when its shape differs, in its own field order', async () => {
    const { store, state, value } = fresh();
    value.set({ a: 1, b: 2 });
    const shapes: unknown[] = [
      { b: 2, a: 1 },
      { a: 1 },
      { a: 1, b: 2, c: 3 },
      { a: 1, b: { nested: true } },
      { a: 1, b: [1] },
      { a: 1, b: undefined },
      { a: 1, b: () => 2 },
      [1, 2],
      { a: 1, b: 2, toJSON: () => 'text' },
      Object.assign(Object.create({ inherited: 1 }) as object, { a: 1, b: 2 }),
      'plain',
      { a: 1, b: 2 },
    ];
    for (const shape of shapes) {
      value.set(shape);
      const read = value.get();
      expect(JSON.stringify(read)).toBe(JSON.stringify(shape));
      expect(state.stateSize()).toEqual(await recounted(store));
    }
  });

  it('writes a field named __proto__ (as JSON.parse makes one) over the one it holds', () => {
    const { value } = fresh();
    for (const n of [1, 2, 3]) {
      value.set(JSON.parse(`{"__proto__": ${n}, "n": ${n}}`));
      expect(JSON.stringify(value.get())).toBe(`{"__proto__":${n},"n":${n}}`);
    }
  });

  it('refuses a value that is not JSON without changing what it holds', () => {
    const { value } = fresh();
    value.set({ n: 1, big: 2 });
    expect(() => value.set({ n: 1, big: 10n })).toThrow(/value state "acc" must be a JSON value/);
    const throwing = {
      n: 1,
      get big() {
        throw new Error('no');
      },
    };
    expect(() => value.set(throwing)).toThrow(/value state "acc" must be a JSON value \(no\)/);
    expect(value.get()).toEqual({ n: 1, big: 2 });
  });

  it('a getter that sets the same state meanwhile leaves a consistent value and size', async () => {
    const { store, state, value } = fresh();
    value.set({ n: 1, m: 2 });
    const sneaky = {
      n: 5,
      get m() {
        value.set({ n: 100, m: 200 });
        return 6;
      },
    };
    value.set(sneaky);
    expect(value.get()).toEqual({ n: 5, m: 6 });
    expect(state.stateSize()).toEqual(await recounted(store));
  });

  it('reads each field of a value set once, getters included, flat or not', () => {
    const { value } = fresh();
    value.set({ a: 0, b: 0, c: 0 });
    const reads = { a: 0, b: 0, c: 0 };
    const counted = (inner: unknown) => ({
      get a() {
        reads.a++;
        return 1;
      },
      get b() {
        reads.b++;
        return inner;
      },
      get c() {
        reads.c++;
        return 'three';
      },
    });
    value.set(counted(2));
    expect(value.get()).toEqual({ a: 1, b: 2, c: 'three' });
    // An object among the fields: the ones before it were read already and are not read again.
    value.set(counted({ deep: [1] }));
    expect(value.get()).toEqual({ a: 1, b: { deep: [1] }, c: 'three' });
    expect(reads).toEqual({ a: 2, b: 2, c: 2 });
  });

  it('a getter that sets another value state meanwhile: both hold what was set', async () => {
    const { store, state, value } = fresh();
    const other = state.api.value('other');
    value.set({ n: 1, m: 2 });
    other.set({ x: 1, y: 2 });
    value.set({
      n: 3,
      get m() {
        other.set({ x: 10, y: 20 });
        return 4;
      },
    });
    expect(value.get()).toEqual({ n: 3, m: 4 });
    expect(other.get()).toEqual({ x: 10, y: 20 });
    expect(state.stateSize()).toEqual(await recounted(store));
  });

  it('allocates per read-modify-write only the short-lived copies', async () => {
    const { state, value } = fresh();
    const keys = Array.from({ length: 1000 }, (_, i) => `key-${i}`);
    const perRecord = await bytesPerCall((i) => {
      state.setKey(i % 128, keys[i % 1000]);
      const a = (value.get() as { n: number; sum: number } | undefined) ?? { n: 0, sum: 0 };
      a.n += 1;
      a.sum += i;
      value.set(a);
    }, 200_000);
    // The copy read, ~56 bytes: the value set goes from the codec's scratch into the stored
    // object. With a copy made of it first it was ~104; with a new stored object each time and
    // Object.keys in the copy, ~225.
    expect(perRecord).toBeLessThan(80);
  });
});
