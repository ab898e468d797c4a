import { describe, expect, it } from 'vitest';
import { newJobDraft } from '../document/jobDraft';
import { type DocumentFields, documentChange, documentKey, jobEdited } from './documentChange';

const draft = newJobDraft('a');
const base: DocumentFields = { open: true, draft, filePath: '/jobs/a.job.json', savedText: 'A' };

describe('documentChange', () => {
  it('sees an edit, an undo or a selection as the same document', () => {
    expect(documentChange(base, { ...base, draft: newJobDraft('b') })).toBe('same');
    expect(documentChange(base, { ...base })).toBe('same');
  });

  it('sees a save as the same document, a save under a new path as saved', () => {
    expect(documentChange(base, { ...base, savedText: 'A2' })).toBe('same');
    expect(documentChange(base, { ...base, filePath: '/jobs/b.job.json', savedText: 'A2' })).toBe('saved');
    expect(documentChange({ ...base, filePath: undefined, savedText: '' }, base)).toBe('saved');
  });

  it('sees opening, creating or closing as another document', () => {
    expect(
      documentChange(base, {
        open: true,
        draft: newJobDraft('c'),
        filePath: '/jobs/c.job.json',
        savedText: 'C',
      }),
    ).toBe('switched');
    expect(
      documentChange(base, { open: true, draft: newJobDraft(), filePath: undefined, savedText: '' }),
    ).toBe('switched');
    expect(documentChange(base, { ...base, open: false })).toBe('switched');
  });

  it('keys a document by its path', () => {
    expect(documentKey(base)).toBe('/jobs/a.job.json');
    expect(documentKey({ filePath: undefined })).toBe('(unsaved)');
  });

  it('tells an edit of the job from a move of its operators on the canvas', () => {
    expect(jobEdited({ draft }, { draft: { ...draft, name: 'b' } })).toBe(true);
    expect(jobEdited({ draft }, { draft: { ...draft, operators: [] } })).toBe(true);
    expect(jobEdited({ draft }, { draft: { ...draft, editor: { positions: {} } } })).toBe(false);
    expect(jobEdited({ draft }, { draft })).toBe(false);
    expect(jobEdited({ draft: undefined }, { draft })).toBe(false);
  });
});
