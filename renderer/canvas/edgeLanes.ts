// Edges between the same two operators, in either direction (the two edges of a two-operator
// cycle, two side outputs into one input, a second self-loop), would otherwise be drawn along
// one path with their labels on top of each other. Each edge gets a lane, its place among the
// edges of its operator pair, which the routes turn into an offset that keeps every path and
// label apart. Grouping is one pass over the edges with a Map, so it stays cheap at 500 operators.

export interface Lane {
  /** The edge's place in its group, in the document's order. */
  readonly index: number;
  /** How many edges join the same two operators (either way round). */
  readonly count: number;
}

export const SINGLE_LANE: Lane = { index: 0, count: 1 };

/** Between neighbouring lanes: a label's height and a few pixels of air, so labels never touch. */
export const LANE_GAP = 22;

export interface LaneEdge {
  readonly edgeId: string;
  readonly source: string;
  readonly target: string;
}

/** The lane of every edge, by edge id. */
export function edgeLanes(edges: readonly LaneEdge[]): Map<string, Lane> {
  // The edges of each pair, keyed by its smaller then its larger node id: no key strings to build.
  const pairs = new Map<string, Map<string, string[]>>();
  for (const { edgeId, source, target } of edges) {
    const swap = target < source;
    const low = swap ? target : source;
    const high = swap ? source : target;
    let byHigh = pairs.get(low);
    if (byHigh === undefined) {
      byHigh = new Map();
      pairs.set(low, byHigh);
    }
    const group = byHigh.get(high);
    if (group === undefined) byHigh.set(high, [edgeId]);
    else group.push(edgeId);
  }
  const lanes = new Map<string, Lane>();
  for (const byHigh of pairs.values()) {
    for (const group of byHigh.values()) {
      if (group.length === 1) lanes.set(group[0]!, SINGLE_LANE);
      else for (const [index, edgeId] of group.entries()) lanes.set(edgeId, { index, count: group.length });
    }
  }
  return lanes;
}

/** The lane's distance from the middle of its group: 0 alone, ∓LANE_GAP/2 for two, and so on. */
export function centredOffset(lane: Lane): number {
  return (lane.index - (lane.count - 1) / 2) * LANE_GAP;
}

/** Whether the lane is the last (lowest) of its group: below its label nothing else of the group is drawn. */
export function isLowestLane(lane: Lane): boolean {
  return lane.index === lane.count - 1;
}
