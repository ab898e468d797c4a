// Which operators and edges the validator's problems name, with the first thing said about
// each: the canvas marks them and shows that sentence on hover.
import type { Problem } from '../../engine/graph/index.js';

export interface ProblemMarks {
  /** The first problem message naming each id. */
  readonly messages: ReadonlyMap<string, string>;
  /** Ids of the edges on a cycle that no feedback edge breaks: each could be made the feedback edge. */
  readonly cycleIds: ReadonlySet<string>;
}

const cache = new WeakMap<readonly Problem[], ProblemMarks>();

export function problemMarks(problems: readonly Problem[]): ProblemMarks {
  let marks = cache.get(problems);
  if (marks === undefined) {
    const messages = new Map<string, string>();
    const cycleIds = new Set<string>();
    for (const problem of problems) {
      for (const id of problem.ids) {
        if (!messages.has(id)) messages.set(id, problem.message);
        if (problem.code === 'cycle') cycleIds.add(id);
      }
    }
    marks = { messages, cycleIds };
    cache.set(problems, marks);
  }
  return marks;
}
