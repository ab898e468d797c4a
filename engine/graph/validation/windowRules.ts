// The rules about a window operator's params taken together, which its schema cannot say field by
// field: what each window type needs (a size, a slide no larger than the size, a gap), what each
// aggregate needs (a field, or code defining its functions). A param the schema already refused
// is left to the schema's problem: each rule reads only values of the right shape.
import { readCode } from '../codeParse.js';
import { FIELD_AGGREGATES, windowKind } from '../kinds/window.js';
import type { Finding } from './finding.js';
import type { OperatorFacts } from './graphFacts.js';
import type { GraphRule } from './graphRule.js';
import { quote } from './valueWords.js';

type ParamName = keyof typeof windowKind.params.shape;

/** The functions an aggregate in code defines; merge only where windows merge. */
function aggregateFunctions(type: unknown): string[] {
  return type === 'session'
    ? ['createAccumulator', 'add', 'merge', 'result']
    : ['createAccumulator', 'add', 'result'];
}

function windowFindings(op: OperatorFacts): Finding[] {
  const params = op.params ?? {};
  const findings: Finding[] = [];
  const label = `operator ${quote(op.id)}`;
  /** A param's value when its own schema takes it; undefined when absent or refused. */
  const valid = (name: ParamName): unknown => {
    const value = params[name];
    return value !== undefined && windowKind.params.shape[name].safeParse(value).success ? value : undefined;
  };
  const problem = (code: Finding['code'], name: ParamName, message: string) =>
    findings.push({
      code,
      message: `${label}: ${message}`,
      path: ['operators', op.index, 'params', name],
      ids: [op.id],
    });

  const type = valid('type');
  const size = valid('sizeMs') as number | undefined;
  const slide = valid('slideMs') as number | undefined;
  const offset = valid('offsetMs') as number | undefined;
  if ((type === 'tumbling' || type === 'sliding') && params.sizeMs === undefined) {
    problem('required', 'sizeMs', `a ${type} window needs params.sizeMs, the length of each window in ms`);
  }
  if (type === 'sliding' && params.slideMs === undefined) {
    problem(
      'required',
      'slideMs',
      'a sliding window needs params.slideMs, how far apart its windows start in ms',
    );
  }
  if (type === 'sliding' && size !== undefined && slide !== undefined && slide > size) {
    problem(
      'invalid-value',
      'slideMs',
      `params.slideMs (${slide}) is larger than params.sizeMs (${size}): records between two windows would be in none`,
    );
  }
  // Flink's rule: an offset of a whole window or more is another offset said the long way.
  const period = type === 'tumbling' ? size : type === 'sliding' ? slide : undefined;
  if (period !== undefined && offset !== undefined && Math.abs(offset) >= period) {
    const which = type === 'tumbling' ? 'sizeMs' : 'slideMs';
    problem(
      'invalid-value',
      'offsetMs',
      `params.offsetMs (${offset}) must be less than params.${which} (${period}) either way`,
    );
  }
  if (type === 'session' && params.gapMs === undefined) {
    problem(
      'required',
      'gapMs',
      'a session window needs params.gapMs, the quiet time in ms that ends a session',
    );
  }

  const aggregate = valid('aggregate');
  if (typeof aggregate === 'string' && FIELD_AGGREGATES.includes(aggregate) && params.field === undefined) {
    problem(
      'required',
      'field',
      `aggregate ${quote(aggregate)} needs params.field, the record field to ${aggregate}`,
    );
  }
  if (aggregate === 'code') {
    if (params.code === undefined) {
      problem('required', 'code', 'aggregate "code" needs params.code, defining its functions');
    } else if (typeof params.code === 'string') {
      // Code that does not parse is reported as a syntax error; it defines nothing anyone can know of.
      const tree = readCode(params.code).tree;
      for (const name of tree === undefined ? [] : aggregateFunctions(type)) {
        if (!tree!.defines.has(name)) {
          const why = name === 'merge' ? ' (session windows merge)' : '';
          problem('missing-function', 'code', `params.code must define a function named ${name}${why}`);
        }
      }
    }
  } else if (aggregate !== undefined && params.code !== undefined) {
    problem(
      'invalid-value',
      'code',
      `params.code is used only with aggregate "code" (this window's aggregate is ${quote(String(aggregate))})`,
    );
  }
  return findings;
}

export const windowParams: GraphRule = ({ operators }) =>
  operators.flatMap((op) => (op.kind?.kind === windowKind.kind ? windowFindings(op) : []));
