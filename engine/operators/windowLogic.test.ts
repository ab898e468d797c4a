// The window logic driven record by record, watermark by watermark (windowHarness.ts): what
// fires when, with what, and what is late — Flink's WindowOperator semantics.
import { describe, expect, it } from 'vitest';
import { WindowHarness } from '../../test/windowHarness.js';

/** `stepwise`: as in a debug run, whose windows are all in keyed state with timers per key. */
const tumbling = (extra: Record<string, unknown> = {}, options: { stepwise?: boolean } = {}) =>
  WindowHarness.open({ type: 'tumbling', sizeMs: 10, aggregate: 'count', ...extra }, options);

describe('tumbling windows', () => {
  it('fire when the watermark reaches their last ms, one result per key and window', async () => {
    const h = await tumbling({ aggregate: 'sum', field: 'v' });
    h.record({ k: 'a', v: 1 }, 0);
    h.record({ k: 'a', v: 2 }, 9);
    h.record({ k: 'b', v: 5 }, 3);
    h.record({ k: 'a', v: 4 }, 10);
    h.advance(8);
    expect(h.take()).toEqual([]);
    h.advance(9);
    expect(h.take()).toEqual([
      { key: 'a', start: 0, end: 10, value: 3 },
      { key: 'b', start: 0, end: 10, value: 5 },
    ]);
    h.end();
    expect(h.take()).toEqual([{ key: 'a', start: 10, end: 20, value: 4 }]);
    expect(h.timerCount).toBe(0);
  });

  it('the output carries the window’s last ms as its time', async () => {
    const h = await tumbling();
    h.record({ k: 'a' }, 3);
    h.end();
    expect(h.emitted).toEqual([
      { port: 'out', value: { key: 'a', start: 0, end: 10, value: 1 }, timestamp: 9 },
    ]);
  });

  it('before the epoch and with an offset', async () => {
    const h = await tumbling({ offsetMs: 3 });
    h.record({ k: 'a' }, -1);
    h.record({ k: 'a' }, -7);
    h.record({ k: 'a' }, -8);
    h.end();
    expect(h.take()).toEqual([
      { key: 'a', start: -17, end: -7, value: 1 },
      { key: 'a', start: -7, end: 3, value: 2 },
    ]);
  });

  it('keeps one accumulator per key and window, never the records', async () => {
    const h = await tumbling({ aggregate: 'avg', field: 'v' });
    for (let i = 0; i < 100; i++) h.record({ k: 'a', v: i }, i % 10);
    expect(h.state.stateSize().entries).toBe(1);
    h.checkpoint();
    expect(await h.storedWindows('a')).toEqual([[0, { sum: 4950, count: 100 }]]);
    expect(h.state.stateSize().entries).toBe(1);
    h.end();
    expect(h.take()).toEqual([{ key: 'a', start: 0, end: 10, value: 49.5 }]);
    expect(h.state.stateSize().entries).toBe(0);
  });

  it('a record whose window has fired goes, unchanged, to port "late"', async () => {
    const h = await tumbling();
    h.record({ k: 'a' }, 5);
    h.advance(10);
    expect(h.take()).toEqual([{ key: 'a', start: 0, end: 10, value: 1 }]);
    const late = { k: 'a', note: 'late' };
    h.record(late, 9);
    expect(h.take('late')).toEqual([late]);
    expect(h.take()).toEqual([]);
    // On time for the next window.
    h.record({ k: 'a' }, 11);
    h.end();
    expect(h.take()).toEqual([{ key: 'a', start: 10, end: 20, value: 1 }]);
    expect(h.take('late')).toEqual([]);
  });

  it('a record at the watermark itself is late when its window ends right there', async () => {
    const h = await tumbling();
    h.advance(9);
    h.record({ k: 'a' }, 9);
    expect(h.take('late')).toHaveLength(1);
    h.record({ k: 'a' }, 10);
    expect(h.take('late')).toHaveLength(0);
  });

  it('a record without event time fails, saying what the window needs', async () => {
    const h = await tumbling();
    expect(() => h.record({ k: 'a', v: 1 }, undefined)).toThrow(
      'the record has no event time, which a window needs (give its source a timestampField): {"k":"a","v":1}',
    );
  });
});

