// The route of an edge whose target is not to the right of its source (a feedback edge, a
// self-loop, a layout drawn right to left): out of the source to the right, across in a
// horizontal channel that crosses neither node, and into the target from the left. The channel
// is the gap between the two nodes when one is clear above the other, else under both.
// An edge that shares its two operators with others (see edgeLanes) always goes under both, one
// lane further out per edge: in the gap it could meet its neighbour's label or the straight
// edge running through the same gap, under both it meets nothing of its group.
import { isLowestLane, LANE_GAP, type Lane, SINGLE_LANE } from './edgeLanes';

export interface Box {
  readonly top: number;
  readonly bottom: number;
}

export interface LoopEnds {
  /** The source handle (right side of the source node). */
  readonly sourceX: number;
  readonly sourceY: number;
  /** The target handle (left side of the target node). */
  readonly targetX: number;
  readonly targetY: number;
  readonly source: Box;
  readonly target: Box;
  readonly lane?: Lane;
}

export interface Route {
  readonly path: string;
  readonly labelX: number;
  readonly labelY: number;
  /** Where the selected edge's button fits without covering a node or another label of its group. */
  readonly actionSide: 'below' | 'right';
}

/** How far the route stands off the nodes' sides and bottoms. */
export const LOOP_MARGIN = 24;
const CORNER = 10;
/** A gap between the nodes narrower than this is no channel: the route goes under both. */
const MIN_GAP = 36;
/** How much further out each lane's vertical legs run, so that they do not share a line. */
const LEG_STEP = 10;

/** Whether an edge must go back round instead of straight across. */
export function needsLoop(sourceX: number, targetX: number): boolean {
  return targetX < sourceX + LOOP_MARGIN;
}

/** The channel's y, and whether it runs in the gap between the nodes. */
function channel({ source, target }: LoopEnds, lane: Lane): { y: number; inGap: boolean } {
  if (lane.count === 1) {
    if (target.top - source.bottom >= MIN_GAP) return { y: (source.bottom + target.top) / 2, inGap: true };
    if (source.top - target.bottom >= MIN_GAP) return { y: (target.bottom + source.top) / 2, inGap: true };
  }
  return { y: Math.max(source.bottom, target.bottom) + LOOP_MARGIN + lane.index * LANE_GAP, inGap: false };
}

export function loopRoute(ends: LoopEnds): Route {
  const lane = ends.lane ?? SINGLE_LANE;
  const right = ends.sourceX + LOOP_MARGIN + lane.index * LEG_STEP;
  const left = ends.targetX - LOOP_MARGIN - lane.index * LEG_STEP;
  const { y: across, inGap } = channel(ends, lane);
  const points: [number, number][] = [
    [ends.sourceX, ends.sourceY],
    [right, ends.sourceY],
    [right, across],
    [left, across],
    [left, ends.targetY],
    [ends.targetX, ends.targetY],
  ];
  return {
    path: roundedPolyline(points, CORNER),
    labelX: (right + left) / 2,
    labelY: across,
    // In the gap the next node is just below the label.
    actionSide: !inGap && isLowestLane(lane) ? 'below' : 'right',
  };
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
