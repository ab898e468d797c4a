// Records in and out per second of each operator over the last minute or so of a run, kept in
// one ring buffer per operator (time, in/s, out/s), fed by successive run.metrics events.
import type { RunMetricsEvent } from '../../engine/protocol/protocol.js';
import { type Counters, countersOf, RUN_START, ratesBetween } from './rates';
import { RingBuffer } from './ringBuffer';

/** Enough rows for a minute at four events a second; the chart shows the last minute of them. */
export const SERIES_CAPACITY = 240;
export const SERIES_WINDOW_S = 60;

export const T = 0;
export const IN = 1;
export const OUT = 2;

export class MetricsSeries {
  private readonly byOperator = new Map<string, RingBuffer>();
  private previous: Counters = RUN_START;

  /** Adds the rates since the previous event; true when any point was added. */
  add(event: RunMetricsEvent): boolean {
    const sample = ratesBetween(this.previous, event);
    this.previous = countersOf(event);
    if (sample === undefined) return false;
    for (const [id, rate] of sample.operators) {
      let ring = this.byOperator.get(id);
      if (ring === undefined) {
        ring = new RingBuffer(SERIES_CAPACITY, 3);
        this.byOperator.set(id, ring);
      }
      ring.push([sample.t, rate.inPerSec, rate.outPerSec]);
    }
    return sample.operators.size > 0;
  }

  operators(): string[] {
    return [...this.byOperator.keys()];
  }

  /** [times, in/s, out/s] of the last SERIES_WINDOW_S seconds, oldest first (uPlot's aligned data). */
  window(operator: string): [number[], number[], number[]] {
    const ring = this.byOperator.get(operator);
    if (ring === undefined) return [[], [], []];
    const t = ring.column(T);
    const from = (t[t.length - 1] ?? 0) - SERIES_WINDOW_S;
    let skip = 0;
    while (skip < t.length && t[skip]! < from) skip++;
    return [t.slice(skip), ring.column(IN).slice(skip), ring.column(OUT).slice(skip)];
  }

  latest(operator: string): { inPerSec: number; outPerSec: number } | undefined {
    const ring = this.byOperator.get(operator);
    if (ring === undefined || ring.size === 0) return undefined;
    return { inPerSec: ring.last(IN)!, outPerSec: ring.last(OUT)! };
  }
}
