// A problem as the checks find it (its path still a list of segments), and how findings become
// the problems a user reads: in document order, ties in the order they were found.
import type { Problem } from '../problem.js';
import { comparePositions, documentPosition, formatJsonPath, type Segment } from './jsonPath.js';
import type { ProblemCode } from './problemCodes.js';

export interface Finding {
  readonly code: ProblemCode;
  readonly message: string;
  readonly path: readonly Segment[];
  readonly ids: readonly string[];
  readonly codeLine?: number;
  readonly codeColumn?: number;
}

export function toProblems(root: unknown, findings: readonly Finding[]): Problem[] {
  return findings
    .map((finding, order) => ({ finding, order, position: documentPosition(root, finding.path) }))
    .sort((a, b) => comparePositions(a.position, b.position) || a.order - b.order)
    .map(({ finding }) => ({
      code: finding.code,
      message: finding.message,
      path: formatJsonPath(finding.path),
      ids: finding.ids,
      ...(finding.codeLine === undefined
        ? {}
        : { codeLine: finding.codeLine, codeColumn: finding.codeColumn ?? 1 }),
    }));
}
