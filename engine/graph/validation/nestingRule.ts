// How deep a job file's objects and arrays may nest. Real jobs nest a handful of levels (a
// transaction's tables, a window's settings); the validator's rules, the schema and the engine
// walk values recursively, and a file nested thousands deep (crafted, or a generator gone wrong)
// overflowed their stack with a RangeError instead of a problem. So the depth is measured first,
// without recursion, and a file past MAX_NESTING gets this one problem and no other check: like a
// file of another format, its other fields are not looked at.
import type { Finding } from './finding.js';
import { fieldName, isRecord, type Segment } from './jsonPath.js';
import { quote } from './valueWords.js';

/** Levels of objects and arrays a job file may have, the file's own object the first. */
export const MAX_NESTING = 100;

interface Visit {
  readonly value: unknown;
  readonly depth: number;
  readonly parent: Visit | undefined;
  readonly segment: Segment | undefined;
}

/** The path of the first value found past MAX_NESTING, or undefined when none is. */
function tooDeep(root: unknown): Segment[] | undefined {
  const stack: Visit[] = [{ value: root, depth: 1, parent: undefined, segment: undefined }];
  for (let visit = stack.pop(); visit !== undefined; visit = stack.pop()) {
    const { value, depth } = visit;
    const children: [Segment, unknown][] = Array.isArray(value)
      ? value.map((item, i) => [i, item])
      : isRecord(value)
        ? Object.entries(value)
        : [];
    for (const [segment, child] of children) {
      if (typeof child !== 'object' || child === null) continue;
      const next: Visit = { value: child, depth: depth + 1, parent: visit, segment };
      if (next.depth > MAX_NESTING) return pathOf(next);
      stack.push(next);
    }
  }
  return undefined;
}

function pathOf(visit: Visit): Segment[] {
  const path: Segment[] = [];
  for (let at: Visit | undefined = visit; at?.segment !== undefined; at = at.parent) path.unshift(at.segment);
  return path;
}

/** The one problem of a file nested past MAX_NESTING, named by the param (or field) that does. */
export function nestingFinding(root: unknown): Finding | undefined {
  const path = tooDeep(root);
  if (path === undefined) return undefined;
  const why = `nests objects and arrays too deep: a job file may nest them ${MAX_NESTING} levels at most`;
  const [list, index] = path;
  const item = (list === 'operators' || list === 'edges') && typeof index === 'number' ? index : undefined;
  if (item === undefined || !isRecord(root) || !Array.isArray(root[list as string])) {
    return {
      code: 'nested-too-deep',
      message: `${fieldName(path.slice(0, 1))} ${why}`,
      path: path.slice(0, 1),
      ids: [],
    };
  }
  const named = (root[list as string] as unknown[])[item];
  const id = isRecord(named) && typeof named.id === 'string' ? named.id : undefined;
  // Inside params, the param; elsewhere in the operator or edge, its field.
  const field = path.slice(2, path[2] === 'params' ? 4 : 3);
  const owner =
    id === undefined
      ? `${list === 'operators' ? 'operator' : 'edge'} ${item + 1}`
      : `${list === 'operators' ? 'operator' : 'edge'} ${quote(id)}`;
  return {
    code: 'nested-too-deep',
    message: `${owner}: ${fieldName(field)} ${why}`,
    path: [...path.slice(0, 2), ...field],
    ids: id === undefined ? [] : [id],
  };
}
