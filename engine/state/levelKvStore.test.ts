// The LevelDB store's pending writes: a range read waits for them only when one of them lies in
// its range, and a timer written and deleted before its batch leaves never reaches LevelDB.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type FlushedBatch, forEachWrite } from './kvStore.js';
import { LevelKvStore } from './levelKvStore.js';

const dirs: string[] = [];
const stores: LevelKvStore[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close()));
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

async function open(): Promise<{ store: LevelKvStore; batches: FlushedBatch[] }> {
  const dir = await mkdtemp(join(tmpdir(), 'level-store-'));
  dirs.push(dir);
  const store = await LevelKvStore.open(dir, 1 << 20);
  stores.push(store);
  const batches: FlushedBatch[] = [];
  store.onFlush = (flushed) => {
    batches.push(flushed);
    return undefined;
  };
  return { store, batches };
}

async function keys(store: LevelKvStore, space: string, after?: string): Promise<string[]> {
  const found: string[] = [];
  for await (const [key] of store.entries(space, after)) found.push(key);
  return found;
}

/** Every entry LevelDB holds (after the pending batches), as [key, value]. */
async function onDisk(store: LevelKvStore): Promise<[string, string][]> {
  const all: [string, string][] = [];
  for await (const chunk of await store.snapshotEntries()) all.push(...chunk);
  return all;
}

const timers = '0001T\0';
const other = '0002T\0';

describe('a range read on LevelDB', () => {
  it('does not wait for a batch that writes nothing in its range', async () => {
    const { store, batches } = await open();
    for (const key of ['a', 'b', 'c']) store.set(timers, key, '1');
    await store.flush();
    const flushed = batches.length;
    // Another space, and a deletion at or before where the read starts: neither is in its range.
    store.put(other, 'x', '1');
    store.space('0001vcount\0').put('k', '2');
    store.set(timers, 'a', undefined);
    expect(await keys(store, timers, 'a')).toEqual(['b', 'c']);
    expect(batches.length).toBe(flushed);
    // In flight too: the batch goes to LevelDB, the read does not wait for it.
    let release!: () => void;
    store.onFlush = () => new Promise<void>((resolve) => (release = resolve));
    store.flushNow();
    expect(await keys(store, timers, 'a')).toEqual(['b', 'c']);
    release();
    store.onFlush = undefined;
    await store.flush();
    expect(await onDisk(store)).toEqual([
      [`${timers}b`, '1'],
      [`${timers}c`, '1'],
      [`0001vcount\0k`, '2'],
      [`${other}x`, '1'],
    ]);
  });

  it('sees every pending write in its range, pending or in flight', async () => {
    const { store } = await open();
    for (const key of ['a', 'b', 'c']) store.set(timers, key, '1');
    await store.flush();
    store.set(timers, 'd', '1');
    expect(await keys(store, timers, 'a')).toEqual(['b', 'c', 'd']);
    store.set(timers, 'b', undefined);
    expect(await keys(store, timers, 'a')).toEqual(['c', 'd']);
    store.put(timers, 'e', '1');
    expect(await keys(store, timers)).toEqual(['a', 'c', 'd', 'e']);
    // A handle's write, whatever its key.
    store.space(timers).put('0', '1');
    expect(await keys(store, timers, 'e')).toEqual([]);
    expect(await keys(store, timers)).toEqual(['0', 'a', 'c', 'd', 'e']);
    // In flight, held back by its changelog: the read waits for it.
    let release!: () => void;
    store.onFlush = () => new Promise<void>((resolve) => (release = resolve));
    store.set(timers, 'f', '1');
    store.flushNow();
    let read: string[] | undefined;
    const reading = keys(store, timers, 'e').then((found) => (read = found));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(read).toBeUndefined();
    release();
    store.onFlush = undefined;
    await reading;
    expect(read).toEqual(['f']);
    // A restored entry names no space: any read waits for it.
    store.restoreEntry(`${timers}g`, '1');
    expect(await keys(store, timers, 'f')).toEqual(['g']);
    // Another kind of space (a map's elements): any pending write outside timers is waited for.
    const elements = '0001mm\0k\x000\0';
    store.put(elements, 'a', '1');
    store.put('0002vcount\0', 'k', '1');
    expect(await keys(store, elements, 'a')).toEqual([]);
    expect(await keys(store, elements)).toEqual(['a']);
    // UTF-8 order, as LevelDB's: an astral key lies after U+FFFF.
    await store.flush();
    store.set(timers, '😀', '1');
    expect(await keys(store, timers, '\uffff')).toEqual(['😀']);
  });
});

