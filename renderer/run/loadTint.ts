// Backpressure on the canvas, from where the engine measured each subtask's time going (busy,
// backpressured, idle: engine/runtime/loadMeter.ts), as Flink's web UI shows it: an operator is
// tinted by its busiest subtask, from blue (idle) through violet to red (busy all the time), and an edge by how
// much its producer is held back, from green to red. The bottleneck is the red operator at the
// end of red edges. Shares are rounded to a few levels, so an element redraws only when its
// colour visibly changes, not on every metrics event; the tooltips give the numbers.
import type { EdgeLive, RunMetricsEvent, SubtaskLive } from '../../engine/protocol/protocol.js';

export const LOAD_LEVELS = 10;

/** What an operator or an edge shows: its colour's level and the numbers behind it. */
export interface LoadTint {
  /** 0..LOAD_LEVELS. */
  readonly level: number;
  readonly tip: string;
}

/** A share of a second (ms, 0..1000) as a level; out of range (or not a number) is clamped. */
export function loadLevel(msPerSecond: number): number {
  if (!Number.isFinite(msPerSecond) || msPerSecond <= 0) return 0;
  if (msPerSecond >= 1000) return LOAD_LEVELS;
  return Math.round((msPerSecond / 1000) * LOAD_LEVELS);
}

/** "97%" of a share of a second. */
export function percentOf(msPerSecond: number): string {
  return `${Math.round(msPerSecond / 10)}%`;
}

/**
 * An operator: hue 210 (blue) when idle, through violet, to 360 (red) when busy all the time:
 * the other way round the hue circle from the edges' green and amber, so the two never mix up.
 */
export function busyColour(level: number): string {
  const f = Math.min(Math.max(level / LOAD_LEVELS, 0), 1);
  return `hsl(${Math.round(210 + 150 * f) % 360} 80% 50%)`;
}

/** An edge: hue 120 (green) when its producer is never held back, through amber, to 0 (red). */
export function heldColour(level: number): string {
  const f = Math.min(Math.max(level / LOAD_LEVELS, 0), 1);
  return `hsl(${Math.round(120 * (1 - f))} 75% 40%)`;
}

export type Measured = SubtaskLive & {
  readonly busyTimeMsPerSecond: number;
  readonly backPressuredTimeMsPerSecond: number;
  readonly idleTimeMsPerSecond: number;
};

export const measured = (s: SubtaskLive): s is Measured =>
  s.busyTimeMsPerSecond !== undefined &&
  s.backPressuredTimeMsPerSecond !== undefined &&
  s.idleTimeMsPerSecond !== undefined;

/**
 * A subtask's three shares in whole percent, adding up to 100 as the engine's ms add up to 1000:
 * busy is the rest, as the engine makes it (995 ms busy and 5 idle would otherwise read 100% and 1%).
 */
export function sharesOf(s: Measured): {
  readonly busy: number;
  readonly held: number;
  readonly idle: number;
} {
  const held = Math.round(s.backPressuredTimeMsPerSecond / 10);
  const idle = Math.round(s.idleTimeMsPerSecond / 10);
  return { busy: Math.max(0, 100 - held - idle), held, idle };
}

/** "busy 99%, backpressured 0%, idle 1%" of one subtask. */
export function loadText(s: Measured): string {
  const { busy, held, idle } = sharesOf(s);
  return `busy ${busy}%, backpressured ${held}%, idle ${idle}%`;
}

/** An operator as tinted: by its busiest subtask; undefined while nothing is measured. */
export function operatorTint(op: RunMetricsEvent['operators'][number]): LoadTint | undefined {
  let busiest: Measured | undefined;
  for (const s of op.subtasks) {
    if (measured(s) && (busiest === undefined || s.busyTimeMsPerSecond > busiest.busyTimeMsPerSecond)) {
      busiest = s;
    }
  }
  if (busiest === undefined) return undefined;
  const which =
    op.subtasks.length > 1 ? ` (subtask ${busiest.subtask}, the busiest of ${op.subtasks.length})` : '';
  return { level: loadLevel(busiest.busyTimeMsPerSecond), tip: `${loadText(busiest)}${which}` };
}

/** An edge as tinted: by how much the operator it leaves is held back; undefined while not measured. */
export function edgeTint(edge: EdgeLive): LoadTint | undefined {
  const held = edge.backPressuredTimeMsPerSecond;
  if (held === undefined) return undefined;
  return {
    level: loadLevel(held),
    tip: `backpressured ${percentOf(held)}: “${edge.from}” held back ${percentOf(held)} of the last second`,
  };
}

/** Every operator's and edge's tint of a metrics event. */
export function tintsOf(event: RunMetricsEvent): {
  readonly operators: ReadonlyMap<string, LoadTint>;
  readonly edges: ReadonlyMap<string, LoadTint>;
} {
  const operators = new Map<string, LoadTint>();
  for (const op of event.operators) {
    const tint = operatorTint(op);
    if (tint !== undefined) operators.set(op.id, tint);
  }
  const edges = new Map<string, LoadTint>();
  for (const edge of event.edges) {
    const tint = edgeTint(edge);
    if (tint !== undefined) edges.set(edge.id, tint);
  }
  return { operators, edges };
}
