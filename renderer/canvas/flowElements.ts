// React Flow nodes and edges for the model, rebuilt on every document change but reusing each
// node or edge object whose drawing did not change: React Flow skips unchanged objects by
// identity, so dragging one node of five hundred re-renders one node, not five hundred.
import { type Edge, MarkerType, type Node } from '@xyflow/react';
import { findKind, KINDS, type OperatorKind, type OperatorRole } from '../../engine/graph/index.js';
import {
  type DraftOperator,
  isObject,
  operatorKind,
  operatorParallelism,
  type XY,
} from '../document/jobDraft';
import { cardHandles, cardSize, type Size } from './cardGeometry';
import { edgeAriaLabel, edgeLabelText } from './edgeLabel';
import { edgeLanes, type Lane, SINGLE_LANE } from './edgeLanes';
import type { EdgeEntry, FlowModel, OperatorEntry } from './flowModel';
import type { OperatorPorts } from './operatorPorts';
import type { ProblemMarks } from './problemMarks';

export interface OperatorNodeData extends Record<string, unknown> {
  readonly opId: string | undefined;
  readonly op: DraftOperator;
  readonly kind: OperatorKind | undefined;
  /** The kind as the file spells it, for an unknown one. */
  readonly kindText: string;
  readonly title: string;
  readonly role: OperatorRole | undefined;
  readonly parallelism: number;
  readonly ports: OperatorPorts;
  /** The line under the id its kind draws from its params (a transaction's tables). */
  readonly line: string | undefined;
  readonly problem: string | undefined;
  readonly pinned: boolean;
}

export type OperatorFlowNode = Node<OperatorNodeData, 'operator'>;

export interface PartitionEdgeData extends Record<string, unknown> {
  readonly docId: string | undefined;
  readonly label: string;
  readonly feedback: boolean;
  readonly problem: string | undefined;
  /** Selected, on a cycle no feedback edge breaks, and not a feedback edge: one click can make it one. */
  readonly offerFeedback: boolean;
  /** Its place among the edges joining the same two operators, which its route keeps apart. */
  readonly lane: Lane;
}

export type PartitionFlowEdge = Edge<PartitionEdgeData, 'partition' | 'feedback'>;

/** Marker colours are literal because React Flow builds marker ids from them; they match app.css. */
export const MARKER_COLOURS = {
  plain: '#7d8794',
  feedback: '#8e44ad',
  error: '#c62828',
  selected: '#2764d8',
};

function cardLine(kind: OperatorKind | undefined, op: DraftOperator): string | undefined {
  const line = kind === undefined ? undefined : findKind(kind)?.designer.cardLine;
  return line?.(isObject(op.params) ? op.params : {});
}

function kindText(op: DraftOperator): string {
  const kind = op.kind;
  if (typeof kind === 'string') return kind;
  return kind === undefined ? 'no kind' : JSON.stringify(kind);
}

export function operatorAriaLabel(data: OperatorNodeData): string {
  const id = data.opId ?? '(no id)';
  const kind = data.kind === undefined ? `unknown kind ${data.kindText}` : data.title;
  return `Operator ${id}, ${kind}, parallelism ${data.parallelism}`;
}

function sameData(a: OperatorNodeData, b: OperatorNodeData): boolean {
  return (
    a.op === b.op &&
    a.opId === b.opId &&
    a.problem === b.problem &&
    a.pinned === b.pinned &&
    a.line === b.line &&
    a.ports.input === b.ports.input &&
    a.ports.outputs.length === b.ports.outputs.length &&
    a.ports.outputs.every(
      (p, k) => p.port === b.ports.outputs[k]!.port && p.handleId === b.ports.outputs[k]!.handleId,
    )
  );
}

function nodeData(entry: OperatorEntry, marks: ProblemMarks): OperatorNodeData {
  const kind = operatorKind(entry.op);
  return {
    opId: entry.opId,
    op: entry.op,
    kind,
    kindText: kindText(entry.op),
    title: kind === undefined ? 'Unknown kind' : KINDS[kind].title,
    role: kind === undefined ? undefined : KINDS[kind].role,
    parallelism: operatorParallelism(entry.op),
    ports: entry.ports,
    line: cardLine(kind, entry.op),
    problem: entry.opId === undefined ? undefined : marks.messages.get(entry.opId),
    pinned: entry.pinned,
  };
}

export interface NodeInputs {
  readonly model: FlowModel;
  readonly positions: ReadonlyMap<string, XY>;
  readonly selected: ReadonlySet<string>;
  readonly marks: ProblemMarks;
  /** What React Flow measured, where it differs from the card's known size. */
  readonly measured: ReadonlyMap<string, Size>;
}

