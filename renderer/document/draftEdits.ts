// Every edit of the document as a pure function draft -> draft. The store applies one per user
// action, which is what makes each action exactly one undo step.
import { KINDS, type OperatorKind, type Partition } from '../../engine/graph/index.js';
import {
  type DraftEdge,
  type DraftOperator,
  draftEdges,
  draftOperators,
  draftPositions,
  edgeIds,
  freshId,
  isObject,
  type JobDraft,
  type JsonObject,
  type JsonValue,
  operatorIds,
  operatorKind,
  operatorParallelism,
  stringField,
  withPositions,
  type XY,
} from './jobDraft';
import { defaultParams, idBase } from './operatorTemplates';

function withOperators(draft: JobDraft, operators: JsonValue[]): JobDraft {
  return { ...draft, operators };
}

function withEdges(draft: JobDraft, edges: JsonValue[]): JobDraft {
  return { ...draft, edges };
}

function rawOperators(draft: JobDraft): JsonValue[] {
  return Array.isArray(draft.operators) ? draft.operators : [];
}

function rawEdges(draft: JobDraft): JsonValue[] {
  return Array.isArray(draft.edges) ? draft.edges : [];
}

export function findOperator(draft: JobDraft, id: string): DraftOperator | undefined {
  return draftOperators(draft).find((op) => op.id === id);
}

export function findEdge(draft: JobDraft, id: string): DraftEdge | undefined {
  return draftEdges(draft).find((e) => e.id === id);
}

export function addOperator(
  draft: JobDraft,
  kind: OperatorKind,
  position: XY,
): { draft: JobDraft; id: string } {
  const id = freshId(idBase(kind), operatorIds(draft));
  const op: JsonObject = { id, kind, parallelism: 1, params: defaultParams(kind) };
  const next = withOperators(draft, [...rawOperators(draft), op]);
  return { draft: withPositions(next, { ...draftPositions(draft), [id]: position }), id };
}

/** Removes operators (with their edges and positions) and edges. */
export function removeElements(
  draft: JobDraft,
  operators: ReadonlySet<string>,
  edges: ReadonlySet<string>,
): JobDraft {
  if (operators.size === 0 && edges.size === 0) return draft;
  const ops = rawOperators(draft).filter((op) => !(isObject(op) && operators.has(String(op.id))));
  const es = rawEdges(draft).filter(
    (e) =>
      !(
        isObject(e) &&
        (edges.has(String(e.id)) || operators.has(String(e.from)) || operators.has(String(e.to)))
      ),
  );
  let next = withEdges(withOperators(draft, ops), es);
  const positions = draftPositions(draft);
  if ([...operators].some((id) => id in positions)) {
    const kept = Object.fromEntries(Object.entries(positions).filter(([id]) => !operators.has(id)));
    next = withPositions(next, kept);
  }
  return next;
}

export interface OperatorPatch {
  id?: string;
  parallelism?: number;
  /** Parameters to set; a value of undefined removes the parameter. */
  params?: Record<string, JsonValue | undefined>;
}

/** Changes an operator; a new id is carried into its edges and its position. */
export function updateOperator(draft: JobDraft, id: string, patch: OperatorPatch): JobDraft {
  const newId = patch.id ?? id;
  const ops = rawOperators(draft).map((op) => {
    if (!isObject(op) || op.id !== id) return op;
    const next: JsonObject = { ...op, id: newId };
    if (patch.parallelism !== undefined) next.parallelism = patch.parallelism;
    if (patch.params !== undefined) {
      const params: JsonObject = isObject(op.params) ? { ...op.params } : {};
      for (const [k, v] of Object.entries(patch.params)) {
        if (v === undefined) delete params[k];
        else params[k] = v;
      }
      next.params = params;
    }
    return next;
  });
  let next = withOperators(draft, ops);
  if (newId !== id) {
    next = withEdges(
      next,
      rawEdges(draft).map((e) => {
        if (!isObject(e)) return e;
        const out = { ...e };
        if (e.from === id) out.from = newId;
        if (e.to === id) out.to = newId;
        return out;
      }),
    );
    const positions = draftPositions(draft);
    const pos = positions[id];
    if (pos !== undefined) {
      const renamed = Object.fromEntries(
        Object.entries(positions).map(([k, v]) => [k === id ? newId : k, v]),
      );
      next = withPositions(next, renamed);
    }
  }
  return next;
}

