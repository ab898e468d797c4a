import { describe, expect, it } from 'vitest';
import { assignWindows } from './windowAssigner.js';

const w = (start: number, end: number) => ({ start, end });

describe('assignWindows', () => {
  it('tumbling: one window, aligned to the epoch (TumblingEventTimeWindowsTest)', () => {
    const spec = { type: 'tumbling', size: 5000, offset: 0 } as const;
    expect(assignWindows(spec, 0)).toEqual([w(0, 5000)]);
    expect(assignWindows(spec, 4999)).toEqual([w(0, 5000)]);
    expect(assignWindows(spec, 5000)).toEqual([w(5000, 10000)]);
  });

  it('tumbling with an offset', () => {
    const spec = { type: 'tumbling', size: 5000, offset: 100 } as const;
    expect(assignWindows(spec, 100)).toEqual([w(100, 5100)]);
    expect(assignWindows(spec, 5099)).toEqual([w(100, 5100)]);
    expect(assignWindows(spec, 5100)).toEqual([w(5100, 10100)]);
    expect(assignWindows(spec, 99)).toEqual([w(-4900, 100)]);
  });

  it('tumbling with a negative offset (Flink: a time zone west of UTC)', () => {
    const spec = { type: 'tumbling', size: 5000, offset: -100 } as const;
    expect(assignWindows(spec, 0)).toEqual([w(-100, 4900)]);
    expect(assignWindows(spec, 4899)).toEqual([w(-100, 4900)]);
    expect(assignWindows(spec, 4900)).toEqual([w(4900, 9900)]);
  });

  it('tumbling before the epoch: -1 is in the window that ends at 0', () => {
    const spec = { type: 'tumbling', size: 5000, offset: 0 } as const;
    expect(assignWindows(spec, -1)).toEqual([w(-5000, 0)]);
    expect(assignWindows(spec, -5000)).toEqual([w(-5000, 0)]);
    expect(assignWindows(spec, -5001)).toEqual([w(-10000, -5000)]);
  });

  it('sliding: size/slide windows, latest start first (SlidingEventTimeWindowsTest)', () => {
    const spec = { type: 'sliding', size: 5000, slide: 1000, offset: 0 } as const;
    expect(assignWindows(spec, 0)).toEqual([
      w(0, 5000),
      w(-1000, 4000),
      w(-2000, 3000),
      w(-3000, 2000),
      w(-4000, 1000),
    ]);
    expect(assignWindows(spec, 4999)).toEqual([
      w(4000, 9000),
      w(3000, 8000),
      w(2000, 7000),
      w(1000, 6000),
      w(0, 5000),
    ]);
    expect(assignWindows(spec, 5000)).toEqual([
      w(5000, 10000),
      w(4000, 9000),
      w(3000, 8000),
      w(2000, 7000),
      w(1000, 6000),
    ]);
  });

  it('sliding with an offset', () => {
    const spec = { type: 'sliding', size: 5000, slide: 1000, offset: 100 } as const;
    expect(assignWindows(spec, 100)).toEqual([
      w(100, 5100),
      w(-900, 4100),
      w(-1900, 3100),
      w(-2900, 2100),
      w(-3900, 1100),
    ]);
    expect(assignWindows(spec, 5099)).toEqual([
      w(4100, 9100),
      w(3100, 8100),
      w(2100, 7100),
      w(1100, 6100),
      w(100, 5100),
    ]);
  });

  it('sliding before the epoch', () => {
    const spec = { type: 'sliding', size: 3000, slide: 1000, offset: 0 } as const;
    expect(assignWindows(spec, -1)).toEqual([w(-1000, 2000), w(-2000, 1000), w(-3000, 0)]);
  });

  it('sliding where the slide does not divide the size: a record is in 2 or 3 windows', () => {
    const spec = { type: 'sliding', size: 2500, slide: 1000, offset: 0 } as const;
    expect(assignWindows(spec, 0)).toEqual([w(0, 2500), w(-1000, 1500), w(-2000, 500)]);
    expect(assignWindows(spec, 600)).toEqual([w(0, 2500), w(-1000, 1500)]);
  });

  it('sliding where slide equals size is tumbling', () => {
    const spec = { type: 'sliding', size: 1000, slide: 1000, offset: 0 } as const;
    expect(assignWindows(spec, 1500)).toEqual([w(1000, 2000)]);
  });

  it('session: the record opens [t, t + gap)', () => {
    const spec = { type: 'session', gap: 5000 } as const;
    expect(assignWindows(spec, 0)).toEqual([w(0, 5000)]);
    expect(assignWindows(spec, -3)).toEqual([w(-3, 4997)]);
  });
});
