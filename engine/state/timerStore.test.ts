// The timers' heap cache in front of the store: registering and firing touch the store only to
// write through, a duplicate (key, time) is dropped, and a key group holding more timers than its
// cache (on LevelDB) still fires every one, once, in order, reading the store a cache at a time.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TimerFiring } from '../runtime/timerFiring.js';
import type { KvStore } from './kvStore.js';
import { LevelKvStore } from './levelKvStore.js';
import { MemoryKvStore } from './memoryKvStore.js';
import { encodeKey } from './stateKeys.js';
import { checkTimerTime, parseTimerEntry, timerEntryKey } from './timerKeys.js';
import { TimerStore } from './timerStore.js';

const dirs: string[] = [];
const stores: KvStore[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close()));
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

/** Counts the calls that read the store: get, put (which reads what it replaces) and range reads (entries, keysAfter). */
function counted(inner: KvStore): { store: KvStore; reads: Record<string, number> } {
  const reads: Record<string, number> = { get: 0, put: 0, entries: 0 };
  const store = new Proxy(inner, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const read = name === 'keysAfter' ? 'entries' : name;
        if (typeof read === 'string' && read in reads) reads[read]!++;
        return value.apply(target, args);
      };
    },
  });
  return { store, reads };
}

const backends: [string, () => Promise<KvStore>][] = [
  ['memory', async () => new MemoryKvStore()],
  [
    'level',
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'timer-cache-'));
      dirs.push(dir);
      const store = await LevelKvStore.open(dir, 1 << 20);
      stores.push(store);
      return store;
    },
  ],
];

async function fireUpTo(timers: TimerStore, upTo: number): Promise<[number, unknown, number][]> {
  const firing = new TimerFiring(timers, 'eventTime', upTo);
  const fired: [number, unknown, number][] = [];
  for (let t = await firing.next(); t !== undefined; t = await firing.next())
    fired.push([t.timestamp, t.key, t.keyGroup]);
  return fired;
}

describe('a timer entry key', () => {
  it('is the time in 14 hex digits, sorting as the time does, and reads back', () => {
    const limit = 2 ** 52 - 1;
    const times = [
      -limit,
      -(2 ** 28) - 1,
      -(2 ** 28),
      -1,
      0,
      1,
      2 ** 28 - 1,
      2 ** 28,
      1_704_067_200_000,
      limit,
    ];
    const keys = times.map((t) => timerEntryKey(checkTimerTime('t', t), 'k'));
    expect(keys.map((k) => k.length)).toEqual(times.map(() => 15));
    expect([...keys].sort()).toEqual(keys);
    expect(keys.map(parseTimerEntry)).toEqual(times.map((timestamp) => ({ timestamp, keyText: 'k' })));
    expect(timerEntryKey(0, 'k')).toBe(`${(2 ** 52).toString(16).padStart(14, '0')}k`);
  });
});