/** The nodes, reusing objects from `previous` (by node id) where nothing drawn changed. */
export function buildNodes(
  inputs: NodeInputs,
  previous: ReadonlyMap<string, OperatorFlowNode>,
): Map<string, OperatorFlowNode> {
  const out = new Map<string, OperatorFlowNode>();
  for (const entry of inputs.model.operators) {
    const before = previous.get(entry.nodeId);
    const fresh = nodeData(entry, inputs.marks);
    const data = before !== undefined && sameData(before.data, fresh) ? before.data : fresh;
    const position = inputs.positions.get(entry.nodeId) ?? { x: 0, y: 0 };
    const selected = entry.opId !== undefined && inputs.selected.has(entry.opId);
    // Given from the start, so React Flow shows, culls and fits the node before measuring it.
    const line = data.line !== undefined;
    const measured = inputs.measured.get(entry.nodeId) ?? cardSize(entry.ports, line);
    if (
      before !== undefined &&
      before.data === data &&
      before.position.x === position.x &&
      before.position.y === position.y &&
      before.selected === selected &&
      before.measured?.width === measured.width &&
      before.measured?.height === measured.height
    ) {
      out.set(entry.nodeId, before);
      continue;
    }
    out.set(entry.nodeId, {
      id: entry.nodeId,
      type: 'operator',
      position,
      data,
      selected,
      draggable: !entry.pinned,
      connectable: !entry.pinned,
      ariaLabel: operatorAriaLabel(data),
      domAttributes: data.problem === undefined ? undefined : { 'aria-invalid': true },
      measured,
      handles: before?.data === data ? before.handles : cardHandles(entry.ports, line),
    });
  }
  return out;
}

export interface EdgeInputs {
  readonly model: FlowModel;
  readonly selected: ReadonlySet<string>;
  readonly marks: ProblemMarks;
}

function markerColour(feedback: boolean, problem: string | undefined, selected: boolean): string {
  if (problem !== undefined) return MARKER_COLOURS.error;
  if (selected) return MARKER_COLOURS.selected;
  return feedback ? MARKER_COLOURS.feedback : MARKER_COLOURS.plain;
}

function edgeOf(entry: EdgeEntry, inputs: EdgeInputs, lane: Lane): PartitionFlowEdge {
  const feedback = entry.edge.feedback === true;
  const selected = entry.docId !== undefined && inputs.selected.has(entry.docId);
  const problem = entry.docId === undefined ? undefined : inputs.marks.messages.get(entry.docId);
  const offerFeedback =
    selected && !feedback && entry.docId !== undefined && inputs.marks.cycleIds.has(entry.docId);
  const targetKind = inputs.model.byNode.get(entry.target)?.op.kind;
  return {
    id: entry.edgeId,
    type: feedback ? 'feedback' : 'partition',
    source: entry.source,
    target: entry.target,
    sourceHandle: entry.sourceHandle,
    targetHandle: 'in',
    selected,
    selectable: entry.docId !== undefined,
    ariaLabel: edgeAriaLabel(entry.edge, targetKind),
    markerEnd: {
      type: MarkerType.ArrowClosed,
      color: markerColour(feedback, problem, selected),
      width: 18,
      height: 18,
    },
    data: {
      docId: entry.docId,
      label: edgeLabelText(entry.edge, targetKind),
      feedback,
      problem,
      offerFeedback,
      lane,
    },
  };
}

function sameEdge(a: PartitionFlowEdge, b: PartitionFlowEdge): boolean {
  const x = a.data!;
  const y = b.data!;
  return (
    a.type === b.type &&
    a.source === b.source &&
    a.target === b.target &&
    a.sourceHandle === b.sourceHandle &&
    a.selected === b.selected &&
    a.ariaLabel === b.ariaLabel &&
    x.docId === y.docId &&
    x.label === y.label &&
    x.problem === y.problem &&
    x.offerFeedback === y.offerFeedback &&
    x.lane.index === y.lane.index &&
    x.lane.count === y.lane.count
  );
}

// By the model's edge list, which a selection or a drag leaves as it is.
const lanesCache = new WeakMap<readonly EdgeEntry[], Map<string, Lane>>();

function lanesOf(edges: readonly EdgeEntry[]): Map<string, Lane> {
  let lanes = lanesCache.get(edges);
  if (lanes === undefined) {
    lanes = edgeLanes(edges);
    lanesCache.set(edges, lanes);
  }
  return lanes;
}

export function buildEdges(
  inputs: EdgeInputs,
  previous: ReadonlyMap<string, PartitionFlowEdge>,
): Map<string, PartitionFlowEdge> {
  const out = new Map<string, PartitionFlowEdge>();
  const lanes = lanesOf(inputs.model.edges);
  for (const entry of inputs.model.edges) {
    const fresh = edgeOf(entry, inputs, lanes.get(entry.edgeId) ?? SINGLE_LANE);
    const before = previous.get(entry.edgeId);
    out.set(entry.edgeId, before !== undefined && sameEdge(before, fresh) ? before : fresh);
  }
  return out;
}
