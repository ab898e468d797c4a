// A template's input data goes with it. A template opens as a new, unsaved job (so that saving
// never overwrites the example), and its sources name their files relative to the template's
// folder: saved anywhere else, the job would find nothing to read on its first Run. So the first
// save copies them beside the job file, and every dialog on the way says so beforehand.
import { inputFilesOf } from '../../engine/graph/index.js';
import type { JobDraft } from './jobDraft';

/** A name that stays inside the folder it is resolved against: not absolute, no "..". */
function staysInside(file: string): boolean {
  if (/^([\\/]|[A-Za-z]:)/.test(file)) return false;
  const parts = file.split(/[\\/]+/);
  return parts.every((part) => part !== '..') && parts.some((part) => part !== '' && part !== '.');
}

/**
 * The input files that go with a job opened from a template when it is first saved: those its
 * sources name inside the template's folder, each once. None once the job has a file of its own.
 */
export function templateDataFiles(state: {
  readonly draft: JobDraft | undefined;
  readonly templatePath: string | undefined;
  readonly filePath: string | undefined;
}): string[] {
  if (state.templatePath === undefined || state.filePath !== undefined || state.draft === undefined)
    return [];
  return [...new Set(inputFilesOf(state.draft).map((input) => input.file))].filter(staysInside);
}

function listed(files: readonly string[]): string {
  return files.length === 1 ? files[0]! : `${files.slice(0, -1).join(', ')} and ${files.at(-1)}`;
}

/** Said before the save: what it will copy. */
export function copyNote(files: readonly string[]): string | undefined {
  if (files.length === 0) return undefined;
  const its = files.length === 1 ? 'Its input file' : 'Its input files';
  return `${its} ${listed(files)} ${files.length === 1 ? 'is' : 'are'} copied from the template into the folder you save in (a file of that name already there is kept).`;
}

/** Said after the save: what it copied, and what it found there already and kept. */
export function copiedNotice(result: {
  readonly copied: readonly string[];
  readonly kept: readonly string[];
}) {
  const said: string[] = [];
  if (result.copied.length > 0)
    said.push(`Copied the template's input ${listed(result.copied)} beside the job.`);
  if (result.kept.length > 0) {
    const was = result.kept.length === 1 ? 'was' : 'were';
    said.push(
      `${listed(result.kept)} ${was} already beside the job and ${result.kept.length === 1 ? 'is' : 'are'} kept as ${result.kept.length === 1 ? 'it is' : 'they are'}, not the template's.`,
    );
  }
  return said.length === 0 ? undefined : said.join(' ');
}
