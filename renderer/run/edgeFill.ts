// Backpressure on the canvas: an edge is coloured by how full its fullest channel is, green
// (empty) through amber to red (full). The fill is rounded to a few levels so that an edge
// redraws only when its colour visibly changes, not on every metrics event.
export const FILL_LEVELS = 10;

/** 0..FILL_LEVELS; a fill outside 0..1 (or not a number) is clamped. */
export function fillLevel(fill: number): number {
  if (!Number.isFinite(fill) || fill <= 0) return 0;
  if (fill >= 1) return FILL_LEVELS;
  return Math.round(fill * FILL_LEVELS);
}

/** Hue 120 (green) at empty, about 45 (amber) at three fifths, 0 (red) when full. */
export function fillColour(level: number): string {
  const f = Math.min(Math.max(level / FILL_LEVELS, 0), 1);
  const hue = Math.round(120 * (1 - f));
  return `hsl(${hue} 75% 40%)`;
}

export function fillText(level: number): string {
  return `channel fill ${Math.round((level / FILL_LEVELS) * 100)}%`;
}
