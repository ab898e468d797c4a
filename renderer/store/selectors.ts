// Derived views of the store, memoised by the identity of the draft they come from so that
// components re-render only when the document really changed.
import { type Problem, validateJob } from '../../engine/graph/index.js';
import type { JobDraft } from '../document/jobDraft';
import { serializeDraft } from '../document/jobFileText';
import type { DesignerState } from './designerStore';

const problemsCache = new WeakMap<JobDraft, Problem[]>();

/** The engine's own validation of the draft: the designer never has a copy of the rules. */
export function problemsOf(state: Pick<DesignerState, 'draft' | 'parseProblems'>): Problem[] {
  const { draft } = state;
  if (draft === undefined) return state.parseProblems;
  let problems = problemsCache.get(draft);
  if (problems === undefined) {
    problems = validateJob(draft).problems;
    problemsCache.set(draft, problems);
  }
  return problems;
}

const textCache = new WeakMap<JobDraft, string>();

export function isDirty(state: Pick<DesignerState, 'draft' | 'rawText' | 'savedText' | 'open'>): boolean {
  if (!state.open) return false;
  if (state.draft === undefined) return (state.rawText ?? '') !== state.savedText;
  let text = textCache.get(state.draft);
  if (text === undefined) {
    text = serializeDraft(state.draft);
    textCache.set(state.draft, text);
  }
  return text !== state.savedText;
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
