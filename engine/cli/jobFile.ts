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

/** A job file that reads as a valid job: what a run starts from. */
export interface ValidJobFile {
  readonly text: string;
  readonly document?: unknown;
  readonly job: Job;
}

/**
 * The job in `file`, for a command that runs it (`run`, `flink`): when it cannot be read, or is
 * not valid, that is said (each problem a line, then how many) and the result is undefined.
 */
export function readValidJobFile(
  file: string,
  complain: (text: string) => void,
  problemLine: (problem: Problem) => string,
): ValidJobFile | undefined {
  const read = readJobFile(file);
  if (read.unreadable !== undefined) {
    complain(read.unreadable);
    return undefined;
  }
  const { job, problems } = read;
  if (job === undefined) {
    for (const problem of problems) complain(problemLine(problem));
    complain(`${file} is not a valid job (${problems.length} problem${problems.length === 1 ? '' : 's'})`);
    return undefined;
  }
  return { text: read.text, document: read.document, job };
}
