// Both backends browsed the same way: keys and entries in LevelDB's order (UTF-8 bytes), ranges
// with gt/gte/lt, values as JSON text, and writes made before browse() visible to it.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KvStore } from './kvStore.js';
import { LevelKvStore } from './levelKvStore.js';
import { MemoryKvStore } from './memoryKvStore.js';
import { StateTag, stateSpace } from './stateKeys.js';
import { compareUtf8 } from './storeBrowser.js';

let root: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'pipewright-browse-'));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('compareUtf8', () => {
  it('orders strings as their UTF-8 bytes, astral characters above U+E000..U+FFFF', () => {
    const words = ['a', 'ab', '', 'b', '\uffff', '\ue000', '😀', '\ud7ff', 'é', 'z😀', 'z\uffff', '\x01x'];
    const byBytes = [...words].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    expect([...words].sort(compareUtf8)).toEqual(byBytes);
    // JavaScript's own order differs exactly there.
    expect([...words].sort()).not.toEqual(byBytes);
  });
});

const backends: [string, () => Promise<KvStore>][] = [
  ['level', () => LevelKvStore.open(join(root, `db-${Math.random()}`), 1 << 20)],
  ['memory', async () => new MemoryKvStore()],
];

describe.each(backends)('browse() on the %s backend', (_name, open) => {
  it('pages keys in UTF-8 order with gt, gte and lt, and reads values as JSON text', async () => {
    const store = await open();
    const space = stateSpace(3, StateTag.Value, 'count');
    const keys = ['b', 'a', '😀', '\uffff', 'c'];
    keys.forEach((key, i) => {
      store.put(space, key, store.codec.encode('test', { n: i }));
    });
    store.put(stateSpace(4, StateTag.Value, 'count'), 'a', store.codec.encode('test', 9));
    const browser = await store.browse();
    const end = stateSpace(4, StateTag.Value, '');
    expect(await browser.keys({ gte: space, lt: end }, 10)).toEqual(
      ['a', 'b', 'c', '\uffff', '😀'].map((k) => space + k),
    );
    expect(await browser.keys({ gt: `${space}b`, lt: end }, 2)).toEqual([`${space}c`, `${space}\uffff`]);
    expect(await browser.keys({ gte: `${space}b`, lt: `${space}c` }, 10)).toEqual([`${space}b`]);
    expect(await browser.entries({ gte: space, lt: end }, 1)).toEqual([[`${space}a`, '{"n":1}']]);
    expect(await browser.values([`${space}c`, `${space}x`])).toEqual(['{"n":4}', undefined]);
    await store.close();
  });
});
