// The document the designer edits: a job file as the user's JSON, not as the engine's parsed
// Job. An invalid or foreign file must open and save without losing anything, so the draft
// keeps every field it was given (known or not) and is only ever read defensively.
import { JOB_FORMAT, OPERATOR_KINDS, type OperatorKind } from '../../engine/graph/index.js';

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

export interface XY {
  x: number;
  y: number;
}

/** An operator as drawn: fields may be missing or of the wrong type in a foreign file. */
export interface DraftOperator extends JsonObject {}
export interface DraftEdge extends JsonObject {}

export interface JobDraft extends JsonObject {}

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function newJobDraft(name = 'untitled'): JobDraft {
  return { format: JOB_FORMAT, name, operators: [], edges: [] };
}

export function draftOperators(draft: JobDraft): DraftOperator[] {
  const ops = draft.operators;
  return Array.isArray(ops) ? (ops.filter(isObject) as DraftOperator[]) : [];
}

export function draftEdges(draft: JobDraft): DraftEdge[] {
  const edges = draft.edges;
  return Array.isArray(edges) ? (edges.filter(isObject) as DraftEdge[]) : [];
}

export function stringField(obj: JsonObject, field: string): string | undefined {
  const v = obj[field];
  return typeof v === 'string' ? v : undefined;
}

export function operatorKind(op: DraftOperator): OperatorKind | undefined {
  const kind = op.kind;
  return typeof kind === 'string' && (OPERATOR_KINDS as readonly string[]).includes(kind)
    ? (kind as OperatorKind)
    : undefined;
}

export function operatorParallelism(op: DraftOperator): number {
  const p = op.parallelism;
  return typeof p === 'number' && Number.isFinite(p) ? p : 1;
}

export function edgePort(edge: DraftEdge): string {
  return stringField(edge, 'fromPort') ?? 'out';
}

export function draftPositions(draft: JobDraft): Record<string, XY> {
  const editor = draft.editor;
  if (!isObject(editor) || !isObject(editor.positions)) return {};
  const out: Record<string, XY> = {};
  for (const [id, pos] of Object.entries(editor.positions)) {
    if (isObject(pos) && typeof pos.x === 'number' && typeof pos.y === 'number')
      out[id] = { x: pos.x, y: pos.y };
  }
  return out;
}

/** A copy of the draft with `editor.positions` replaced; other editor fields are kept. */
export function withPositions(draft: JobDraft, positions: Record<string, XY>): JobDraft {
  const editor = isObject(draft.editor) ? draft.editor : {};
  const pos: JsonObject = {};
  for (const [id, p] of Object.entries(positions)) pos[id] = { x: p.x, y: p.y };
  return { ...draft, editor: { ...editor, positions: pos } };
}

/** The first id of the form `${base}${n}` (n from 1) that `taken` does not hold. */
export function freshId(base: string, taken: ReadonlySet<string>): string {
  for (let n = 1; ; n++) {
    const id = `${base}${n}`;
    if (!taken.has(id)) return id;
  }
}

export function operatorIds(draft: JobDraft): Set<string> {
  const ids = new Set<string>();
  for (const op of draftOperators(draft)) {
    const id = stringField(op, 'id');
    if (id !== undefined) ids.add(id);
  }
  return ids;
}

export function edgeIds(draft: JobDraft): Set<string> {
  const ids = new Set<string>();
  for (const e of draftEdges(draft)) {
    const id = stringField(e, 'id');
    if (id !== undefined) ids.add(id);
  }
  return ids;
}
