// Which windows a record's event time falls in: tumbling, sliding and session windows with
// Flink's semantics (TumblingEventTimeWindows, SlidingEventTimeWindows, EventTimeSessionWindows).
// Pure.
import { type TimeWindow, windowStartWithOffset } from './timeWindow.js';

export type WindowSpec =
  /** Back-to-back windows of `size`, aligned to the epoch shifted by `offset`. */
  | { readonly type: 'tumbling'; readonly size: number; readonly offset: number }
  /** Windows of `size` starting every `slide`: a record is in about size / slide of them. */
  | { readonly type: 'sliding'; readonly size: number; readonly slide: number; readonly offset: number }
  /** A record opens [t, t + gap); windows of a key that touch or overlap merge (sessionMerge.ts). */
  | { readonly type: 'session'; readonly gap: number };

/**
 * The windows holding `timestamp` (whole ms), in the order Flink assigns them: for sliding
 * windows the latest start first.
 */
export function assignWindows(spec: WindowSpec, timestamp: number): TimeWindow[] {
  switch (spec.type) {
    case 'tumbling': {
      const start = windowStartWithOffset(timestamp, spec.offset, spec.size);
      return [{ start, end: start + spec.size }];
    }
    case 'sliding': {
      const windows: TimeWindow[] = [];
      const lastStart = windowStartWithOffset(timestamp, spec.offset, spec.slide);
      for (let start = lastStart; start > timestamp - spec.size; start -= spec.slide) {
        windows.push({ start, end: start + spec.size });
      }
      return windows;
    }
    case 'session':
      return [{ start: timestamp, end: timestamp + spec.gap }];
  }
}
