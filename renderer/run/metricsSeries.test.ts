import { describe, expect, it } from 'vitest';
import type { RunMetricsEvent } from '../../engine/protocol/protocol.js';
import { MetricsSeries, SERIES_CAPACITY, SERIES_WINDOW_S } from './metricsSeries';

function event(elapsedMs: number, recordsOut: number): RunMetricsEvent {
  return {
    runId: 'r',
    elapsedMs,
    operators: [{ id: 'src', recordsIn: 0, recordsOut, subtasks: [] }],
    edges: [],
  };
}

describe('MetricsSeries', () => {
  it('turns successive counters into a rate series per operator', () => {
    const series = new MetricsSeries();
    expect(series.add(event(1000, 100))).toBe(true);
    expect(series.add(event(2000, 300))).toBe(true);
    expect(series.operators()).toEqual(['src']);
    expect(series.window('src')).toEqual([
      [1, 2],
      [0, 0],
      [100, 200],
    ]);
    expect(series.latest('src')).toEqual({ inPerSec: 0, outPerSec: 200 });
    expect(series.window('nope')).toEqual([[], [], []]);
    expect(series.latest('nope')).toBeUndefined();
  });

  it('shows only the last minute, and keeps a bounded number of points', () => {
    const series = new MetricsSeries();
    for (let s = 1; s <= 2 * SERIES_CAPACITY; s++) series.add(event(s * 1000, s * 10));
    const [t, , out] = series.window('src');
    expect(t[t.length - 1]).toBe(2 * SERIES_CAPACITY);
    expect(t[0]).toBe(2 * SERIES_CAPACITY - SERIES_WINDOW_S);
    expect(out.every((v) => v === 10)).toBe(true);
  });
});