describe('allowed lateness', () => {
  it('a late record within it fires the window again at once with the updated value', async () => {
    const h = await tumbling({ allowedLatenessMs: 5, aggregate: 'sum', field: 'v' });
    h.record({ k: 'a', v: 1 }, 2);
    h.advance(9);
    expect(h.take()).toEqual([{ key: 'a', start: 0, end: 10, value: 1 }]);
    h.record({ k: 'a', v: 10 }, 3);
    expect(h.emitted).toEqual([
      { port: 'out', value: { key: 'a', start: 0, end: 10, value: 11 }, timestamp: 9 },
    ]);
    h.take();
    h.advance(13);
    h.record({ k: 'a', v: 100 }, 0);
    expect(h.take()).toEqual([{ key: 'a', start: 0, end: 10, value: 111 }]);
    // end − 1 + lateness = 14 ≤ watermark: the state is gone and the record is late.
    h.advance(14);
    expect(h.take()).toEqual([]);
    h.record({ k: 'a', v: 1000 }, 0);
    expect(h.take('late')).toEqual([{ k: 'a', v: 1000 }]);
    expect(h.take()).toEqual([]);
    expect(h.state.stateSize().entries).toBe(0);
    expect(h.timerCount).toBe(0);
  });

  for (const stepwise of [false, true]) {
    const where = stepwise ? 'in keyed state with timers (debug runs)' : 'held on the heap';
    it(`a window first seen within the lateness fires at once, and is cleaned up later (${where})`, async () => {
      const h = await tumbling({ allowedLatenessMs: 100 }, { stepwise });
      h.advance(50);
      h.record({ k: 'a' }, 5);
      expect(h.take()).toEqual([{ key: 'a', start: 0, end: 10, value: 1 }]);
      // A held window has no timer: advance() fires and cleans it up.
      expect(h.timersOf('a')).toEqual(stepwise ? [109] : []);
      h.advance(108);
      expect(h.state.stateSize().entries).toBe(1);
      h.advance(109);
      expect(h.take()).toEqual([]);
      expect(h.state.stateSize().entries).toBe(0);
    });

    it(`without it, the window fires once and its state goes with its firing (${where})`, async () => {
      const h = await tumbling({}, { stepwise });
      h.record({ k: 'a' }, 1);
      expect(h.timersOf('a')).toEqual(stepwise ? [9] : []);
      h.advance(9);
      expect(h.take()).toEqual([{ key: 'a', start: 0, end: 10, value: 1 }]);
      expect(h.state.stateSize().entries).toBe(0);
      h.end();
      expect(h.take()).toEqual([]);
    });
  }
});

describe('sliding windows', () => {
  it('a record counts in size/slide windows, each firing at its own end', async () => {
    const h = await WindowHarness.open({ type: 'sliding', sizeMs: 10, slideMs: 5, aggregate: 'count' });
    h.record({ k: 'a' }, 7);
    h.record({ k: 'a' }, 12);
    h.advance(9);
    expect(h.take()).toEqual([{ key: 'a', start: 0, end: 10, value: 1 }]);
    h.end();
    expect(h.take()).toEqual([
      { key: 'a', start: 5, end: 15, value: 2 },
      { key: 'a', start: 10, end: 20, value: 1 },
    ]);
  });

  it('a record late for some of its windows goes into the others only', async () => {
    const h = await WindowHarness.open({ type: 'sliding', sizeMs: 10, slideMs: 5, aggregate: 'count' });
    h.advance(10);
    h.record({ k: 'a' }, 7);
    expect(h.take('late')).toEqual([]);
    h.end();
    expect(h.take()).toEqual([{ key: 'a', start: 5, end: 15, value: 1 }]);
    h.advance(Number.POSITIVE_INFINITY);
    h.record({ k: 'a' }, 100);
    expect(h.take('late')).toHaveLength(1);
  });

  it('with lateness: the fire of one window and the cleanup of another at the same time', async () => {
    const h = await WindowHarness.open({
      type: 'sliding',
      sizeMs: 10,
      slideMs: 5,
      aggregate: 'count',
      allowedLatenessMs: 5,
    });
    h.record({ k: 'a' }, 6);
    // [0,10) fires at 9, is cleaned at 14, when [5,15) fires.
    h.advance(9);
    expect(h.take()).toEqual([{ key: 'a', start: 0, end: 10, value: 1 }]);
    h.advance(14);
    expect(h.take()).toEqual([{ key: 'a', start: 5, end: 15, value: 1 }]);
    h.record({ k: 'a' }, 6);
    expect(h.take()).toEqual([{ key: 'a', start: 5, end: 15, value: 2 }]);
    h.end();
    expect(h.take()).toEqual([]);
    expect(h.state.stateSize().entries).toBe(0);
  });
});

