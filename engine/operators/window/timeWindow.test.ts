import { describe, expect, it } from 'vitest';
import { cover, intersects, maxTimestamp, windowStartWithOffset } from './timeWindow.js';

const w = (start: number, end: number) => ({ start, end });

describe('windowStartWithOffset (Flink TimeWindowTest.testGetWindowStartWithOffset)', () => {
  it.each([
    // [timestamp, offset, size, start]: Flink's own cases.
    [1, 0, 7, 0],
    [7, 0, 7, 7],
    [12, 0, 7, 7],
    [1, 1, 7, 1],
    [7, 1, 7, 1],
    [8, 1, 7, 8],
    [12, 1, 7, 8],
    [-1, 0, 7, -7],
    [-7, 0, 7, -7],
    [-8, 0, 7, -14],
    [-1, -1, 7, -1],
    [-7, -1, 7, -8],
    [-8, -1, 7, -8],
    [-1, 1, 7, -6],
    [-6, 1, 7, -6],
    [-7, 1, 7, -13],
    [1, -1, 7, -1],
    [7, -1, 7, 6],
    [6, -1, 7, 6],
    [5, -1, 7, -1],
  ])('ts %i, offset %i, size %i starts at %i', (timestamp, offset, size, start) => {
    expect(windowStartWithOffset(timestamp, offset, size)).toBe(start);
  });
});

describe('time windows', () => {
  it('intersect when they overlap or touch (bounds inclusive, as Flink)', () => {
    expect(intersects(w(0, 10), w(10, 20))).toBe(true);
    expect(intersects(w(10, 20), w(0, 10))).toBe(true);
    expect(intersects(w(0, 10), w(5, 6))).toBe(true);
    expect(intersects(w(0, 10), w(11, 20))).toBe(false);
    expect(intersects(w(11, 20), w(0, 10))).toBe(false);
  });

  it('cover and max timestamp', () => {
    expect(cover(w(5, 10), w(0, 7))).toEqual(w(0, 10));
    expect(maxTimestamp(w(0, 10))).toBe(9);
  });
});
