// Everything the Problems panel lists, in one order: why the last run failed (the newest news),
// a run command the host refused (both said whole here, cut to one line in the status line),
// the validator's problems, the inspector's inputs whose text is not applied, and the host's
// warnings about the files the job reads. Only the validator's problems stop a run or an export
// (selectors.ts problemsOf); the rest are said here so that nothing the designer knows is silent.
import type { Problem } from '../../engine/graph/index.js';
import type { FileProblem } from '../../engine/protocol/protocol.js';
import { findOperator } from '../document/draftEdits';
import { isObject, type JobDraft } from '../document/jobDraft';
import { type UnappliedField, unappliedProblem } from './unappliedFields';

export type Severity = 'error' | 'warning';

export interface ListedProblem extends Problem {
  readonly severity: Severity;
}

export interface RunFailure {
  /** The host's message, in full. */
  readonly message: string;
  /** The operator it names, if it names exactly one. */
  readonly operator: string | undefined;
}

export interface ProblemSources {
  readonly draft: JobDraft | undefined;
  /** The validator's, or why the file is not a job. */
  readonly problems: readonly Problem[];
  readonly unappliedFields: readonly UnappliedField[];
  readonly fileProblems: readonly FileProblem[];
  readonly runFailure: RunFailure | undefined;
  /** The last run command that failed (RunState.notice). */
  readonly runNotice?: string | undefined;
}

/**
 * Whether the host's warning is still about the job shown: the operator still names the file
 * that was checked. Editing the path drops the warning until the next check (a save or a run).
 */
function stillNamed(draft: JobDraft | undefined, problem: FileProblem): boolean {
  const op = draft === undefined ? undefined : findOperator(draft, problem.operator);
  return op !== undefined && isObject(op.params) && op.params[problem.param] === problem.file;
}

export function runFailureProblem(failure: RunFailure): ListedProblem {
  return {
    code: 'run-failed',
    severity: 'error',
    message: `last run failed: ${failure.message}`,
    path: '',
    ids: failure.operator === undefined ? [] : [failure.operator],
  };
}

export function listProblems(sources: ProblemSources): ListedProblem[] {
  const listed: ListedProblem[] = [];
  if (sources.runFailure !== undefined) listed.push(runFailureProblem(sources.runFailure));
  if (sources.runNotice !== undefined) {
    listed.push({
      code: 'run-command-failed',
      severity: 'error',
      message: sources.runNotice,
      path: '',
      ids: [],
    });
  }
  for (const p of sources.problems) listed.push({ ...p, severity: 'error' });
  for (const field of sources.unappliedFields) listed.push({ ...unappliedProblem(field), severity: 'error' });
  for (const p of sources.fileProblems) {
    if (!stillNamed(sources.draft, p)) continue;
    const { code, message, path, ids, severity } = p;
    listed.push({ code, message, path, ids, severity });
  }
  return listed;
}