export interface EdgePatch {
  partition?: Partition;
  /** A field path, several (a composite key), or undefined to remove the key. */
  key?: string | string[] | undefined;
  feedback?: boolean;
  fromPort?: string;
}

export function updateEdge(draft: JobDraft, id: string, patch: EdgePatch): JobDraft {
  return withEdges(
    draft,
    rawEdges(draft).map((e) => {
      if (!isObject(e) || e.id !== id) return e;
      const next: JsonObject = { ...e };
      for (const [k, v] of Object.entries(patch)) {
        if (v === undefined) delete next[k];
        else next[k] = v as JsonValue;
      }
      // The contract refuses a key on anything but a hash edge, and defaults feedback to false.
      if (next.partition !== 'hash') delete next.key;
      if (next.feedback === false) delete next.feedback;
      if (next.fromPort === 'out') delete next.fromPort;
      return next;
    }),
  );
}

/** Whether `to` already reaches `from` over non-feedback edges: a new edge from -> to would close a cycle. */
export function wouldCloseCycle(draft: JobDraft, from: string, to: string): boolean {
  if (from === to) return true;
  const next = new Map<string, string[]>();
  for (const e of draftEdges(draft)) {
    if (e.feedback === true) continue;
    const f = stringField(e, 'from');
    const t = stringField(e, 'to');
    if (f === undefined || t === undefined) continue;
    const list = next.get(f) ?? [];
    list.push(t);
    next.set(f, list);
  }
  const seen = new Set<string>([to]);
  const stack = [to];
  while (stack.length > 0) {
    const n = stack.pop()!;
    if (n === from) return true;
    for (const m of next.get(n) ?? []) {
      if (!seen.has(m)) {
        seen.add(m);
        stack.push(m);
      }
    }
  }
  return false;
}

/** The partition a new edge starts with: what the engine would accept without more input where it can. */
export function defaultPartition(draft: JobDraft, from: string, to: string): Partition {
  const a = findOperator(draft, from);
  const b = findOperator(draft, to);
  if (a === undefined || b === undefined) return 'forward';
  const kind = operatorKind(b);
  if (kind !== undefined && KINDS[kind].alwaysKeyed) return 'hash';
  return operatorParallelism(a) === operatorParallelism(b) ? 'forward' : 'rebalance';
}

export interface Connection {
  from: string;
  to: string;
  fromPort?: string;
}

export function connect(draft: JobDraft, c: Connection): { draft: JobDraft; id: string } {
  const id = freshId('e', edgeIds(draft));
  const edge: JsonObject = { id, from: c.from };
  if (c.fromPort !== undefined && c.fromPort !== 'out') edge.fromPort = c.fromPort;
  edge.to = c.to;
  edge.partition = defaultPartition(draft, c.from, c.to);
  return { draft: withEdges(draft, [...rawEdges(draft), edge]), id };
}

/**
 * Turns an edge that closes a cycle into a transfer edge in one step: feedback edges must be
 * hash-partitioned, so a key is kept if there was one and otherwise left for the user to fill in.
 */
export function makeFeedback(draft: JobDraft, id: string): JobDraft {
  const edge = findEdge(draft, id);
  if (edge === undefined) return draft;
  return updateEdge(draft, id, { feedback: true, partition: 'hash' });
}

export function moveOperators(draft: JobDraft, moves: Record<string, XY>): JobDraft {
  return withPositions(draft, { ...draftPositions(draft), ...moves });
}

export function setJobField(
  draft: JobDraft,
  field: 'name' | 'description',
  value: string | undefined,
): JobDraft {
  const next: JobDraft = { ...draft };
  if (value === undefined || (field === 'description' && value === '')) delete next[field];
  else next[field] = value;
  return next;
}

export function setSetting(draft: JobDraft, field: string, value: JsonValue | undefined): JobDraft {
  const settings: JsonObject = isObject(draft.settings) ? { ...draft.settings } : {};
  if (value === undefined) delete settings[field];
  else settings[field] = value;
  const next: JobDraft = { ...draft, settings };
  if (Object.keys(settings).length === 0) delete next.settings;
  return next;
}