describe('session windows', () => {
  const session = (extra: Record<string, unknown> = {}) =>
    WindowHarness.open({ type: 'session', gapMs: 10, aggregate: 'count', ...extra });

  it('records closer than the gap are one session; the session fires gap after its last record', async () => {
    const h = await session();
    h.record({ k: 'a' }, 0);
    h.record({ k: 'a' }, 5);
    h.record({ k: 'a' }, 15);
    h.record({ k: 'a' }, 26);
    h.record({ k: 'b' }, 3);
    expect(h.timersOf('a')).toEqual([24, 35]);
    h.advance(24);
    expect(h.take()).toEqual([
      { key: 'b', start: 3, end: 13, value: 1 },
      { key: 'a', start: 0, end: 25, value: 3 },
    ]);
    h.end();
    expect(h.take()).toEqual([{ key: 'a', start: 26, end: 36, value: 1 }]);
    expect(h.state.stateSize()).toEqual({ entries: 0, bytes: 0, keys: 0 });
  });

  it('a record between two sessions merges them, accumulators and timers', async () => {
    const h = await session({ aggregate: 'sum', field: 'v' });
    h.record({ k: 'a', v: 1 }, 0);
    h.record({ k: 'a', v: 2 }, 20);
    expect(h.timersOf('a')).toEqual([9, 29]);
    h.record({ k: 'a', v: 4 }, 10);
    // [0,10) and [20,30) touch [10,20): one session [0,30).
    expect(h.timersOf('a')).toEqual([29]);
    h.end();
    expect(h.take()).toEqual([{ key: 'a', start: 0, end: 30, value: 7 }]);
  });

  it('out of order records extend a session backwards', async () => {
    const h = await session({ aggregate: 'min', field: 'v' });
    h.record({ k: 'a', v: 5 }, 50);
    h.record({ k: 'a', v: 3 }, 45);
    h.record({ k: 'a', v: 9 }, 38);
    h.end();
    expect(h.take()).toEqual([{ key: 'a', start: 38, end: 60, value: 3 }]);
  });

  it('before the epoch', async () => {
    const h = await session();
    h.record({ k: 'a' }, -30);
    h.record({ k: 'a' }, -21);
    h.end();
    expect(h.take()).toEqual([{ key: 'a', start: -30, end: -11, value: 2 }]);
  });

  it('a record whose session window is late goes to "late"; one merging into a live session is taken', async () => {
    const h = await session();
    h.record({ k: 'a' }, 30);
    h.advance(25);
    h.record({ k: 'a' }, 10);
    expect(h.take('late')).toEqual([{ k: 'a' }]);
    // [21,31) touches the live [30,40).
    h.record({ k: 'a' }, 21);
    expect(h.take('late')).toEqual([]);
    h.end();
    expect(h.take()).toEqual([{ key: 'a', start: 21, end: 40, value: 2 }]);
  });

  it('with lateness, a late record extending a fired session fires the merged one when it is due', async () => {
    const h = await session({ allowedLatenessMs: 20 });
    h.record({ k: 'a' }, 0);
    h.advance(9);
    expect(h.take()).toEqual([{ key: 'a', start: 0, end: 10, value: 1 }]);
    // Within the lateness, merging into the fired session without extending it past the
    // watermark: fires again at once.
    h.record({ k: 'a' }, -5);
    expect(h.take()).toEqual([{ key: 'a', start: -5, end: 10, value: 2 }]);
    h.record({ k: 'a' }, -3);
    expect(h.take()).toEqual([{ key: 'a', start: -5, end: 10, value: 3 }]);
    h.advance(12);
    // [10,20) touches it and extends it past the watermark: no fire before 19.
    h.record({ k: 'a' }, 10);
    expect(h.take()).toEqual([]);
    expect(h.timersOf('a')).toEqual([19, 39]);
    h.advance(19);
    expect(h.take()).toEqual([{ key: 'a', start: -5, end: 20, value: 4 }]);
    h.end();
    expect(h.take()).toEqual([]);
    expect(h.timerCount).toBe(0);
    expect(h.state.stateSize().entries).toBe(0);
  });

  it('an aggregate in code merges with its own merge', async () => {
    const code = `function createAccumulator() { return { ids: [] }; }
      function add(acc, r) { acc.ids.push(r.id); return acc; }
      function merge(a, b) { return { ids: [...a.ids, ...b.ids].sort() }; }
      function result(acc) { return acc.ids.join(','); }`;
    const h = await session({ aggregate: 'code', code });
    h.record({ k: 'a', id: 'x' }, 0);
    h.record({ k: 'a', id: 'z' }, 20);
    h.record({ k: 'a', id: 'y' }, 10);
    h.end();
    expect(h.take()).toEqual([{ key: 'a', start: 0, end: 30, value: 'x,z,y' }]);
  });
});

describe('keys', () => {
  it('a composite key is the output key as it is', async () => {
    const h = await tumbling();
    h.record({ k: ['a', 1] }, 1);
    h.end();
    expect(h.take()).toEqual([{ key: ['a', 1], start: 0, end: 10, value: 1 }]);
  });
});
