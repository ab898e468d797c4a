// The route of an edge drawn straight across, from an output on the right of one card to an
// input on the left of a card further right: React Flow's bezier for those handles, bent by the
// edge's lane offset so that edges between the same two operators, and their labels, lie apart.
import { centredOffset, isLowestLane, type Lane, SINGLE_LANE } from './edgeLanes';
import type { Route } from './loopPath';

export interface BezierEnds {
  readonly sourceX: number;
  readonly sourceY: number;
  readonly targetX: number;
  readonly targetY: number;
}

export function bezierRoute(ends: BezierEnds, lane: Lane = SINGLE_LANE): Route {
  const { sourceX, sourceY, targetX, targetY } = ends;
  // React Flow's control distance for a right-hand source and a left-hand target.
  const reach = Math.max(0, (targetX - sourceX) / 2);
  const offset = centredOffset(lane);
  // A cubic's midpoint moves by 3/4 of what both its control points move: bend by 4/3 of the
  // offset so that the label, at the midpoint, lands exactly `offset` off the unbent curve's.
  const bend = (offset * 4) / 3;
  const c1 = [sourceX + reach, sourceY + bend];
  const c2 = [targetX - reach, targetY + bend];
  return {
    path: `M${sourceX},${sourceY} C${c1[0]},${c1[1]} ${c2[0]},${c2[1]} ${targetX},${targetY}`,
    labelX: (sourceX + targetX) / 2,
    labelY: (sourceY + targetY) / 2 + offset,
    actionSide: isLowestLane(lane) ? 'below' : 'right',
  };
}
