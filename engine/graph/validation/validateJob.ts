// The job validator: the one place that decides whether a job file is runnable. The designer
// calls it on every edit and the CLI before every run, so it reports every problem at once,
// in words for people, each pinned to a JSON path and to the ids the designer can highlight.
import type { Problem } from '../problem.js';
import { currentJobSchema, type Job } from '../schema.js';
import { toProblems } from './finding.js';
import { formatFinding } from './formatCheck.js';
import { graphFindings } from './graphRules.js';
import { parseJobText } from './jsonText.js';
import { nestingFinding } from './nestingRule.js';
import { translateIssue } from './schemaIssues.js';

export interface ValidateOptions {
  /**
   * The folder of the job file, absolute: paths in params are compared as resolved against it
   * (an absolute path and a relative one can name one file). Unknown for a job not saved yet.
   */
  readonly jobDir?: string;
}

/**
 * Validates a parsed job file. Every problem is reported at once, sorted by where it is in the
 * document; `job` (with defaults filled in) is set exactly when there are none. A file of
 * another format gets only the format problem: its fields may mean something else.
 */
export function validateJob(
  input: unknown,
  options: ValidateOptions = {},
): { job?: Job; problems: Problem[] } {
  const wrongFormat = formatFinding(input);
  if (wrongFormat) return { problems: toProblems(input, [wrongFormat]) };
  // Before anything that walks the document recursively.
  const tooDeep = nestingFinding(input);
  if (tooDeep) return { problems: toProblems(input, [tooDeep]) };
  const root = input as Record<string, unknown>;
  const parsed = currentJobSchema().safeParse(root);
  const findings = graphFindings(root, options.jobDir);
  // The discriminated union guarantees each operator's params match its kind, as Job spells out.
  if (parsed.success && findings.length === 0) return { job: parsed.data as Job, problems: [] };
  if (!parsed.success)
    findings.unshift(...parsed.error.issues.flatMap((issue) => translateIssue(root, issue)));
  return { problems: toProblems(root, findings) };
}

/** Parses and validates a job file's text. */
export function validateJobText(
  text: string,
  options: ValidateOptions = {},
): { job?: Job; problems: Problem[] } {
  const { value, problems } = parseJobText(text);
  if (problems.length > 0) return { problems };
  return validateJob(value, options);
}
