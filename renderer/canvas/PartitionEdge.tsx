// An edge on the canvas, labelled with its partitioning. An edge whose target is not to the
// right of its source (a feedback edge, a self-loop, a layout drawn right to left) is routed
// back round its nodes instead of through them. The feedback variant is the same route,
// dashed in the feedback colour, so transfer edges read apart from the flow at a glance.
// Edges joining the same two operators each keep to their own lane (edgeLanes).
import {
  BaseEdge,
  EdgeLabelRenderer,
  type EdgeProps,
  type InternalNode,
  useInternalNode,
} from '@xyflow/react';
import { type CSSProperties, memo } from 'react';
import { heldColour } from '../run/loadTint';
import { useRun } from '../run/runContext';
import { markedStep } from '../run/runStore';
import { useDesignerStore } from '../store/designerContext';
import { bezierRoute } from './bezierRoute';
import { SINGLE_LANE } from './edgeLanes';
import { useFarZoom } from './farZoom';
import type { PartitionFlowEdge } from './flowElements';
import { type Box, loopRoute, needsLoop, type Route } from './loopPath';

type Props = EdgeProps<PartitionFlowEdge> & { feedback: boolean };

function boxOf(node: InternalNode | undefined, handleY: number): Box {
  if (node === undefined) return { top: handleY, bottom: handleY };
  const top = node.internals.positionAbsolute.y;
  return { top, bottom: top + (node.measured.height ?? 0) };
}

function BezierEdge(props: Props) {
  return <EdgeBody {...props} route={bezierRoute(props, props.data?.lane)} />;
}

// Only looping edges need their nodes' boxes, so only they subscribe to them.
function LoopEdge(props: Props) {
  const source = useInternalNode(props.source);
  const target = useInternalNode(props.target);
  const route = loopRoute({
    sourceX: props.sourceX,
    sourceY: props.sourceY,
    targetX: props.targetX,
    targetY: props.targetY,
    source: boxOf(source, props.sourceY),
    target: boxOf(target, props.targetY),
    lane: props.data?.lane ?? SINGLE_LANE,
  });
  return <EdgeBody {...props} route={route} />;
}

// Labels are SVG inside the edge rather than HTML in React Flow's label layer: each label in
// that layer looks its container up in the DOM on every store update, which at 500 edges made
// dragging stutter. In a monospace font a label's width follows from its length.
const CHAR_WIDTH = 6.4;
const LABEL_HEIGHT = 17;
const LABEL_PADDING = 6;
/** Between a label and the selected edge's button. */
const ACTION_GAP = 4;

/** Where the button goes: under the label, or to its right where under it is taken. */
function actionTransform(route: Route, labelWidth: number): string {
  if (route.actionSide === 'right') {
    return `translate(0, -50%) translate(${route.labelX + labelWidth / 2 + ACTION_GAP}px, ${route.labelY}px)`;
  }
  return `translate(-50%, 0) translate(${route.labelX}px, ${route.labelY + LABEL_HEIGHT / 2 + ACTION_GAP}px)`;
}

function EdgeBody({ data, selected, markerEnd, feedback, route }: Props & { route: Route }) {
  const store = useDesignerStore();
  // Narrow selectors: a metrics event re-renders only the edges whose tint or numbers changed.
  const held = useRun((s) => (data?.docId === undefined ? undefined : s.edgeTint.get(data.docId)?.level));
  const heldTip = useRun((s) => (data?.docId === undefined ? undefined : s.edgeTint.get(data.docId)?.tip));
  const active = useRun((s) => data?.docId !== undefined && markedStep(s)?.edge?.id === data.docId);
  const far = useFarZoom();
  if (data === undefined) return null;
  const classes = ['pw-edge'];
  if (feedback) classes.push('pw-edge-feedback');
  if (data.problem !== undefined) classes.push('pw-edge-invalid');
  if (selected) classes.push('pw-edge-selected');
  if (active) classes.push('pw-edge-active');
  if (held !== undefined) classes.push('pw-edge-held');
  const { docId } = data;
  const text = feedback ? `↺ ${data.label}` : data.label;
  const width = text.length * CHAR_WIDTH + 2 * LABEL_PADDING;
  const tip = [data.problem, heldTip].filter((t) => t !== undefined);
  const style = held === undefined ? undefined : ({ '--pw-held': heldColour(held) } as CSSProperties);
  return (
    <>
      <BaseEdge
        path={route.path}
        markerEnd={markerEnd}
        className={classes.join(' ')}
        interactionWidth={16}
        style={style}
      />
      {!far && (
        <g
          className={`edge-label ${classes.join(' ')}`}
          transform={`translate(${route.labelX} ${route.labelY})`}
          data-held-level={held}
        >
          {tip.length > 0 && <title>{tip.join('\n')}</title>}
          <rect x={-width / 2} y={-LABEL_HEIGHT / 2} width={width} height={LABEL_HEIGHT} rx={4} />
          <text textAnchor="middle" dominantBaseline="central">
            {text}
          </text>
        </g>
      )}
      {data.offerFeedback && docId !== undefined && (
        // The one interactive label: HTML, for a real button. Only the selected edge has it.
        <EdgeLabelRenderer>
          <div
            className="edge-action-holder nodrag nopan"
            style={{ transform: actionTransform(route, width) }}
          >
            <button
              type="button"
              className="edge-action"
              aria-label={`Make ${docId} a feedback edge`}
              onClick={(event) => {
                event.stopPropagation();
                store.getState().makeFeedback(docId);
              }}
            >
              Make feedback edge
            </button>
          </div>
        </EdgeLabelRenderer>
      )}
    </>
  );
}

function EdgeView(props: Props) {
  return needsLoop(props.sourceX, props.targetX) ? <LoopEdge {...props} /> : <BezierEdge {...props} />;
}

export const PartitionEdge = memo(function PartitionEdge(props: EdgeProps<PartitionFlowEdge>) {
  return <EdgeView {...props} feedback={false} />;
});

export const FeedbackEdge = memo(function FeedbackEdge(props: EdgeProps<PartitionFlowEdge>) {
  return <EdgeView {...props} feedback />;
});
