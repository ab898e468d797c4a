// Breakpoints belong to a document, and a run to the document it was started from. The designer
// store has no document identity, so it is read from how its fields change together: opening or
// creating a document replaces the draft and the saved text (or path) in one update; saving
// keeps the draft and changes only the saved text and path; an edit changes only the draft.
import type { DesignerState } from '../store/designerStore';

export type DocumentFields = Pick<DesignerState, 'open' | 'draft' | 'filePath' | 'savedText'>;

export type DocumentChange = 'same' | 'saved' | 'switched';

export function documentChange(previous: DocumentFields, next: DocumentFields): DocumentChange {
  if (previous.open !== next.open) return 'switched';
  const fileChanged = previous.filePath !== next.filePath || previous.savedText !== next.savedText;
  if (!fileChanged) return 'same';
  if (previous.draft !== next.draft) return 'switched';
  return previous.filePath === next.filePath ? 'same' : 'saved';
}

/**
 * Whether the job itself changed from one state of the same document to the next: what a run
 * would do differently. Moving operators on the canvas changes only `editor`, which no run reads.
 */
export function jobEdited(
  previous: Pick<DesignerState, 'draft'>,
  next: Pick<DesignerState, 'draft'>,
): boolean {
  const [a, b] = [previous.draft, next.draft];
  if (a === b || a === undefined || b === undefined) return false;
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  keys.delete('editor');
  for (const key of keys) if (a[key] !== b[key]) return true;
  return false;
}

export const UNSAVED = '(unsaved)';

/** The key breakpoints are kept under: the file, or one slot for the unsaved document. */
export function documentKey(fields: Pick<DesignerState, 'filePath'>): string {
  return fields.filePath ?? UNSAVED;
}
