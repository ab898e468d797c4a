import { describe, expect, it } from 'vitest';
import { newJobDraft } from './jobDraft';
import { copiedNotice, copyNote, templateDataFiles } from './templateData';

const draft = {
  ...newJobDraft('t'),
  operators: [
    { id: 'a', kind: 'source.jsonl', params: { path: 'lines.jsonl' } },
    { id: 'b', kind: 'source.jsonl', params: { path: 'data/more.jsonl' } },
    { id: 'c', kind: 'source.jsonl', params: { path: 'lines.jsonl' } },
    { id: 'd', kind: 'source.jsonl', params: { path: '../outside.jsonl' } },
    { id: 'e', kind: 'source.jsonl', params: { path: '/abs/x.jsonl' } },
    { id: 'f', kind: 'sink.jsonl', params: { path: 'out.jsonl' } },
  ],
};

describe('templateDataFiles', () => {
  it('lists each input inside the template’s folder once, for a job opened from a template and not saved yet', () => {
    const state = { draft, templatePath: '/ex/t/t.job.json', filePath: undefined };
    expect(templateDataFiles(state)).toEqual(['lines.jsonl', 'data/more.jsonl']);
    expect(templateDataFiles({ ...state, filePath: '/mine/t.job.json' })).toEqual([]);
    expect(templateDataFiles({ ...state, templatePath: undefined })).toEqual([]);
  });
});

describe('what the dialogs say', () => {
  it('before: which files are copied; after: which were copied and which kept', () => {
    expect(copyNote([])).toBeUndefined();
    expect(copyNote(['lines.jsonl'])).toBe(
      'Its input file lines.jsonl is copied from the template into the folder you save in (a file of that name already there is kept).',
    );
    expect(copyNote(['a', 'b', 'c'])).toMatch(/^Its input files a, b and c are copied/);
    expect(copiedNotice({ copied: [], kept: [] })).toBeUndefined();
    expect(copiedNotice({ copied: ['a'], kept: ['b'] })).toBe(
      "Copied the template's input a beside the job. b was already beside the job and is kept as it is, not the template's.",
    );
  });
});
