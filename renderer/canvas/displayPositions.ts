// Where each node is drawn. Saved positions win; an operator without one gets a place from the
// automatic layout that is shown but not written to the document until the user moves it.
import { NODE_HEIGHT, NODE_WIDTH } from '../document/autoLayout';
import type { XY } from '../document/jobDraft';
import type { FlowModel } from './flowModel';

const PINNED_GAP = 40;

/**
 * `remembered` keeps the places already given to unsaved operators (keyed by operator id), so
 * that editing the graph does not re-run the layout and move what the user is looking at; the
 * caller owns it and clears it when the document is looked at afresh. `layout` is called at most
 * once, and only when an operator has neither a saved nor a remembered place.
 */
export function displayPositions(
  model: FlowModel,
  saved: Readonly<Record<string, XY>>,
  remembered: Map<string, XY>,
  layout: () => Readonly<Record<string, XY>>,
): Map<string, XY> {
  const out = new Map<string, XY>();
  let laidOut: Readonly<Record<string, XY>> | undefined;
  let minX = Number.POSITIVE_INFINITY;
  let maxY = Number.NEGATIVE_INFINITY;
  for (const entry of model.operators) {
    if (entry.pinned || entry.opId === undefined) continue;
    let position = saved[entry.opId] ?? remembered.get(entry.opId);
    if (position === undefined) {
      laidOut ??= layout();
      position = laidOut[entry.opId] ?? { x: 0, y: 0 };
      remembered.set(entry.opId, position);
    }
    out.set(entry.nodeId, position);
    minX = Math.min(minX, position.x);
    maxY = Math.max(maxY, position.y);
  }
  // Operators that cannot have a position of their own go in a row under everything else.
  const rowY = Number.isFinite(maxY) ? maxY + NODE_HEIGHT + 2 * PINNED_GAP : 0;
  const rowX = Number.isFinite(minX) ? minX : 0;
  let k = 0;
  for (const entry of model.operators) {
    if (out.has(entry.nodeId)) continue;
    out.set(entry.nodeId, { x: rowX + k * (NODE_WIDTH + PINNED_GAP), y: rowY });
    k++;
  }
  return out;
}
