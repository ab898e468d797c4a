// Derived views of the store, memoised by the identity of the draft they come from so that
// components re-render only when the document really changed.
import { type Problem, validateJob } from '../../engine/graph/index.js';
import type { JobDraft } from '../document/jobDraft';
import { parseJobFile, serializeDraft } from '../document/jobFileText';
import type { DesignerState } from './designerStore';

const problemsCache = new WeakMap<JobDraft, Problem[]>();
let lastValidated: { draft: JobDraft; problems: Problem[] } | undefined;

/**
 * Whether `next` differs from `previous` only in `editor` and no problem is about `editor`: then
 * the problems are the same. A drag writes positions on every frame, and validating a
 * 500-operator job (a few milliseconds) on every one of them would eat the frame budget.
 */
function onlyEditorMoved(previous: JobDraft, problems: readonly Problem[], next: JobDraft): boolean {
  const keys = new Set([...Object.keys(previous), ...Object.keys(next)]);
  keys.delete('editor');
  for (const k of keys) if (previous[k] !== next[k]) return false;
  return !problems.some(
    (p) => p.path === '$.editor' || p.path.startsWith('$.editor.') || p.path.startsWith('$.editor['),
  );
}

/** The engine's own validation of the draft: the designer never has a copy of the rules. */
export function problemsOf(state: Pick<DesignerState, 'draft' | 'parseProblems'>): Problem[] {
  const { draft } = state;
  if (draft === undefined) return state.parseProblems;
  let problems = problemsCache.get(draft);
  if (problems === undefined) {
    const last = lastValidated;
    problems =
      last !== undefined && onlyEditorMoved(last.draft, last.problems, draft)
        ? last.problems
        : validateJob(draft).problems;
    problemsCache.set(draft, problems);
  }
  lastValidated = { draft, problems };
  return problems;
}

const textCache = new WeakMap<JobDraft, string>();
let lastSaved: { text: string; normalized: string } | undefined;

/**
 * The saved text as the designer would write it. A job written by hand or by another tool (other
 * key order, indentation, no final newline) is what the document was opened from, not an edit:
 * comparing its bytes with the designer's own layout marked such a file modified the moment it
 * opened, with nothing to undo. Parsed once per saved text.
 */
function savedNormalized(savedText: string): string {
  if (lastSaved?.text !== savedText) {
    const parsed = parseJobFile(savedText);
    lastSaved = {
      text: savedText,
      normalized: parsed.kind === 'draft' ? serializeDraft(parsed.draft) : savedText,
    };
  }
  return lastSaved.normalized;
}

/** Whether the document differs from the file as last opened or saved. */
export function isDirty(state: Pick<DesignerState, 'draft' | 'rawText' | 'savedText' | 'open'>): boolean {
  if (!state.open) return false;
  if (state.draft === undefined) return (state.rawText ?? '') !== state.savedText;
  let text = textCache.get(state.draft);
  if (text === undefined) {
    text = serializeDraft(state.draft);
    textCache.set(state.draft, text);
  }
  return text !== state.savedText && text !== savedNormalized(state.savedText);
}

/** Problems by the operator or edge id they name, for marking the canvas. */
export function problemIds(problems: readonly Problem[]): Set<string> {
  const ids = new Set<string>();
  for (const p of problems) for (const id of p.ids) ids.add(id);
  return ids;
}

export function documentTitle(state: Pick<DesignerState, 'draft' | 'filePath'>): string {
  if (state.filePath !== undefined) return state.filePath.split(/[\\/]/).pop() ?? state.filePath;
  const name = state.draft?.name;
  return typeof name === 'string' ? `${name} (unsaved)` : 'untitled';
}
