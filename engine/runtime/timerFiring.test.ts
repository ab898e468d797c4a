import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { KvStore } from '../state/kvStore.js';
import { LevelKvStore } from '../state/levelKvStore.js';
import { MemoryKvStore } from '../state/memoryKvStore.js';
import { encodeKey } from '../state/stateKeys.js';
import { TimerStore } from '../state/timerStore.js';
import { TimerFiring } from './timerFiring.js';

const dirs: string[] = [];
const stores: KvStore[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close()));
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

const backends: [string, () => Promise<KvStore>][] = [
  ['memory', async () => new MemoryKvStore()],
  [
    'level',
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'timers-'));
      dirs.push(dir);
      const store = await LevelKvStore.open(dir, 1 << 20);
      stores.push(store);
      return store;
    },
  ],
];

async function fireAll(firing: TimerFiring) {
  const fired: [number, unknown, number][] = [];
  for (let t = await firing.next(); t !== undefined; t = await firing.next())
    fired.push([t.timestamp, t.key, t.keyGroup]);
  return fired;
}

describe.each(backends)('timers on %s', (_name, open) => {
  it('fire in time order across key groups, only those due, each once', async () => {
    const timers = new TimerStore(await open(), 128);
    timers.register('eventTime', 5, encodeKey('a'), 300);
    timers.register('eventTime', 5, encodeKey('a'), 100);
    timers.register('eventTime', 9, encodeKey('b'), 200);
    timers.register('eventTime', 9, encodeKey('b'), 200);
    timers.register('eventTime', 1, encodeKey('c'), -50);
    timers.register('processingTime', 1, encodeKey('c'), 0);
    expect(timers.count).toBe(5);
    expect(await fireAll(new TimerFiring(timers, 'eventTime', 250))).toEqual([
      [-50, 'c', 1],
      [100, 'a', 5],
      [200, 'b', 9],
    ]);
    expect(timers.count).toBe(2);
    expect(await fireAll(new TimerFiring(timers, 'eventTime', 250))).toEqual([]);
    expect(await fireAll(new TimerFiring(timers, 'eventTime', Number.POSITIVE_INFINITY))).toEqual([
      [300, 'a', 5],
    ]);
    expect(await fireAll(new TimerFiring(timers, 'processingTime', 0))).toEqual([[0, 'c', 1]]);
  });

  it('skip a timer deleted before its turn and fire one registered, due, during the firing', async () => {
    const timers = new TimerStore(await open(), 128);
    timers.register('eventTime', 2, encodeKey('a'), 10);
    timers.register('eventTime', 2, encodeKey('b'), 20);
    const firing = new TimerFiring(timers, 'eventTime', 100);
    const first = await firing.next();
    expect(first?.key).toBe('a');
    timers.delete('eventTime', 2, encodeKey('b'), 20);
    timers.register('eventTime', 3, encodeKey('c'), 50);
    expect(await fireAll(firing)).toEqual([[50, 'c', 3]]);
    expect(timers.count).toBe(0);
  });

  it('keys of any JSON type, and timers of one key in time order', async () => {
    const timers = new TimerStore(await open(), 128);
    const key = encodeKey({ user: 7, tags: ['x'] });
    for (const ts of [30, 10, 20]) timers.register('eventTime', 0, key, ts);
    expect(await fireAll(new TimerFiring(timers, 'eventTime', 30))).toEqual([
      [10, { user: 7, tags: ['x'] }, 0],
      [20, { user: 7, tags: ['x'] }, 0],
      [30, { user: 7, tags: ['x'] }, 0],
    ]);
  });
});
