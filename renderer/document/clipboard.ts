// Copy and paste of a selection as a small job fragment: the operators, the edges between
// them and their positions. Pasting renames what would collide, so a paste never merges into
// existing operators, and offsets the copy so it does not hide the original.
import {
  draftEdges,
  draftOperators,
  draftPositions,
  edgeIds,
  freshId,
  type JobDraft,
  type JsonObject,
  operatorIds,
  withPositions,
  type XY,
} from './jobDraft';

export const CLIPBOARD_FORMAT = 'pipewright.fragment/1';

export interface Fragment {
  format: typeof CLIPBOARD_FORMAT;
  operators: JsonObject[];
  edges: JsonObject[];
  positions: Record<string, XY>;
}

export function copyFragment(draft: JobDraft, selected: ReadonlySet<string>): Fragment {
  const operators = draftOperators(draft).filter((op) => selected.has(String(op.id)));
  const edges = draftEdges(draft).filter((e) => selected.has(String(e.from)) && selected.has(String(e.to)));
  const all = draftPositions(draft);
  const positions: Record<string, XY> = {};
  for (const op of operators) {
    const p = all[String(op.id)];
    if (p !== undefined) positions[String(op.id)] = p;
  }
  return { format: CLIPBOARD_FORMAT, operators, edges, positions };
}

export function parseFragment(text: string): Fragment | undefined {
  try {
    const value = JSON.parse(text) as Partial<Fragment>;
    if (value.format !== CLIPBOARD_FORMAT || !Array.isArray(value.operators) || !Array.isArray(value.edges)) {
      return undefined;
    }
    return {
      format: CLIPBOARD_FORMAT,
      operators: value.operators,
      edges: value.edges,
      positions: value.positions ?? {},
    };
  } catch {
    return undefined;
  }
}

function baseOf(id: string): string {
  return id.replace(/\d+$/, '') || 'op';
}

/** Adds the fragment to the draft; returns the ids the pasted operators got. */
export function pasteFragment(
  draft: JobDraft,
  fragment: Fragment,
  offset: XY,
): { draft: JobDraft; operatorIds: string[]; edgeIds: string[] } {
  const takenOps = operatorIds(draft);
  const takenEdges = edgeIds(draft);
  const rename = new Map<string, string>();
  const operators: JsonObject[] = [];
  for (const op of fragment.operators) {
    const oldId = String(op.id);
    const id = takenOps.has(oldId) ? freshId(baseOf(oldId), takenOps) : oldId;
    takenOps.add(id);
    rename.set(oldId, id);
    operators.push({ ...op, id });
  }
  const edges: JsonObject[] = [];
  for (const e of fragment.edges) {
    const from = rename.get(String(e.from));
    const to = rename.get(String(e.to));
    if (from === undefined || to === undefined) continue;
    const id = freshId('e', takenEdges);
    takenEdges.add(id);
    edges.push({ ...e, id, from, to });
  }
  const positions = { ...draftPositions(draft) };
  for (const [oldId, p] of Object.entries(fragment.positions)) {
    const id = rename.get(oldId);
    if (id !== undefined) positions[id] = { x: p.x + offset.x, y: p.y + offset.y };
  }
  const next: JobDraft = {
    ...draft,
    operators: [...(Array.isArray(draft.operators) ? draft.operators : []), ...operators],
    edges: [...(Array.isArray(draft.edges) ? draft.edges : []), ...edges],
  };
  return {
    draft: withPositions(next, positions),
    operatorIds: operators.map((op) => String(op.id)),
    edgeIds: edges.map((e) => String(e.id)),
  };
}
