// Tumbling and sliding windows with a built-in aggregate keep their accumulators on the heap
// between checkpoints (window/windowAccumulators.ts): what reaches keyed state, when, and that no
// result depends on it.
import { describe, expect, it } from 'vitest';
import { WindowHarness } from '../../test/windowHarness.js';
import { MAX_HELD } from './window/windowAccumulators.js';

const tumbling = (extra: Record<string, unknown> = {}, options: { stepwise?: boolean } = {}) =>
  WindowHarness.open({ type: 'tumbling', sizeMs: 10, aggregate: 'count', ...extra }, options);

describe('window accumulators between checkpoints', () => {
  it('reach keyed state at a checkpoint, not with each record; the state size counts them all along', async () => {
    const h = await tumbling();
    h.record({ k: 'a' }, 1);
    h.record({ k: 'a' }, 2);
    h.record({ k: 'b' }, 3);
    expect(await h.storedWindows('a')).toEqual([]);
    expect(h.state.stateSize()).toMatchObject({ entries: 2, keys: 2 });
    expect(h.state.stateSize().bytes).toBeGreaterThan(0);
    h.checkpoint();
    expect(await h.storedWindows('a')).toEqual([[0, 2]]);
    expect(await h.storedWindows('b')).toEqual([[0, 1]]);
    expect(h.state.stateSize()).toMatchObject({ entries: 2, keys: 2 });
    // Records after the checkpoint go on from what it wrote, and the next one writes them.
    h.record({ k: 'a' }, 4);
    expect(await h.storedWindows('a')).toEqual([[0, 2]]);
    h.checkpoint();
    expect(await h.storedWindows('a')).toEqual([[0, 3]]);
    h.end();
    expect(h.take()).toEqual([
      { key: 'a', start: 0, end: 10, value: 3 },
      { key: 'b', start: 0, end: 10, value: 1 },
    ]);
    expect(await h.storedWindows('a')).toEqual([]);
    expect(h.state.stateSize()).toEqual({ entries: 0, bytes: 0, keys: 0 });
  });

  it('a window that opens and fires between two checkpoints leaves nothing in the store or the state size', async () => {
    const h = await tumbling();
    h.record({ k: 'a' }, 1);
    h.advance(9);
    expect(h.take()).toEqual([{ key: 'a', start: 0, end: 10, value: 1 }]);
    h.checkpoint();
    expect(await h.storedWindows('a')).toEqual([]);
    expect(h.state.stateSize()).toEqual({ entries: 0, bytes: 0, keys: 0 });
  });

  it('a float sum has the same bits whether or not a checkpoint came between its records', async () => {
    const values = [0.1, 0.2, 0.3];
    const sums: unknown[] = [];
    for (const checkpointAfter of [undefined, 0, 1]) {
      const h = await tumbling({ aggregate: 'sum', field: 'v' });
      values.forEach((v, i) => {
        h.record({ k: 'a', v }, i);
        if (i === checkpointAfter) h.checkpoint();
      });
      h.end();
      sums.push(h.take());
    }
    // Added one after the other, as Flink's AggregateFunction does: 0.1 + 0.2 + 0.3, not 0.1 + (0.2 + 0.3).
    expect(sums).toEqual(Array(3).fill([{ key: 'a', start: 0, end: 10, value: 0.1 + 0.2 + 0.3 }]));
  });

  it(`past ${MAX_HELD} (key, window) pairs writes them back and lets go; results are the same`, async () => {
    const h = await tumbling();
    const keys = MAX_HELD + 10;
    for (let i = 0; i < keys; i++) h.record({ k: `k${i}` }, 1);
    // Written back when the limit was reached, without a checkpoint; the rest are still held.
    expect(await h.storedWindows('k0')).toEqual([[0, 1]]);
    expect(await h.storedWindows(`k${keys - 1}`)).toEqual([]);
    for (let i = 0; i < keys; i++) h.record({ k: `k${i}` }, 2);
    expect(h.state.stateSize().entries).toBe(keys);
    h.end();
    const out = h.take() as { value: number }[];
    expect(out).toHaveLength(keys);
    expect(out.every((r) => r.value === 2)).toBe(true);
    expect(h.state.stateSize()).toEqual({ entries: 0, bytes: 0, keys: 0 });
  });

  it('sliding windows: each of a record’s windows is held, and fires with its own count', async () => {
    const h = await WindowHarness.open({ type: 'sliding', sizeMs: 30, slideMs: 10, aggregate: 'count' });
    h.record({ k: 'a' }, 5);
    h.record({ k: 'a' }, 15);
    expect(await h.storedWindows('a')).toEqual([]);
    expect(h.state.stateSize().entries).toBe(4);
    h.checkpoint();
    expect(await h.storedWindows('a')).toHaveLength(4);
    expect(await h.storedWindows('a')).toEqual(
      expect.arrayContaining([
        [-20, 1],
        [-10, 2],
        [0, 2],
        [10, 1],
      ]),
    );
    h.end();
    expect(h.take()).toEqual([
      { key: 'a', start: -20, end: 10, value: 1 },
      { key: 'a', start: -10, end: 20, value: 2 },
      { key: 'a', start: 0, end: 30, value: 2 },
      { key: 'a', start: 10, end: 40, value: 1 },
    ]);
  });

  it('a late record within the allowed lateness fires its window again with what the checkpoint wrote', async () => {
    const h = await tumbling({ allowedLatenessMs: 20 });
    h.record({ k: 'a' }, 1);
    h.checkpoint();
    h.advance(9);
    expect(h.take()).toEqual([{ key: 'a', start: 0, end: 10, value: 1 }]);
    h.record({ k: 'a' }, 2);
    expect(h.take()).toEqual([{ key: 'a', start: 0, end: 10, value: 2 }]);
    h.advance(29);
    expect(await h.storedWindows('a')).toEqual([]);
    expect(h.state.stateSize()).toEqual({ entries: 0, bytes: 0, keys: 0 });
  });

  it('a debug run keeps them in keyed state with each record (the debugger shows and rolls it back)', async () => {
    const h = await tumbling({}, { stepwise: true });
    h.record({ k: 'a' }, 1);
    expect(await h.storedWindows('a')).toEqual([[0, 1]]);
  });

  it('a code aggregate keeps them in keyed state with each record (they may be as large as the code makes them)', async () => {
    const h = await tumbling({
      aggregate: 'code',
      code: [
        'function createAccumulator() { return []; }',
        'function add(acc, r) { return [...acc, r.k]; }',
        'function result(acc) { return acc.length; }',
      ].join('\n'),
    });
    h.record({ k: 'a' }, 1);
    expect(await h.storedWindows('a')).toEqual([[0, ['a']]]);
  });
  it('fire every key of a window, when event time reaches it, in the order timers fire (key, as UTF-8)', async () => {
    const h = await tumbling();
    // U+FFFF sorts before U+1F600 as UTF-8, after it as JavaScript's UTF-16 units.
    for (const k of ['b', '😀', 'é', '\uffff', 'a', 'z']) h.record({ k }, 1);
    h.advance(8);
    expect(h.take()).toEqual([]);
    h.advance(9);
    expect((h.take() as { key: string }[]).map((r) => r.key)).toEqual(['a', 'b', 'z', 'é', '\uffff', '😀']);
    expect(h.timerCount).toBe(0);
  });

  it('a checkpoint registers the timers of what it writes (a restore fires them); fired from the heap, it does not fire again when they come', async () => {
    const h = await tumbling({ allowedLatenessMs: 5 });
    h.record({ k: 'a' }, 1);
    expect(h.timersOf('a')).toEqual([]);
    h.checkpoint();
    expect(h.timersOf('a')).toEqual([9, 14]);
    h.advance(9);
    expect(h.take()).toEqual([{ key: 'a', start: 0, end: 10, value: 1 }]);
    expect(h.timersOf('a')).toEqual([14]);
    h.advance(14);
    expect(h.take()).toEqual([]);
    expect(await h.storedWindows('a')).toEqual([]);
    expect(h.state.stateSize()).toEqual({ entries: 0, bytes: 0, keys: 0 });
  });

  it('a sliding window whose cleanup timer is the next one’s due does not fire that one twice', async () => {
    // Windows of 10 every 5, lateness 5: the cleanup of [0, 10) (at 14) is the due of [5, 15).
    const h = await WindowHarness.open({
      type: 'sliding',
      sizeMs: 10,
      slideMs: 5,
      aggregate: 'count',
      allowedLatenessMs: 5,
    });
    h.record({ k: 'a' }, 7);
    h.checkpoint();
    h.record({ k: 'a' }, 8);
    h.end();
    expect(h.take()).toEqual([
      { key: 'a', start: 0, end: 10, value: 2 },
      { key: 'a', start: 5, end: 15, value: 2 },
    ]);
  });

  it('a window that fired and waits out its lateness registers only its cleanup at a checkpoint', async () => {
    const h = await tumbling({ allowedLatenessMs: 5 });
    h.record({ k: 'a' }, 1);
    h.advance(9);
    expect(h.take()).toHaveLength(1);
    h.checkpoint();
    expect(h.timersOf('a')).toEqual([14]);
    h.record({ k: 'a' }, 2);
    expect(h.take()).toEqual([{ key: 'a', start: 0, end: 10, value: 2 }]);
    h.end();
    expect(h.take()).toEqual([]);
    expect(h.timerCount).toBe(0);
    expect(await h.storedWindows('a')).toEqual([]);
  });
});