describe('a timer written and deleted within one batch', () => {
  it('never reaches LevelDB nor the changelog', async () => {
    const { store, batches } = await open();
    store.set(timers, 'a', '1', true);
    store.set(timers, 'b', '1', true);
    store.set(timers, 'a', undefined);
    await store.flush();
    expect(batches.map((b) => [...b.batch])).toEqual([[[`${timers}b`, '1']]]);
    expect(await onDisk(store)).toEqual([[`${timers}b`, '1']]);
  });

  it('is deleted from LevelDB when an earlier batch wrote it', async () => {
    const { store, batches } = await open();
    store.set(timers, 'a', '1', true);
    await store.flush();
    // Fired, registered again and fired again in the next batch: LevelDB's entry must go.
    store.set(timers, 'a', undefined);
    store.set(timers, 'a', '1', true);
    store.set(timers, 'a', undefined);
    // Written in the batch, not as new: its deletion goes to LevelDB.
    store.set(timers, 'b', '1');
    store.set(timers, 'b', undefined);
    await store.flush();
    expect(batches.map((b) => [...b.batch])).toEqual([
      [[`${timers}a`, '1']],
      [
        [`${timers}a`, null],
        [`${timers}b`, null],
      ],
    ]);
    expect(await onDisk(store)).toEqual([]);
    expect(store.get(timers, 'a')).toBeUndefined();
  });
});

