// Job file text <-> draft. Saving writes keys in one stable order (the contract's order, then
// any unknown fields in the order they came) and pretty-prints, so a file the designer saved
// opens and saves back byte for byte, and diffs of job files stay small.
import { type Problem, paramsSchemas, parseJobText } from '../../engine/graph/index.js';
import { isObject, type JobDraft, type JsonObject, type JsonValue, operatorKind } from './jobDraft';

const TOP_ORDER = ['format', 'name', 'description', 'settings', 'operators', 'edges', 'editor'];
const SETTINGS_ORDER = ['maxParallelism', 'stateBackend', 'checkpointIntervalMs', 'checkpointsRetained'];
const OPERATOR_ORDER = ['id', 'kind', 'parallelism', 'params'];
const EDGE_ORDER = ['id', 'from', 'fromPort', 'to', 'partition', 'key', 'feedback'];
const EDITOR_ORDER = ['positions', 'viewport'];

function ordered(obj: JsonObject, order: readonly string[]): JsonObject {
  const out: JsonObject = {};
  for (const k of order) if (k in obj && obj[k] !== undefined) out[k] = obj[k] as JsonValue;
  for (const [k, v] of Object.entries(obj)) if (!(k in out) && v !== undefined) out[k] = v;
  return out;
}

function orderOperator(op: JsonValue): JsonValue {
  if (!isObject(op)) return op;
  const out = ordered(op, OPERATOR_ORDER);
  const kind = operatorKind(op);
  if (kind !== undefined && isObject(out.params)) {
    out.params = ordered(out.params, Object.keys(paramsSchemas[kind].shape));
  }
  return out;
}

/** The draft in the stable key order used for saving. */
export function normalizeDraft(draft: JobDraft): JsonObject {
  const out = ordered(draft, TOP_ORDER);
  if (isObject(out.settings)) out.settings = ordered(out.settings, SETTINGS_ORDER);
  if (Array.isArray(out.operators)) out.operators = out.operators.map(orderOperator);
  if (Array.isArray(out.edges)) out.edges = out.edges.map((e) => (isObject(e) ? ordered(e, EDGE_ORDER) : e));
  if (isObject(out.editor)) {
    const editor = ordered(out.editor, EDITOR_ORDER);
    if (isObject(editor.positions)) {
      // Positions follow the operators' order, so moving an operator changes one line, not the block.
      const ids = Array.isArray(out.operators)
        ? out.operators.flatMap((op) => (isObject(op) && typeof op.id === 'string' ? [op.id] : []))
        : [];
      editor.positions = ordered(editor.positions, ids);
    }
    out.editor = editor;
  }
  return out;
}

export function serializeDraft(draft: JobDraft): string {
  return `${JSON.stringify(normalizeDraft(draft), null, 2)}\n`;
}

export type ParsedFile =
  | { readonly kind: 'draft'; readonly draft: JobDraft }
  /** Not a JSON object: kept as text so saving gives it back untouched. */
  | { readonly kind: 'text'; readonly text: string; readonly problems: Problem[] };

export function parseJobFile(text: string): ParsedFile {
  const parsed = parseJobText(text);
  if (parsed.value === undefined) return { kind: 'text', text, problems: parsed.problems };
  if (!isObject(parsed.value)) {
    return {
      kind: 'text',
      text,
      problems: [
        {
          code: 'not-a-job',
          message:
            'The file is JSON but not a job: a job file is a JSON object with "format": "pipewright.job/1".',
          path: '$',
          ids: [],
        },
      ],
    };
  }
  return { kind: 'draft', draft: parsed.value as JobDraft };
}
