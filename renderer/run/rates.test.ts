import { describe, expect, it } from 'vitest';
import type { RunMetricsEvent } from '../../engine/protocol/protocol.js';
import { countersOf, RUN_START, ratesBetween } from './rates';

function event(elapsedMs: number, ops: Record<string, [number, number]>): RunMetricsEvent {
  return {
    runId: 'r1',
    elapsedMs,
    operators: Object.entries(ops).map(([id, [recordsIn, recordsOut]]) => ({
      id,
      recordsIn,
      recordsOut,
      subtasks: [],
    })),
    edges: [],
  };
}

describe('ratesBetween', () => {
  it('divides the growth of each counter by the seconds between events', () => {
    const a = event(1000, { src: [0, 100], map: [100, 50] });
    const b = event(1500, { src: [0, 300], map: [250, 120] });
    const sample = ratesBetween(countersOf(a), b)!;
    expect(sample.t).toBe(1.5);
    expect(sample.operators.get('src')).toEqual({ inPerSec: 0, outPerSec: 400 });
    expect(sample.operators.get('map')).toEqual({ inPerSec: 300, outPerSec: 140 });
  });

  it('gives the average since the start for the first event of a run', () => {
    const sample = ratesBetween(RUN_START, event(2000, { src: [0, 50] }))!;
    expect(sample.operators.get('src')).toEqual({ inPerSec: 0, outPerSec: 25 });
  });

  it('gives no sample when no time passed or time went backwards', () => {
    const a = countersOf(event(1000, { src: [0, 1] }));
    expect(ratesBetween(a, event(1000, { src: [0, 2] }))).toBeUndefined();
    expect(ratesBetween(a, event(500, { src: [0, 2] }))).toBeUndefined();
  });

  it('leaves out an operator whose counters went down instead of showing a negative rate', () => {
    const a = countersOf(event(1000, { src: [0, 100], map: [5, 5] }));
    const sample = ratesBetween(a, event(2000, { src: [0, 10], map: [15, 5] }))!;
    expect(sample.operators.has('src')).toBe(false);
    expect(sample.operators.get('map')).toEqual({ inPerSec: 10, outPerSec: 0 });
  });
});
