// The rules about connector params taken together, which their schemas cannot say field by field:
// which topics a Kafka source reads (exactly one of topic, topics, topicPattern; a pattern that
// compiles), the group a "committed" start needs, the key columns of a PostgreSQL upsert; and, for
// every kind, that text meaning to name an environment variable ("${env:...") is a well-formed
// reference. A param the schema already refused is left to the schema's problem.
import { sinkPostgresKind } from '../kinds/sinkPostgres.js';
import { sourceKafkaKind } from '../kinds/sourceKafka.js';
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

function isValidPattern(pattern: string): boolean {
  try {
    new RegExp(pattern);
    return true;
  } catch {
    return false;
  }
}

function kafkaSourceFindings(op: OperatorFacts): Finding[] {
  const params = op.params ?? {};
  const findings: Finding[] = [];
  const given = (['topic', 'topics', 'topicPattern'] as const).filter((name) => params[name] !== undefined);
  if (given.length === 0) {
    findings.push(
      finding(
        op,
        'required',
        ['topic'],
        'a Kafka source needs params.topic, params.topics or params.topicPattern',
      ),
    );
  } else if (given.length > 1) {
    findings.push(
      finding(
        op,
        'invalid-value',
        [given[1]!],
        `params.${given[0]} and params.${given[1]} both name topics: give exactly one of topic, topics, topicPattern`,
      ),
    );
  }
  const pattern = params.topicPattern;
  if (typeof pattern === 'string' && pattern !== '' && !isValidPattern(pattern)) {
    findings.push(
      finding(
        op,
        'invalid-value',
        ['topicPattern'],
        `params.topicPattern ${quote(pattern)} is not a valid regular expression`,
      ),
    );
  }
  if (params.startingOffsets === 'committed' && params.groupId === undefined) {
    findings.push(
      finding(
        op,
        'required',
        ['groupId'],
        'startingOffsets "committed" needs params.groupId, the consumer group whose offsets it starts from',
      ),
    );
  }
  return findings;
}

function postgresSinkFindings(op: OperatorFacts): Finding[] {
  const params = op.params ?? {};
  if (params.mode === 'upsert' && params.keyColumns === undefined) {
    return [
      finding(
        op,
        'required',
        ['keyColumns'],
        'mode "upsert" needs params.keyColumns, the columns a row is identified by',
      ),
    ];
  }
  if (params.mode === 'append' && params.keyColumns !== undefined) {
    return [
      finding(
        op,
        'invalid-value',
        ['keyColumns'],
        'params.keyColumns is used only with mode "upsert" (this sink appends every record as a new row)',
      ),
    ];
  }
  return [];
}

export const connectorParams: GraphRule = ({ operators }) =>
  operators.flatMap((op) => {
    const kind = op.kind?.kind;
    return [
      ...(kind === sourceKafkaKind.kind ? kafkaSourceFindings(op) : []),
      ...(kind === sinkPostgresKind.kind ? postgresSinkFindings(op) : []),
      ...envFindings(op, op.params, []),
    ];
  });
