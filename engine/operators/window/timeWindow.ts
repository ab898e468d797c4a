// Event-time windows as Flink's TimeWindow has them: [start, end) in epoch ms, the last instant
// that belongs to one being end − 1 (its "max timestamp", when its result is due). Pure.

export interface TimeWindow {
  /** Inclusive. */
  readonly start: number;
  /** Exclusive. */
  readonly end: number;
}

/** The last ms of the window: its result is due once the watermark reaches it. */
export function maxTimestamp(window: TimeWindow): number {
  return window.end - 1;
}

/**
 * The start of the window of `size` that holds `timestamp`, windows being aligned to the epoch
 * shifted by `offset` (Flink's TimeWindow.getWindowStartWithOffset). JavaScript's % keeps the
 * sign of the dividend, as Java's does: a negative remainder (a time before the epoch, or
 * before the offset) steps back one whole window, so -1 lies in [-size, 0), not in [0, size).
 */
export function windowStartWithOffset(timestamp: number, offset: number, size: number): number {
  const remainder = (timestamp - offset) % size;
  return remainder < 0 ? timestamp - (remainder + size) : timestamp - remainder;
}

/**
 * Whether two windows overlap or touch (Flink's TimeWindow.intersects, bounds inclusive): the
 * sessions [0, 10) and [10, 20) are one session, since no gap lies between them.
 */
export function intersects(a: TimeWindow, b: TimeWindow): boolean {
  return a.start <= b.end && a.end >= b.start;
}

/** The smallest window that holds both (Flink's TimeWindow.cover). */
export function cover(a: TimeWindow, b: TimeWindow): TimeWindow {
  return { start: Math.min(a.start, b.start), end: Math.max(a.end, b.end) };
}
