// Derived views of the store, memoised by the identity of the draft they come from so that
// components re-render only when the document really changed.
import { type Problem, validateJob } from '../../engine/graph/index.js';
import type { JobDraft } from '../document/jobDraft';
import { parseJobFile, serializeDraft } from '../document/jobFileText';
import type { DesignerState } from './designerStore';

interface Validated {
  readonly draft: JobDraft;
  /** The job file's folder it was validated against (paths in params resolve against it). */
  readonly folder: string | undefined;
  readonly problems: Problem[];
}

const problemsCache = new WeakMap<JobDraft, Validated>();
let lastValidated: Validated | undefined;

/** The folder of a job file's path, "/" or "\\" separated; undefined for a job not saved yet. */
function folderOf(path: string | undefined): string | undefined {
  if (path === undefined) return undefined;
  const cut = Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\'));
  return cut <= 0 ? path.slice(0, cut + 1) || '/' : path.slice(0, cut);
}

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

/**
 * The engine's own validation of the draft: the designer never has a copy of the rules. A saved
 * job is validated against its folder, as a run resolves its paths (two sinks on one file).
 */
export function problemsOf(
  state: Pick<DesignerState, 'draft' | 'parseProblems'> & Partial<Pick<DesignerState, 'filePath'>>,
): Problem[] {
  const { draft } = state;
  if (draft === undefined) return state.parseProblems;
  const folder = folderOf(state.filePath);
  let validated = problemsCache.get(draft);
  if (validated === undefined || validated.folder !== folder) {
    const last = lastValidated;
    const problems =
      last !== undefined && last.folder === folder && onlyEditorMoved(last.draft, last.problems, draft)
        ? last.problems
        : validateJob(draft, folder === undefined ? {} : { jobDir: folder }).problems;
    validated = { draft, folder, problems };
    problemsCache.set(draft, validated);
  }
  lastValidated = validated;
  return validated.problems;
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