describe('a space handle', () => {
  it('reads what was written to its entries by any way, and returns what a write replaces', async () => {
    const { store } = await open();
    const space = '0003vlast\0';
    const handle = store.space(space);
    expect(store.space(space)).toBe(handle);
    expect(handle.get('k')).toBeUndefined();
    expect(handle.put('k', '1')).toBeUndefined();
    expect(handle.get('k')).toBe('1');
    expect(handle.put('k', '2')).toBe('1');
    store.put(space, 'k', '3');
    expect(handle.get('k')).toBe('3');
    store.set(space, 'k', '4');
    expect(handle.put('k', '5')).toBe('4');
    store.restoreEntry(`${space}k`, '6');
    expect(handle.get('k')).toBe('6');
    await store.restoreDrop(space, `${space.slice(0, -1)}\x01`);
    expect(handle.get('k')).toBeUndefined();
    await store.flush();
    expect(handle.put('k', '7')).toBeUndefined();
    expect(store.get(space, 'k')).toBe('7');
  });

  it('sees what was written by full key before it was taken, and its writes reach LevelDB and the changelog by full key', async () => {
    const { store, batches } = await open();
    const space = '0004vcount\0';
    store.put(space, 'a', '1');
    store.restoreEntry(`${space}b`, '2');
    await store.flush();
    store.put(space, 'c', '3');
    let release!: () => void;
    store.onFlush = (flushed) => {
      batches.push(flushed);
      return new Promise<void>((resolve) => (release = resolve));
    };
    store.put(space, 'd', '4');
    store.flushNow();
    // Pending by full key and in flight: the handle, taken now, reads both.
    const handle = store.space(space);
    expect([handle.get('a'), handle.get('b'), handle.get('c'), handle.get('d')]).toEqual([
      '1',
      '2',
      '3',
      '4',
    ]);
    expect(handle.put('c', '5')).toBe('3');
    expect(store.put(space, 'e', '6')).toBeUndefined();
    store.set(space, 'a', undefined);
    release();
    store.onFlush = (flushed) => {
      batches.push(flushed);
      return undefined;
    };
    await store.flush();
    const logged: [string, string | null][] = [];
    forEachWrite(batches.at(-1)!, (key, value) => logged.push([key, value]));
    expect(logged).toEqual([
      [`${space}c`, '5'],
      [`${space}e`, '6'],
      [`${space}a`, null],
    ]);
    expect(await onDisk(store)).toEqual([
      [`${space}b`, '2'],
      [`${space}c`, '5'],
      [`${space}d`, '4'],
      [`${space}e`, '6'],
    ]);
    expect(await keys(store, space)).toEqual(['b', 'c', 'd', 'e']);
  });

  it('keeps its read cache within its budget across spaces with and without handles', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'level-store-'));
    dirs.push(dir);
    const budget = 64 * 1024;
    const store = await LevelKvStore.open(dir, budget);
    stores.push(store);
    const payload = 'x'.repeat(100);
    for (let i = 0; i < 2000; i++) {
      const keyGroup = (i % 8).toString(16).padStart(4, '0');
      store.space(`${keyGroup}vitems\0`).put(`k${i}`, payload);
      store.put(`${keyGroup}mitems\0k${i}\0${0}\0`, 'e', payload);
    }
    expect(store.cachedChars()).toBeLessThanOrEqual(budget);
    expect(store.space('0003vitems\0').get('k1995')).toBe(payload);
  });

  it('keeps its read cache within its budget when a value read as missing is then written large', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'level-store-'));
    dirs.push(dir);
    const budget = 64 * 1024;
    const store = await LevelKvStore.open(dir, budget);
    stores.push(store);
    const space = store.space('0001vitems\0');
    const payload = 'x'.repeat(1000);
    for (let i = 0; i < 1000; i++) {
      const key = `k${i}`;
      expect(space.get(key)).toBeUndefined();
      space.put(key, payload);
    }
    expect(store.cachedChars()).toBeLessThanOrEqual(budget);
  });
});

describe('batches on LevelDB', () => {
  it("sends 8,192 new timers as a batch alone, the spaces' small writes held and coalesced", async () => {
    const { store, batches } = await open();
    const counts = store.space('0001vcount\0');
    for (let i = 0; i < 8192; i++) {
      // A timer each, and the same key's count rewritten each time.
      store.set(timers, `t${String(i).padStart(5, '0')}`, '1', true);
      counts.put('k', String(i));
      const pending = store.maybeFlush();
      if (pending !== undefined) await pending;
    }
    // The 8,192nd timer cut a batch of the timers alone; the count is still pending, as written last.
    expect(batches).toHaveLength(1);
    expect(batches[0]!.batch.size).toBe(8192);
    expect(batches[0]!.spaced?.size).toBe(0);
    expect(counts.get('k')).toBe('8191');
    expect(await keys(store, timers, 't08190')).toEqual(['t08191']);
    await store.flush();
    expect(batches).toHaveLength(2);
    expect([...batches[1]!.spaced!.get('0001vcount\0')!]).toEqual([['k', '8191']]);
    const disk = await onDisk(store);
    expect(disk.filter(([key]) => key.startsWith(timers))).toHaveLength(8192);
    expect(disk.filter(([key]) => key.startsWith('0001vcount\0'))).toEqual([['0001vcount\0k', '8191']]);
  });

  it('sends a drop with everything pending, not after the timers alone', async () => {
    const { store, batches } = await open();
    store.space('0001vcount\0').put('k', '1');
    store.dropSpace('0002m\0');
    for (let i = 0; i < 8192; i++) store.set(timers, `t${String(i).padStart(5, '0')}`, '1', true);
    await store.maybeFlush();
    expect(batches).toHaveLength(1);
    expect(batches[0]!.dropped).toHaveLength(1);
    expect(batches[0]!.spaced?.size).toBe(1);
  });
});