describe.each(backends)('the timer cache on %s', (_name, open) => {
  it('a timer per record, fired by the watermark after it: no store read at all', async () => {
    const { store, reads } = counted(await open());
    const timers = new TimerStore(store, 128);
    const fired: number[] = [];
    // 20 keys over 4 key groups; each record sets a timer 100 ms on, and again (a duplicate).
    for (let i = 0; i < 5000; i++) {
      const key = encodeKey(`k${i % 20}`);
      timers.register('eventTime', i % 4, key, i + 100);
      timers.register('eventTime', i % 4, key, i + 100);
      if (timers.mayHaveDue('eventTime', i)) fired.push(...(await fireUpTo(timers, i)).map(([t]) => t));
    }
    expect(timers.count).toBe(100);
    expect(fired).toEqual(Array.from({ length: 4900 }, (_, i) => i + 100));
    expect(reads).toEqual({ get: 0, put: 0, entries: 0 });
    // Firings that were synchronous: no promise per timer.
    const firing = new TimerFiring(timers, 'eventTime', 5050);
    expect(firing.next()).not.toBeInstanceOf(Promise);
  });

  it('more timers than a cache holds: each fires once, in order, deletions and duplicates exact', async () => {
    const { store, reads } = counted(await open());
    const timers = new TimerStore(store, 128);
    // Latest first, 1,000 timers in one key group of two keys: the cache keeps the earliest.
    for (let t = 999; t >= 0; t--) timers.register('eventTime', 7, encodeKey(t % 2 === 0 ? 'a' : 'b'), t);
    // Duplicates and deletions beyond what any cache holds, and before it.
    for (let t = 900; t < 1000; t++) timers.register('eventTime', 7, encodeKey(t % 2 === 0 ? 'a' : 'b'), t);
    for (let t = 950; t < 1000; t++)
      expect(timers.delete('eventTime', 7, encodeKey(t % 2 === 0 ? 'a' : 'b'), t)).toBe(true);
    expect(timers.delete('eventTime', 7, encodeKey('a'), 951)).toBe(false);
    expect(timers.delete('eventTime', 7, encodeKey('a'), 10)).toBe(true);
    expect(timers.count).toBe(949);
    const first = await fireUpTo(timers, 499);
    expect(first.map(([t]) => t)).toEqual(Array.from({ length: 500 }, (_, t) => t).filter((t) => t !== 10));
    timers.register('eventTime', 7, encodeKey('c'), 600);
    timers.register('eventTime', 3, encodeKey('d'), 600);
    const rest = await fireUpTo(timers, Number.POSITIVE_INFINITY);
    expect(rest.map(([t]) => t)).toEqual(
      [...Array.from({ length: 450 }, (_, t) => t + 500), 600, 600].sort((x, y) => x - y),
    );
    // Time, then key group, then key.
    expect(rest.filter(([t]) => t === 600)).toEqual(
      [
        [600, 'a', 7],
        [600, 'd', 3],
        [600, 'c', 7],
      ].sort((x, y) => (x[2] as number) - (y[2] as number) || String(x[1]).localeCompare(String(y[1]))),
    );
    expect(timers.count).toBe(0);
    // LevelDB's cache is bounded, so the store was read a cache at a time (128, 256, 512 and the
    // rest); the heap's holds all.
    if (_name === 'level') expect(reads.entries).toBeGreaterThanOrEqual(3);
    else expect(reads.entries).toBe(0);
  });

  it('a group whose cache keeps running dry is read in growing steps', async () => {
    const { store, reads } = counted(await open());
    const timers = new TimerStore(store, 128);
    for (let t = 0; t < 5000; t++) timers.register('eventTime', 5, encodeKey(`k${t % 7}`), t);
    const fired = await fireUpTo(timers, Number.POSITIVE_INFINITY);
    expect(fired.map(([t]) => t)).toEqual(Array.from({ length: 5000 }, (_, t) => t));
    // 128, 256, ..., 4096 timers a read on LevelDB, not 128 each time (39 reads).
    if (_name === 'level') expect(reads.entries).toBe(6);
    else expect(reads.entries).toBe(0);
  });

  it('a group is read ahead while its cache fires: the firing never waits for a read', async () => {
    const timers = new TimerStore(await open(), 128);
    for (let t = 0; t < 5000; t++) timers.register('eventTime', 5, encodeKey(`k${t % 7}`), t);
    const firing = new TimerFiring(timers, 'eventTime', Number.POSITIVE_INFINITY);
    const fired: number[] = [];
    let waited = 0;
    for (;;) {
      let next = firing.next();
      if (next instanceof Promise) {
        waited++;
        next = await next;
      }
      if (next === undefined) break;
      fired.push(next.timestamp);
      // As if each timer's callback took as long as LevelDB's threads take to read on.
      await timers.readsAhead();
    }
    expect(fired).toEqual(Array.from({ length: 5000 }, (_, t) => t));
    // Without reads ahead, 6 on LevelDB: each time its cache (128, 256, ... timers) ran dry.
    expect(waited).toBe(0);
  });

  it('a read ahead that writes overtook is dropped: every timer fires once, in order', async () => {
    const timers = new TimerStore(await open(), 128);
    const key = (t: number) => encodeKey(`k${t % 3}`);
    for (let t = 0; t < 1000; t += 2) timers.register('eventTime', 0, key(t), t);
    const fired: number[] = [];
    const firing = new TimerFiring(timers, 'eventTime', Number.POSITIVE_INFINITY);
    for (let n = 0; ; n++) {
      const next = await firing.next();
      if (next === undefined) break;
      fired.push(next.timestamp);
      // Writes while reads ahead are under way: into the store only (after every cached timer),
      // into the cache, and deletions of both.
      if (n % 40 === 0) {
        timers.register('eventTime', 0, key(next.timestamp + 901), next.timestamp + 901);
        timers.register('eventTime', 0, key(next.timestamp + 3), next.timestamp + 3);
        timers.delete('eventTime', 0, key(next.timestamp + 502), next.timestamp + 502);
      }
      if (n % 7 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    const expected = new Set(Array.from({ length: 500 }, (_, i) => 2 * i));
    for (let n = 0, t = 0; n < 500 && t < 1000; n++) {
      // Replays the writes above against the order the timers fired in.
      t = fired[n]!;
      if (n % 40 === 0) {
        expected.add(t + 901);
        expected.add(t + 3);
        if (t + 502 < 1000 && !fired.slice(0, n + 1).includes(t + 502)) expected.delete(t + 502);
      }
    }
    expect(fired).toEqual([...expected].sort((x, y) => x - y));
    expect(timers.count).toBe(0);
  });

  it('a read ahead is dropped when the cache no longer ends where it began', async () => {
    const timers = new TimerStore(await open(), 128);
    for (let t = 0; t < 1000; t += 2) timers.register('eventTime', 0, encodeKey('k'), t);
    const firing = new TimerFiring(timers, 'eventTime', Number.POSITIVE_INFINITY);
    const fired: string[] = [];
    // On LevelDB the cache holds 0 to 254; taking 96 of them starts a read of what follows 254.
    for (let n = 0; n < 96; n++) {
      const next = await firing.next();
      fired.push(`${next!.timestamp}${next!.key}`);
    }
    // Timers among the cached ones, more than its limit: the latest cached go to the store only,
    // so what the read finds after 254 no longer follows the cache.
    for (const key of ['w', 'x', 'y', 'z'])
      for (let t = 252; t >= 192; t -= 2) timers.register('eventTime', 0, encodeKey(key), t);
    for (let t = await firing.next(); t !== undefined; t = await firing.next())
      fired.push(`${t.timestamp}${t.key}`);
    const expected: string[] = [];
    for (let t = 0; t < 1000; t += 2)
      for (const key of t >= 192 && t < 254 ? ['k', 'w', 'x', 'y', 'z'] : ['k']) expected.push(`${t}${key}`);
    expect(fired).toEqual(expected);
    expect(timers.count).toBe(0);
  });

  it('a timer registered before the last one fired, while the cache is dry, still fires', async () => {
    const timers = new TimerStore(await open(), 128);
    const key = encodeKey('k');
    for (let t = 0; t < 300; t++) timers.register('eventTime', 0, key, t);
    // Fires all but the last of what LevelDB's cache holds, and deletes that one: the cache is
    // dry, the store holds the rest.
    expect((await fireUpTo(timers, 126)).length).toBe(127);
    expect(timers.delete('eventTime', 0, key, 127)).toBe(true);
    // Earlier than every timer the store holds, and than the last fired: a read must not start after that.
    timers.register('eventTime', 0, key, 50);
    expect((await fireUpTo(timers, 1000)).map(([t]) => t)).toEqual([
      50,
      ...Array.from({ length: 172 }, (_, t) => t + 128),
    ]);
    expect(timers.count).toBe(0);
  });

  it('after a restore, timers are read back from the store when due', async () => {
    const store = await open();
    const before = new TimerStore(store, 128);
    for (let t = 0; t < 300; t++) before.register('eventTime', t % 3, encodeKey(`k${t % 5}`), t);
    const restored = new TimerStore(store, 128);
    for await (const chunk of await store.snapshotEntries())
      for (const [key] of chunk) restored.restored(key);
    expect(restored.count).toBe(300);
    expect(restored.mayHaveDue('eventTime', -1)).toBe(false);
    restored.register('eventTime', 1, encodeKey('k1'), 1);
    expect(restored.count).toBe(300);
    expect((await fireUpTo(restored, 1000)).map(([t]) => t)).toEqual(
      Array.from({ length: 300 }, (_, t) => t),
    );
  });
});
