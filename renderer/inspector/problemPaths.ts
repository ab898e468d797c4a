// Which of the validator's problems belong beside which input. Problems carry the JSON path of
// the offending value, so a form finds its own by path rather than by re-checking any rule.
import { formatJsonPath, type Problem } from '../../engine/graph/index.js';
import { isObject, type JobDraft } from '../document/jobDraft';

export type PathSegments = readonly (string | number)[];

/** Whether `path` is `prefix` or lies inside it (`$.a.b` and `$.a[0]` lie inside `$.a`). */
export function isUnder(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(`${prefix}.`) || path.startsWith(`${prefix}[`);
}

/** The problems about the value at `segments` or inside it. */
export function problemsAt(problems: readonly Problem[], segments: PathSegments): Problem[] {
  const prefix = formatJsonPath(segments);
  return problems.filter((p) => isUnder(p.path, prefix));
}

/**
 * A problem's message as it reads beside the input it is about: the form already says which
 * operator or edge it is, so the leading `operator "x": ` is dropped.
 */
export function inlineMessage(problem: Problem): string {
  return problem.message.replace(/^(operator|edge) "(?:[^"\\]|\\.)*": /, '');
}

/** The problems that concern an operator or edge (by id or by path) and are not in `shown`. */
export function otherProblems(
  problems: readonly Problem[],
  id: string,
  segments: PathSegments,
  shown: ReadonlySet<Problem>,
): Problem[] {
  const prefix = formatJsonPath(segments);
  return problems.filter((p) => !shown.has(p) && (p.ids.includes(id) || isUnder(p.path, prefix)));
}

/** Where the operator or edge with this id sits in the draft, as the validator's paths count. */
export function elementPath(
  draft: JobDraft,
  list: 'operators' | 'edges',
  id: string,
): PathSegments | undefined {
  const elements = draft[list];
  if (!Array.isArray(elements)) return undefined;
  // The validator reports a duplicate id against the first element that has it; so does this.
  const index = elements.findIndex((element) => isObject(element) && element.id === id);
  return index === -1 ? undefined : [list, index];
}
