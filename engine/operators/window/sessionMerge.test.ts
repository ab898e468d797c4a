import { describe, expect, it } from 'vitest';
import { addSession, mergeWindows } from './sessionMerge.js';

const w = (start: number, end: number) => ({ start, end });

describe('mergeWindows (Flink TimeWindow.mergeWindows)', () => {
  it('merges runs of intersecting windows into their cover', () => {
    const merges = mergeWindows([w(0, 5), w(20, 25), w(3, 8), w(7, 12), w(30, 31)]);
    expect(merges).toEqual([{ result: w(0, 12), merged: [w(0, 5), w(3, 8), w(7, 12)] }]);
  });

  it('windows that only touch merge', () => {
    expect(mergeWindows([w(10, 20), w(0, 10)])).toEqual([
      { result: w(0, 20), merged: [w(0, 10), w(10, 20)] },
    ]);
  });

  it('finds several merges, and none where nothing intersects', () => {
    expect(mergeWindows([w(0, 2), w(1, 3), w(10, 12), w(11, 13)]).map((m) => m.result)).toEqual([
      w(0, 3),
      w(10, 13),
    ]);
    expect(mergeWindows([w(0, 2), w(3, 5)])).toEqual([]);
  });
});

describe('addSession', () => {
  it('a window that touches nothing stands alone', () => {
    const sessions = [w(0, 10)];
    const added = w(20, 30);
    expect(addSession(sessions, added)).toEqual({
      window: added,
      absorbed: [],
      sessions: [w(0, 10), w(20, 30)],
    });
  });

  it('a window inside a session is absorbed by it', () => {
    const result = addSession([w(0, 10)], w(2, 8));
    expect(result.window).toEqual(w(0, 10));
    expect(result.absorbed).toEqual([w(0, 10)]);
    expect(result.sessions).toEqual([w(0, 10)]);
  });

  it('a window extending a session', () => {
    const result = addSession([w(0, 10)], w(5, 15));
    expect(result.window).toEqual(w(0, 15));
    expect(result.sessions).toEqual([w(0, 15)]);
  });

  it('a window bridging two sessions merges all three', () => {
    const result = addSession([w(0, 10), w(15, 25), w(40, 50)], w(8, 18));
    expect(result.window).toEqual(w(0, 25));
    expect(result.absorbed).toEqual([w(0, 10), w(15, 25)]);
    expect(result.sessions).toEqual([w(0, 25), w(40, 50)]);
  });

  it('a window touching a session on its end merges (no gap between them)', () => {
    expect(addSession([w(10, 20)], w(0, 10)).window).toEqual(w(0, 20));
    expect(addSession([w(10, 20)], w(20, 30)).window).toEqual(w(10, 30));
    expect(addSession([w(10, 20)], w(21, 30)).absorbed).toEqual([]);
  });

  it('before the epoch', () => {
    expect(addSession([w(-30, -20)], w(-25, -15)).window).toEqual(w(-30, -15));
  });
});
