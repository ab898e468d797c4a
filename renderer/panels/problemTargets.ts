// What a problem in the Problems panel points at. The validator lists the ids a problem
// involves without saying which are operators and which are edges (a cycle lists its operators,
// then its edges), so the draft decides.
import type { Problem } from '../../engine/graph/index.js';
import { draftEdges, edgeIds, type JobDraft, operatorIds, stringField } from '../document/jobDraft';

export interface ProblemTarget {
  readonly kind: 'operator' | 'edge';
  readonly id: string;
}

/** The first operator or edge of the draft that the problem names. */
export function problemTarget(draft: JobDraft | undefined, problem: Problem): ProblemTarget | undefined {
  if (draft === undefined) return undefined;
  const operators = operatorIds(draft);
  const edges = edgeIds(draft);
  for (const id of problem.ids) {
    if (operators.has(id)) return { kind: 'operator', id };
    if (edges.has(id)) return { kind: 'edge', id };
  }
  return undefined;
}

/** The edges of a cycle problem that could be made feedback edges to break it, in its order. */
export function feedbackCandidates(draft: JobDraft | undefined, problem: Problem): string[] {
  if (draft === undefined || problem.code !== 'cycle') return [];
  const notFeedback = new Set(
    draftEdges(draft)
      .filter((e) => e.feedback !== true)
      .flatMap((e) => stringField(e, 'id') ?? []),
  );
  return [...new Set(problem.ids.filter((id) => notFeedback.has(id)))];
}

/** "line 3, column 7" for a problem pinned to a place in the file's text. */
export function textPosition(problem: Problem): string | undefined {
  if (problem.line === undefined) return undefined;
  return problem.column === undefined
    ? `line ${problem.line}`
    : `line ${problem.line}, column ${problem.column}`;
}

/**
 * The message without the position it ends with, when the panel shows that position beside it:
 * "... found "," (line 3, column 15)" would otherwise say it twice.
 */
export function messageWithoutPosition(problem: Problem): string {
  const position = textPosition(problem);
  if (position === undefined) return problem.message;
  const suffix = ` (${position})`;
  return problem.message.endsWith(suffix) ? problem.message.slice(0, -suffix.length) : problem.message;
}
