// The draft as the canvas draws it. React Flow needs unique, selector-safe ids for nodes and
// edges, but a foreign file may repeat ids, leave them out or spell them with anything; every
// operator is still drawn, and edges are drawn whenever both their ends can be found.
import {
  type DraftEdge,
  type DraftOperator,
  draftEdges,
  draftOperators,
  edgePort,
  type JobDraft,
  stringField,
} from '../document/jobDraft';
import { edgeUse, handleOf, type OperatorPorts, operatorPorts } from './operatorPorts';

export interface OperatorEntry {
  /** The React Flow node id. */
  readonly nodeId: string;
  /** The id in the document; undefined when it is missing or not a string. */
  readonly opId: string | undefined;
  readonly op: DraftOperator;
  /** Drawn, but positions are stored by id, so an operator without an id of its own cannot be moved. */
  readonly pinned: boolean;
  readonly ports: OperatorPorts;
}

export interface EdgeEntry {
  /** The React Flow edge id. */
  readonly edgeId: string;
  /** The id in the document, when it is a string; edges sharing one are selected together, as the store edits them. */
  readonly docId: string | undefined;
  readonly edge: DraftEdge;
  readonly source: string;
  readonly target: string;
  readonly sourceHandle: string;
}

export interface FlowModel {
  readonly operators: readonly OperatorEntry[];
  readonly edges: readonly EdgeEntry[];
  /** The node of each operator id: the first operator that has it. */
  readonly nodeOf: ReadonlyMap<string, string>;
  readonly byNode: ReadonlyMap<string, OperatorEntry>;
  readonly byEdge: ReadonlyMap<string, EdgeEntry>;
}

// React Flow finds nodes and handles with `[data-id="..."]` selectors. `~` is outside the
// contract's id alphabet, so stand-ins never collide with ids that are kept.
const SAFE_ID = /^[A-Za-z0-9_-]{1,64}$/;

export function flowModel(draft: JobDraft): FlowModel {
  const edgesInDraft = draftEdges(draft);
  const use = edgeUse(edgesInDraft);
  const operators: OperatorEntry[] = [];
  const nodeOf = new Map<string, string>();
  const byNode = new Map<string, OperatorEntry>();
  draftOperators(draft).forEach((op, index) => {
    const opId = stringField(op, 'id');
    const first = opId !== undefined && !nodeOf.has(opId);
    const nodeId = first && SAFE_ID.test(opId) ? opId : `~op${index}`;
    const entry: OperatorEntry = { nodeId, opId, op, pinned: !first, ports: operatorPorts(op, use) };
    if (first) nodeOf.set(opId, nodeId);
    operators.push(entry);
    byNode.set(nodeId, entry);
  });

  const edges: EdgeEntry[] = [];
  const byEdge = new Map<string, EdgeEntry>();
  const seen = new Set<string>();
  edgesInDraft.forEach((edge, index) => {
    const from = stringField(edge, 'from');
    const to = stringField(edge, 'to');
    const source = from === undefined ? undefined : nodeOf.get(from);
    const target = to === undefined ? undefined : nodeOf.get(to);
    if (source === undefined || target === undefined) return;
    const sourceHandle = handleOf(byNode.get(source)!.ports, edgePort(edge));
    if (sourceHandle === undefined || !byNode.get(target)!.ports.input) return;
    const docId = stringField(edge, 'id');
    const first = docId !== undefined && !seen.has(docId);
    if (first) seen.add(docId);
    const edgeId = first && SAFE_ID.test(docId) ? docId : `~edge${index}`;
    const entry: EdgeEntry = { edgeId, docId, edge, source, target, sourceHandle };
    edges.push(entry);
    byEdge.set(edgeId, entry);
  });
  return { operators, edges, nodeOf, byNode, byEdge };
}

const modelCache = new WeakMap<object, WeakMap<object, FlowModel>>();

/**
 * `flowModel`, memoised by the draft's operator and edge arrays: a drag changes only positions,
 * so it reuses the model. (Anything odd in their place keys by the draft itself.)
 */
export function flowModelOf(draft: JobDraft): FlowModel {
  const ops: object =
    typeof draft.operators === 'object' && draft.operators !== null ? draft.operators : draft;
  const edges: object = typeof draft.edges === 'object' && draft.edges !== null ? draft.edges : draft;
  let byEdges = modelCache.get(ops);
  if (byEdges === undefined) {
    byEdges = new WeakMap();
    modelCache.set(ops, byEdges);
  }
  let model = byEdges.get(edges);
  if (model === undefined) {
    model = flowModel(draft);
    byEdges.set(edges, model);
  }
  return model;
}
