// A map set on LevelDB does not read the element it replaces on the record's thread (a read per
// new element was a sixth of a large state's time): the store tells it later. The state sizes
// and each map's meta (its count and bytes, which clear() takes off) stay exact all along.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { KeyedState } from './keyedState.js';
import { forEachWrite } from './kvStore.js';
import { LevelKvStore } from './levelKvStore.js';

const dirs: string[] = [];
const stores: LevelKvStore[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close()));
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

/** A store with a read cache too small to hold any element, and its count of map element reads. */
async function open(): Promise<{ store: LevelKvStore; elementReads: () => number }> {
  const dir = await mkdtemp(join(tmpdir(), 'unread-writes-'));
  dirs.push(dir);
  const store = await LevelKvStore.open(dir, 1024);
  stores.push(store);
  // White box: every synchronous LevelDB read, by the tag of its key ('m': a map element).
  const db = (store as unknown as { db: { getSync(key: string): string | undefined } }).db;
  const getSync = db.getSync.bind(db);
  let reads = 0;
  db.getSync = (key) => {
    if (key.charAt(4) === 'm') reads++;
    return getSync(key);
  };
  return { store, elementReads: () => reads };
}

async function count(iterable: AsyncIterable<unknown>): Promise<number> {
  let n = 0;
  for await (const _ of iterable) n++;
  return n;
}

describe('a map set on LevelDB', () => {
  it('reads no element on the record path, and the sizes and metas stay exact', async () => {
    const { store, elementReads } = await open();
    const state = new KeyedState(store);
    const m = state.api.map('m');
    for (let k = 0; k < 4; k++) {
      state.setKey(k, `k${k}`);
      for (let i = 0; i < 300; i++) m.set(`e${i}`, i);
    }
    // The first element of an empty map, too, replaces nothing: nothing to read.
    expect(elementReads()).toBe(0);
    await store.flush();
    const before = elementReads();
    // New elements and overwrites of elements that only LevelDB holds, flushed as they go.
    for (let k = 0; k < 4; k++) {
      state.setKey(k, `k${k}`);
      for (let i = 150; i < 450; i++) {
        m.set(`e${i}`, 'x'.repeat(i % 7));
        const pending = store.maybeFlush();
        if (pending !== undefined) await pending;
      }
    }
    expect(elementReads() - before).toBe(0);
    const container = '0000mm\0k0\x000\0'.length;
    const bytes = (i: number) => container + `e${i}`.length + (i < 150 ? String(i).length : 2 + (i % 7));
    let expected = 0;
    for (let i = 0; i < 450; i++) expected += bytes(i);
    expect(state.stateSize()).toEqual({ entries: 4 * 450, bytes: 4 * expected, keys: 4 });
    // What is on disk says the same.
    const kept = state.stateSize();
    state.resetSize({ entries: 0, bytes: 0, keys: 0 });
    await state.recount();
    expect(state.stateSize()).toEqual(kept);
    // Each map's meta counts its elements exactly: clearing every map leaves nothing.
    for (let k = 0; k < 4; k++) {
      state.setKey(k, `k${k}`);
      expect(await count(m.keys())).toBe(450);
      m.clear();
    }
    expect(state.stateSize()).toEqual({ entries: 0, bytes: 0, keys: 0 });
  });

  it('keeps the sizes exact when an element set unread is deleted or its map cleared before it is told', async () => {
    const { store } = await open();
    const state = new KeyedState(store);
    const m = state.api.map('m');
    const other = state.api.map('other');
    state.setKey(9, 'z');
    for (let i = 0; i < 300; i++) m.set(`e${i}`, i);
    other.set('a', 1);
    await store.flush();
    state.setKey(9, 'z');
    m.set('e1', 'new');
    expect(m.delete('e1')).toBe(true);
    m.set('e2', 'new');
    m.set('e999', 'new');
    m.clear();
    m.set('e3', 'again');
    state.setKey(9, 'z');
    const container = (name: string, generation: number) => `0009m${name}\0z\0${generation}\0`.length;
    const otherBytes = container('other', 0) + 1 + 1;
    expect(state.stateSize()).toEqual({
      entries: 2,
      bytes: otherBytes + container('m', 1) + 2 + '"again"'.length,
      keys: 2,
    });
    expect(await count(m.entries())).toBe(1);
    m.delete('e3');
    other.clear();
    expect(state.stateSize()).toEqual({ entries: 0, bytes: 0, keys: 0 });
    // A map's only element, set unread and deleted: the map is empty, its key no longer counted.
    state.setKey(9, 'w');
    m.set('only', 1);
    await store.flush();
    state.setKey(9, 'w');
    m.set('only', 2);
    m.delete('only');
    expect(state.stateSize()).toEqual({ entries: 0, bytes: 0, keys: 0 });
  });

  it('cuts a checkpoint batch with the metas told: a restore from it counts the same', async () => {
    const { store } = await open();
    const state = new KeyedState(store);
    const m = state.api.map('m');
    state.setKey(3, 'y');
    for (let i = 0; i < 100; i++) m.set(`e${i}`, i);
    await store.flush();
    for (let i = 50; i < 150; i++) m.set(`e${i}`, -i);
    const snapshot = store.snapshotNow();
    const size = state.stateSize();
    // Apply the snapshot, as a restore does, to a store of its own.
    const { store: restored } = await open();
    for await (const chunk of snapshot.entries)
      for (const [key, value] of chunk) restored.restoreEntry(key, value);
    for (const flushed of snapshot.pending)
      forEachWrite(flushed, (key, value) => restored.restoreEntry(key, value ?? undefined));
    await restored.flush();
    const again = new KeyedState(restored);
    await again.recount();
    expect(again.stateSize()).toEqual(size);
    expect(size.entries).toBe(150);
    again.setKey(3, 'y');
    again.api.map('m').clear();
    expect(again.stateSize()).toEqual({ entries: 0, bytes: 0, keys: 0 });
  });
});
