// The job file a command names, read and validated. A file that cannot be read is said in one
// line naming it (`cannot read job.json: no such file`): there is no job to list problems of.
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Problem } from '../graph/problem.js';
import type { Job } from '../graph/schema.js';
import { parseJobText } from '../graph/validation/jsonText.js';
import { validateJob } from '../graph/validation/validateJob.js';

const REASONS: Readonly<Record<string, string>> = {
  ENOENT: 'no such file',
  EISDIR: 'it is a folder',
  ENOTDIR: 'a part of its path is not a folder',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  ENAMETOOLONG: 'the name is too long',
};

export type JobFile =
  | { readonly unreadable: string }
  | {
      readonly unreadable?: undefined;
      /** The file's text, as read (what trust is recorded for: see trustList.ts). */
      readonly text: string;
      /** The text parsed, when it is JSON (a job or not): what its input files are read from. */
      readonly document?: unknown;
      readonly job?: Job;
      readonly problems: readonly Problem[];
    };

export function readJobFile(file: string): JobFile {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    return { unreadable: `cannot read ${file}: ${(code && REASONS[code]) ?? message}` };
  }
  const { value, problems } = parseJobText(text);
  if (problems.length > 0) return { text, problems };
  // Paths in params are compared as the run resolves them: against the job file's folder.
  return { text, document: value, ...validateJob(value, { jobDir: dirname(resolve(file)) }) };
}
