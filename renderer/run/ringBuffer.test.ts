import { describe, expect, it } from 'vitest';
import { RingBuffer } from './ringBuffer';

describe('RingBuffer', () => {
  it('keeps rows in order until it is full', () => {
    const ring = new RingBuffer(3, 2);
    expect(ring.size).toBe(0);
    expect(ring.last(0)).toBeUndefined();
    ring.push([1, 10]);
    ring.push([2, 20]);
    expect(ring.column(0)).toEqual([1, 2]);
    expect(ring.column(1)).toEqual([10, 20]);
    expect(ring.last(1)).toBe(20);
  });

  it('overwrites the oldest row once full', () => {
    const ring = new RingBuffer(3, 1);
    for (const v of [1, 2, 3, 4, 5]) ring.push([v]);
    expect(ring.size).toBe(3);
    expect(ring.column(0)).toEqual([3, 4, 5]);
    expect(ring.last(0)).toBe(5);
  });

  it('starts over when cleared', () => {
    const ring = new RingBuffer(2, 1);
    ring.push([1]);
    ring.push([2]);
    ring.push([3]);
    ring.clear();
    ring.push([9]);
    expect(ring.column(0)).toEqual([9]);
  });

  it('refuses rows of the wrong width and a capacity below one', () => {
    expect(() => new RingBuffer(0, 1)).toThrow(/capacity/);
    expect(() => new RingBuffer(2, 2).push([1])).toThrow(/2 values, not 1/);
  });
});
