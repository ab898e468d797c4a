// The route of an edge whose target is not to the right of its source (a feedback edge, a
// self-loop): out of the source to the right, down under both nodes, back along the bottom and
// up into the target from the left, so it never crosses the nodes it joins.

export interface LoopEnds {
  /** The source handle (right side of the source node). */
  readonly sourceX: number;
  readonly sourceY: number;
  /** The target handle (left side of the target node). */
  readonly targetX: number;
  readonly targetY: number;
  /** The lowest bottom edge of the two nodes. */
  readonly bottom: number;
}

export interface Route {
  readonly path: string;
  readonly labelX: number;
  readonly labelY: number;
}

/** How far the loop stands off the nodes' sides and bottom. */
export const LOOP_MARGIN = 24;
const CORNER = 10;

/** Whether an edge must go back round instead of straight across. */
export function needsLoop(sourceX: number, targetX: number): boolean {
  return targetX < sourceX + LOOP_MARGIN;
}

export function loopRoute(ends: LoopEnds): Route {
  const right = ends.sourceX + LOOP_MARGIN;
  const left = ends.targetX - LOOP_MARGIN;
  const low = Math.max(ends.bottom, ends.sourceY, ends.targetY) + LOOP_MARGIN;
  const points: [number, number][] = [
    [ends.sourceX, ends.sourceY],
    [right, ends.sourceY],
    [right, low],
    [left, low],
    [left, ends.targetY],
    [ends.targetX, ends.targetY],
  ];
  return { path: roundedPolyline(points, CORNER), labelX: (right + left) / 2, labelY: low };
}

/** An SVG path through the points with each corner rounded off by up to `radius`. */
export function roundedPolyline(points: readonly [number, number][], radius: number): string {
  const [first, ...rest] = points;
  if (first === undefined) return '';
  let d = `M ${first[0]} ${first[1]}`;
  for (let k = 0; k < rest.length; k++) {
    const corner = rest[k]!;
    const next = rest[k + 1];
    if (next === undefined) {
      d += ` L ${corner[0]} ${corner[1]}`;
      break;
    }
    const prev = points[k]!;
    const inLength = Math.hypot(corner[0] - prev[0], corner[1] - prev[1]);
    const outLength = Math.hypot(next[0] - corner[0], next[1] - corner[1]);
    const r = Math.min(radius, inLength / 2, outLength / 2);
    if (r <= 0) {
      d += ` L ${corner[0]} ${corner[1]}`;
      continue;
    }
    const before = [
      corner[0] - ((corner[0] - prev[0]) / inLength) * r,
      corner[1] - ((corner[1] - prev[1]) / inLength) * r,
    ];
    const after = [
      corner[0] + ((next[0] - corner[0]) / outLength) * r,
      corner[1] + ((next[1] - corner[1]) / outLength) * r,
    ];
    d += ` L ${before[0]} ${before[1]} Q ${corner[0]} ${corner[1]} ${after[0]} ${after[1]}`;
  }
  return d;
}
