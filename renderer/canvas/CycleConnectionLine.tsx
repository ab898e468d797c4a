// The line drawn while the user drags out a new edge. Where the edge would close a cycle it
// turns into what it will have to become, a feedback edge, and says so before the drop; the
// drop is still allowed, and the Problems panel (or the edge's own button) finishes the job.
import { type ConnectionLineComponentProps, getBezierPath, type InternalNode } from '@xyflow/react';
import { useMemo } from 'react';
import { wouldCloseCycle } from '../document/draftEdits';
import { useDesigner } from '../store/designerContext';
import { type CardBox, cycleNoteAnchor } from './cycleNote';
import type { OperatorFlowNode } from './flowElements';

function cardBox(node: InternalNode<OperatorFlowNode>): CardBox {
  const { x, y } = node.internals.positionAbsolute;
  return { x, y, height: node.measured.height ?? 0 };
}

export function CycleConnectionLine({
  fromX,
  fromY,
  toX,
  toY,
  fromPosition,
  toPosition,
  fromNode,
  fromHandle,
  toNode,
}: ConnectionLineComponentProps<OperatorFlowNode>) {
  const draft = useDesigner((s) => s.draft);
  const a = fromNode.data.opId;
  const b = toNode?.data.opId;
  // Dragged out of an input, the edge runs from the node under the pointer to the one it started at.
  const [from, to] = fromHandle.type === 'source' ? [a, b] : [b, a];
  const cycle = useMemo(
    () => draft !== undefined && from !== undefined && to !== undefined && wouldCloseCycle(draft, from, to),
    [draft, from, to],
  );
  const [path] = getBezierPath({
    sourceX: fromX,
    sourceY: fromY,
    sourcePosition: fromPosition,
    targetX: toX,
    targetY: toY,
    targetPosition: toPosition,
  });
  // Only a line ending at a card can close a cycle, so the card is there to put the note by.
  const note = toNode === null ? undefined : cycleNoteAnchor(cardBox(toNode), cardBox(fromNode));
  return (
    <g className={cycle ? 'connection-line connection-line-cycle' : 'connection-line'}>
      <path d={path} fill="none" />
      {cycle && note !== undefined && (
        <text x={note.x} y={note.y} className="connection-line-note">
          closes a cycle: will need to be a feedback edge
        </text>
      )}
    </g>
  );
}
