// Every cycle must pass through a feedback edge: the others are reported, one problem each.
import { describeCycle, findCycles } from '../cycles.js';
import { type EdgeFacts, edgeIds, edgeList } from './graphFacts.js';
import type { GraphRule } from './graphRule.js';

export const cycleWithoutFeedback: GraphRule = ({ edges, byId }) => {
  // Edges whose feedback flag is malformed stay out: whether they may close a cycle is unknown.
  const forwardEdges = edges.filter(
    (edge): edge is EdgeFacts & { from: string; to: string } =>
      edge.feedback === false && edge.from !== undefined && edge.to !== undefined,
  );
  return findCycles([...byId.keys()], forwardEdges).map((cycle) => ({
    code: 'cycle',
    message:
      `cycle without a feedback edge: ${describeCycle(cycle)} (${edgeList(cycle.edges)}); ` +
      'every cycle must pass through an edge marked "feedback": true',
    path: ['edges', Math.min(...cycle.edges.map((edge) => edge.index))],
    ids: [...cycle.nodes, ...cycle.edges.flatMap(edgeIds)],
  }));
};
