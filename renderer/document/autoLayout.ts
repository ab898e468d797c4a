// Left-to-right layered layout (dagre). Feedback edges are left out of the ranking so a loop
// does not pull its head to the right of its tail; they are drawn routed back round instead.
import dagre from '@dagrejs/dagre';
import type { JobDraft } from './jobDraft';
import { draftEdges, draftOperators, stringField, type XY } from './jobDraft';

export const NODE_WIDTH = 180;
export const NODE_HEIGHT = 64;

export function autoLayout(draft: JobDraft): Record<string, XY> {
  const g = new dagre.graphlib.Graph();
  g.setGraph({ rankdir: 'LR', nodesep: 60, ranksep: 150, marginx: 20, marginy: 20 });
  g.setDefaultEdgeLabel(() => ({}));
  const ids = new Set<string>();
  for (const op of draftOperators(draft)) {
    const id = stringField(op, 'id');
    if (id === undefined || ids.has(id)) continue;
    ids.add(id);
    g.setNode(id, { width: NODE_WIDTH, height: NODE_HEIGHT });
  }
  for (const e of draftEdges(draft)) {
    const from = stringField(e, 'from');
    const to = stringField(e, 'to');
    if (e.feedback === true || from === undefined || to === undefined || !ids.has(from) || !ids.has(to))
      continue;
    if (from !== to) g.setEdge(from, to);
  }
  dagre.layout(g);
  const out: Record<string, XY> = {};
  for (const id of ids) {
    const n = g.node(id);
    // dagre gives centres; React Flow positions are top-left corners. Rounded to the 10px grid.
    out[id] = {
      x: Math.round((n.x - NODE_WIDTH / 2) / 10) * 10,
      y: Math.round((n.y - NODE_HEIGHT / 2) / 10) * 10,
    };
  }
  return out;
}
