// The rules about an operator's params taken together, which its kind's schema cannot say field by
// field: each kind's own (its descriptor's checkParams: which topics a Kafka source reads, the key
// columns of a PostgreSQL upsert, ...), and, for every kind, that text meaning to name an
// environment variable ("${env:...") is a well-formed reference. A param the schema already
// refused is left to the schema's problem.
import type { Finding } from './finding.js';
import type { OperatorFacts } from './graphFacts.js';
import type { GraphRule } from './graphRule.js';
import { quote } from './valueWords.js';

const ENV_START = '${env:';
/** A well-formed reference at the start of the text (the resolver's ENV_REFERENCE, anchored). */
const WELL_FORMED = /^\$\{env:[A-Za-z_][A-Za-z0-9_]*\}/;

type Path = readonly (string | number)[];

function finding(op: OperatorFacts, code: Finding['code'], param: Path, message: string): Finding {
  return {
    code,
    message: `operator ${quote(op.id)}: ${message}`,
    path: ['operators', op.index, 'params', ...param],
    ids: [op.id],
  };
}

/** A param's name as a user writes it: "connection", "auth.urls[1]". */
function paramName(path: Path): string {
  return path.reduce<string>(
    (text, part) => (typeof part === 'number' ? `${text}[${part}]` : text === '' ? part : `${text}.${part}`),
    '',
  );
}

/** The first "${env:" in `text` that does not begin a well-formed reference, as written (its start). */
function malformedReference(text: string): string | undefined {
  for (let at = text.indexOf(ENV_START); at >= 0; at = text.indexOf(ENV_START, at + 1)) {
    if (!WELL_FORMED.test(text.slice(at))) {
      const end = text.indexOf('}', at);
      return end < 0 ? text.slice(at) : text.slice(at, end + 1);
    }
  }
  return undefined;
}

function envFindings(op: OperatorFacts, value: unknown, path: (string | number)[]): Finding[] {
  if (typeof value === 'string') {
    const bad = malformedReference(value);
    return bad === undefined
      ? []
      : [
          finding(
            op,
            'invalid-value',
            path,
            `param "${paramName(path)}" has ${quote(bad)}, which is not an environment variable reference: write "\${env:NAME}", NAME of letters, digits and _ (not starting with a digit)`,
          ),
        ];
  }
  if (Array.isArray(value)) return value.flatMap((item, i) => envFindings(op, item, [...path, i]));
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([key, item]) => envFindings(op, item, [...path, key]));
  }
  return [];
}

/** The kind's own checks across its params, as findings about this operator. */
function kindFindings(op: OperatorFacts): Finding[] {
  const check = op.kind?.checkParams;
  if (check === undefined) return [];
  return check(op.params ?? {}).map((problem) => finding(op, problem.code, problem.path, problem.message));
}

export const connectorParams: GraphRule = ({ operators }) =>
  operators.flatMap((op) => [...kindFindings(op), ...envFindings(op, op.params, [])]);
