// The job validator: the one place that decides whether a job file is runnable. The designer
// calls it on every edit and the CLI before every run, so it reports every problem at once,
// in words for people, each pinned to a JSON path and to the ids the designer can highlight.
import type { core } from 'zod';
import { z } from 'zod';
import { type CodeFault, type EmittedPorts, readCode } from './codeParse.js';
import { describeCycle, findCycles } from './cycles.js';
import { KINDS } from './operatorKinds.js';
import type { Problem } from './problem.js';
import {
  edgeSchema,
  isSink,
  isSource,
  JOB_FORMAT,
  type Job,
  jobSchema,
  OPERATOR_KINDS,
  type OperatorKind,
  operatorSchema,
  type Partition,
  paramsSchemas,
  partitionSchema,
  settingsSchema,
} from './schema.js';

/** Every code a Problem from this module can carry. Codes are stable: tools match on them. */
export const PROBLEM_CODES = [
  'malformed-json',
  'format',
  'required',
  'wrong-type',
  'invalid-value',
  'unknown-field',
  'unknown-kind',
  'not-yet-available',
  'missing-function',
  'syntax-error',
  'forbidden-in-code',
  'parallelism-above-max',
  'duplicate-operator-id',
  'duplicate-edge-id',
  'unknown-operator',
  'unknown-port',
  'edge-from-sink',
  'edge-to-source',
  'missing-key',
  'unexpected-key',
  'forward-parallelism',
  'feedback-not-hash',
  'keyed-input',
  'cycle',
] as const;

export type ProblemCode = (typeof PROBLEM_CODES)[number];

type Segment = string | number;

interface Finding {
  readonly code: ProblemCode;
  readonly message: string;
  readonly path: readonly Segment[];
  readonly ids: readonly string[];
  readonly codeLine?: number;
  readonly codeColumn?: number;
}

// ---------------------------------------------------------------------------------------------
// JSON paths

/** `["edges", 2, "to"]` -> `$.edges[2].to`; keys that are not identifiers are bracketed. */
export function formatJsonPath(path: readonly Segment[]): string {
  let out = '$';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(segment)) out += `.${segment}`;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out;
}

// The same path without the leading `$.`, as it reads inside a sentence: `params.code`.
function fieldName(path: readonly Segment[]): string {
  return formatJsonPath(path).slice(1).replace(/^\./, '');
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function valueAt(root: unknown, path: readonly Segment[]): unknown {
  let current = root;
  for (const segment of path) {
    if (Array.isArray(current) && typeof segment === 'number') current = current[segment];
    else if (isRecord(current) && typeof segment === 'string' && Object.hasOwn(current, segment))
      current = current[segment];
    else return undefined;
  }
  return current;
}

// Where a path falls in the document as written: array indexes and the position of each key
// among its object's keys. A key that is absent (a required field) sorts after its siblings.
function documentPosition(root: unknown, path: readonly Segment[]): number[] {
  const position: number[] = [];
  let current = root;
  for (const segment of path) {
    if (Array.isArray(current) && typeof segment === 'number') {
      position.push(segment);
      current = current[segment];
    } else if (isRecord(current)) {
      const keys = Object.keys(current);
      const index = keys.indexOf(String(segment));
      position.push(index === -1 ? keys.length : index);
      current = index === -1 ? undefined : current[String(segment)];
    } else {
      position.push(0);
      current = undefined;
    }
  }
  return position;
}

function comparePositions(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    if (a[i] !== b[i]) return a[i]! - b[i]!;
  }
  return a.length - b.length;
}

function toProblems(root: unknown, findings: readonly Finding[]): Problem[] {
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

// ---------------------------------------------------------------------------------------------
// Words

// A message is one line to read: a value of thousands of characters is shown by its start.
const quote = (text: string): string =>
  text.length > 100
    ? `${JSON.stringify(text.slice(0, 100))}… (${text.length} characters)`
    : JSON.stringify(text);

function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (typeof value === 'string') return value.length > 40 ? `${quote(value.slice(0, 40))}...` : quote(value);
  if (Array.isArray(value)) return 'an array';
  if (isRecord(value)) return 'an object';
  return String(value);
}

const EXPECTED_WORDS: Readonly<Record<string, string>> = {
  string: 'a string',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  object: 'an object',
  array: 'an array',
  null: 'null',
};

function expectedWords(expected: string): string {
  return EXPECTED_WORDS[expected] ?? `a ${expected}`;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current.push(Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/** The candidate a typo most likely meant, if one is close enough to suggest. */
function closest(word: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  const limit = Math.max(1, Math.min(3, Math.floor(word.length / 3)));
  // No id is longer than 64 characters, and the distance is at least the difference in length:
  // skipping what cannot be close keeps two long strings from costing length × length.
  if (word.length > 100) return undefined;
  for (const candidate of candidates) {
    if (Math.abs(candidate.length - word.length) > limit) continue;
    const distance =
      candidate.toLowerCase() === word.toLowerCase()
        ? 0
        : editDistance(word.toLowerCase(), candidate.toLowerCase());
    // One letter away from a one-letter name is no evidence of a typo.
    const plausible = distance < Math.min(word.length, candidate.length) || distance === 0;
    if (plausible && distance <= limit && distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

const guessKind = (word: string): string => {
  const guess = closest(word, OPERATOR_KINDS);
  return guess === undefined ? '' : `; did you mean ${quote(guess)}?`;
};

const didYouMean = (word: string, candidates: Iterable<string>): string => {
  const guess = closest(word, candidates);
  return guess === undefined ? '' : ` (did you mean ${quote(guess)}?)`;
};

// ---------------------------------------------------------------------------------------------
// Malformed JSON

interface JsonFault {
  readonly offset: number;
  readonly reason: string;
}

class JsonStop {
  constructor(readonly fault: JsonFault) {}
}

// JSON.parse says where it failed only in some engines and some versions, and in words that
// differ between them; this scanner finds the first offending character the same way
// everywhere and says what was expected there.
function locateJsonFault(text: string): JsonFault | undefined {
  let i = 0;
  const stop = (reason: string, offset = i): never => {
    throw new JsonStop({ offset, reason });
  };
  const found = (): string => (i >= text.length ? 'the end of the file' : quote(text[i]!));
  const skipSpace = (): void => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++;
  };
  const string = (): void => {
    const start = i;
    i++;
    for (;;) {
      if (i >= text.length) {
        const opened = lineAndColumn(text, start);
        stop(`the file ends inside a string (it opens at line ${opened.line}, column ${opened.column})`);
      }
      const c = text[i]!;
      if (c === '"') {
        i++;
        return;
      }
      if (c === '\\') {
        i++;
        const escaped = text[i];
        if (escaped === 'u') {
          for (let k = 1; k <= 4; k++) {
            if (!/[0-9a-fA-F]/.test(text[i + k] ?? ''))
              stop('\\u must be followed by four hex digits', i + k);
          }
          i += 5;
        } else if (escaped !== undefined && '"\\/bfnrt'.includes(escaped)) i++;
        else stop(`${quote(`\\${escaped ?? ''}`)} is not a JSON escape`);
        continue;
      }
      if (c < ' ')
        stop('a line break or control character inside a string (write it as an escape such as \\n)');
      i++;
    }
  };
  const digits = (what: string): void => {
    if (!/[0-9]/.test(text[i] ?? '')) stop(`${what}, found ${found()}`);
    while (/[0-9]/.test(text[i] ?? '')) i++;
  };
  const number = (): void => {
    if (text[i] === '-') i++;
    if (text[i] === '0') {
      i++;
      if (/[0-9]/.test(text[i] ?? '')) stop('a number cannot start with 0 (write 1, not 01)');
    } else digits('expected a digit');
    if (text[i] === '.') {
      i++;
      digits('expected a digit after the decimal point');
    }
    if (text[i] === 'e' || text[i] === 'E') {
      i++;
      if (text[i] === '+' || text[i] === '-') i++;
      digits('expected a digit in the exponent');
    }
  };
  const value = (closer?: string): void => {
    skipSpace();
    const c = text[i];
    if (c === undefined) stop('the file ends where a value is expected');
    else if (c === '{') object();
    else if (c === '[') array();
    else if (c === '"') string();
    else if (c === '-' || (c >= '0' && c <= '9')) number();
    else if (text.startsWith('true', i)) i += 4;
    else if (text.startsWith('false', i)) i += 5;
    else if (text.startsWith('null', i)) i += 4;
    else if (c === closer) stop(`a trailing comma before ${quote(c)} is not allowed in JSON`);
    else if (c === "'") stop('strings must be in double quotes');
    else stop(`expected a value, found ${found()}`);
  };
  const object = (): void => {
    i++;
    skipSpace();
    if (text[i] === '}') {
      i++;
      return;
    }
    for (;;) {
      skipSpace();
      if (text[i] === '}') stop('a trailing comma before "}" is not allowed in JSON');
      if (text[i] !== '"') stop(`expected a property name in double quotes, found ${found()}`);
      string();
      skipSpace();
      if (text[i] !== ':') stop(`expected ":" after the property name, found ${found()}`);
      i++;
      value();
      skipSpace();
      if (text[i] === ',') i++;
      else if (text[i] === '}') {
        i++;
        return;
      } else stop(`expected "," or "}" after a property value, found ${found()}`);
    }
  };
  const array = (): void => {
    i++;
    skipSpace();
    if (text[i] === ']') {
      i++;
      return;
    }
    for (;;) {
      value(']');
      skipSpace();
      if (text[i] === ',') i++;
      else if (text[i] === ']') {
        i++;
        return;
      } else stop(`expected "," or "]" after an array element, found ${found()}`);
    }
  };
  try {
    value();
    skipSpace();
    if (i < text.length) stop(`unexpected ${found()} after the end of the JSON value`);
    return undefined;
  } catch (error) {
    if (error instanceof JsonStop) return error.fault;
    // Nesting deep enough to exhaust the stack: fall back to the engine's own report.
    return undefined;
  }
}

function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  const end = Math.min(offset, text.length);
  for (let i = 0; i < end; i++) {
    const c = text[i];
    if (c === '\n' || (c === '\r' && text[i + 1] !== '\n')) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: end - lineStart + 1 };
}

// V8 before Node 22: "... in JSON at position 12"; V8 since: "... (line 2 column 5)";
// SpiderMonkey: "JSON.parse: ... at line 2 column 5 of the JSON data"; JavaScriptCore: nothing.
function positionFromEngineMessage(
  text: string,
  message: string,
): { line: number; column: number } | undefined {
  const lineColumn = /line (\d+) column (\d+)/.exec(message);
  if (lineColumn) return { line: Number(lineColumn[1]), column: Number(lineColumn[2]) };
  const position = /position (\d+)/.exec(message);
  if (position) return lineAndColumn(text, Number(position[1]));
  return undefined;
}

function cleanEngineMessage(message: string): string {
  return message
    .replace(/^JSON\.parse:\s*/, '')
    .replace(/\s*\(line \d+ column \d+\)/, '')
    .replace(/\s*at line \d+ column \d+ of the JSON data/, '')
    .replace(/\s*in JSON at position \d+/, '');
}

/**
 * Parses a job file's text. Malformed JSON gives one problem ("malformed-json") with the line
 * and column of the first offending character; `value` is set exactly when there is none.
 */
export function parseJobText(text: string): { value?: unknown; problems: Problem[] } {
  // Editors on Windows may save a byte order mark, which JSON.parse rejects; it is not content.
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  try {
    return { value: JSON.parse(body), problems: [] };
  } catch (error) {
    const engineMessage = error instanceof Error ? error.message : String(error);
    const fault = locateJsonFault(body);
    const scanned = fault && lineAndColumn(body, fault.offset);
    const reported = positionFromEngineMessage(body, engineMessage);
    const where = reported ?? scanned ?? { line: 1, column: 1 };
    const agree = scanned && where.line === scanned.line && where.column === scanned.column;
    const reason =
      body.trim() === ''
        ? 'the file is empty'
        : fault && agree
          ? fault.reason
          : cleanEngineMessage(engineMessage);
    return {
      problems: [
        {
          code: 'malformed-json',
          message: `the file is not valid JSON: ${reason} (line ${where.line}, column ${where.column})`,
          path: '$',
          ids: [],
          line: where.line,
          column: where.column,
        },
      ],
    };
  }
}

// ---------------------------------------------------------------------------------------------
// User code: parsed, never run, by codeParse.ts, so that what the runtime would refuse is found
// before a run and pointed at where the user wrote it.

export type { EmittedPorts } from './codeParse.js';

const UNKNOWN_PORTS: EmittedPorts = { ports: new Set(['out']), dynamic: true };

/**
 * The output ports user code emits to, found by reading `ctx.emit(record, "port")` and
 * `tx.emit(...)` calls in its syntax tree. When the code passes `emit` around or names a port
 * with an expression, `dynamic` is true: the port cannot be known before the code runs. The
 * same holds while the code does not parse.
 */
export function scanEmittedPorts(code: string): EmittedPorts {
  return readCode(code).tree?.ports ?? UNKNOWN_PORTS;
}

function codeFinding(op: OperatorFacts, fault: CodeFault): Finding {
  const where = `line ${fault.line}, column ${fault.column} of its code`;
  return {
    code: fault.kind === 'syntax' ? 'syntax-error' : 'forbidden-in-code',
    message:
      fault.kind === 'syntax'
        ? `${operatorLabel(op)}: syntax error at ${where}: ${fault.reason}`
        : `${operatorLabel(op)}: ${where}: ${fault.reason}`,
    path: ['operators', op.index, 'params', 'code'],
    ids: [op.id],
    codeLine: fault.line,
    codeColumn: fault.column,
  };
}

// The contract names two functions for a transaction; the kind table records the one it calls.
function requiredFunctions(kind: OperatorKind): readonly string[] {
  const main = KINDS[kind].functionName;
  if (main === undefined) return [];
  return kind === 'transaction' ? ['keys', main] : [main];
}

// ---------------------------------------------------------------------------------------------
// Schema issues, in words

// Shape checks for an operator whose kind is unknown, so that its id and parallelism are still
// checked: zod's discriminated union stops at the discriminator.
const operatorBaseSchema = operatorSchema.options[0].pick({ id: true, parallelism: true }).extend({
  kind: z.unknown().optional(),
  params: z.unknown().optional(),
});

function knownFields(root: unknown, parent: readonly Segment[]): readonly string[] | undefined {
  const [first, index, third] = parent;
  if (parent.length === 0) return Object.keys(jobSchema.shape);
  if (parent.length === 1 && first === 'settings') return Object.keys(settingsSchema.shape);
  if (first === 'edges' && parent.length === 2 && typeof index === 'number')
    return Object.keys(edgeSchema.shape);
  if (first === 'operators' && typeof index === 'number') {
    if (parent.length === 2) return Object.keys(operatorBaseSchema.shape);
    const kind = valueAt(root, ['operators', index, 'kind']);
    if (parent.length === 3 && third === 'params' && isKind(kind))
      return Object.keys(paramsSchemas[kind].shape);
  }
  return undefined;
}

function isKind(value: unknown): value is OperatorKind {
  return typeof value === 'string' && (OPERATOR_KINDS as readonly string[]).includes(value);
}

interface Subject {
  /** "operator \"owners\": " when the path is inside an operator or edge that has an id. */
  readonly prefix: string;
  /** The path below that operator or edge (the whole path otherwise). */
  readonly rest: readonly Segment[];
  readonly ids: readonly string[];
}

function subjectOf(root: unknown, path: readonly Segment[]): Subject {
  const [list, index] = path;
  if ((list === 'operators' || list === 'edges') && typeof index === 'number' && path.length > 2) {
    const id = valueAt(root, [list, index, 'id']);
    if (typeof id === 'string') {
      const noun = list === 'operators' ? 'operator' : 'edge';
      return { prefix: `${noun} ${quote(id)}: `, rest: path.slice(2), ids: [id] };
    }
  }
  return { prefix: '', rest: path, ids: [] };
}

function sizeWords(issue: core.$ZodIssueTooSmall | core.$ZodIssueTooBig): string {
  const small = issue.code === 'too_small';
  const limit = Number(small ? issue.minimum : issue.maximum);
  const inclusive = issue.inclusive !== false;
  switch (issue.origin) {
    case 'string':
      if (small && limit === 1) return 'must not be empty';
      return `must be at ${small ? 'least' : 'most'} ${limit} characters long`;
    case 'array':
    case 'set':
      if (small && limit === 1) return 'must not be empty';
      return `must have at ${small ? 'least' : 'most'} ${limit} ${limit === 1 ? 'item' : 'items'}`;
    default:
      if (inclusive) return `must be at ${small ? 'least' : 'most'} ${limit}`;
      return `must be ${small ? 'greater' : 'less'} than ${limit}`;
  }
}

// What a union accepts, for fields whose alternatives read badly when listed by type.
const UNION_WORDS: Readonly<Record<string, string>> = {
  key: 'a field path such as "owner" or an array of field paths',
};

function translateIssue(root: unknown, issue: core.$ZodIssue, base: readonly Segment[] = []): Finding[] {
  const path = [...base, ...issue.path.map((s) => (typeof s === 'symbol' ? String(s) : s))];
  const value = valueAt(root, path);
  const { prefix, rest, ids } = subjectOf(root, path);
  const field = fieldName(rest);
  const found = (code: ProblemCode, message: string, at: readonly Segment[] = path): Finding => ({
    code,
    message: `${prefix}${message}`,
    path: at,
    ids,
  });
  const got = ` (got ${describeValue(value)})`;

  switch (issue.code) {
    case 'invalid_type':
      if (value === undefined)
        return [found('required', `${field} is required (${expectedWords(issue.expected)})`)];
      return [
        found('wrong-type', `${field} must be ${expectedWords(issue.expected)}, not ${describeValue(value)}`),
      ];
    case 'too_small':
    case 'too_big':
      return [found('invalid-value', `${field} ${sizeWords(issue)}${typeof value === 'number' ? got : ''}`)];
    case 'invalid_format':
      // The schema words its own patterns ("must match [A-Za-z0-9_-]{1,64}"); zod's are jargon.
      if (issue.message.startsWith('must '))
        return [found('invalid-value', `${field} ${issue.message}${got}`)];
      return [found('invalid-value', `${field} is not in the expected form${got}`)];
    case 'invalid_value': {
      const options = issue.values.map((v) => (typeof v === 'string' ? quote(v) : String(v)));
      const words = options.length === 1 ? `must be ${options[0]}` : `must be one of ${options.join(', ')}`;
      const hint =
        typeof value === 'string'
          ? didYouMean(
              value,
              issue.values.filter((v): v is string => typeof v === 'string'),
            )
          : '';
      return [found('invalid-value', `${field} ${words}${got}${hint}`)];
    }
    case 'unrecognized_keys': {
      const known = knownFields(root, path) ?? [];
      return issue.keys.map((key) => {
        const at = [...path, key];
        // The key's own subject: an unknown field of an operator still belongs to that operator.
        const subject = subjectOf(root, at);
        const hint = closest(key, known);
        const help =
          hint !== undefined
            ? ` (did you mean ${quote(hint)}?)`
            : known.length > 0
              ? ` (known fields: ${known.join(', ')})`
              : '';
        return {
          code: 'unknown-field',
          message: `${subject.prefix}${fieldName(subject.rest)} is not a known field${help}`,
          path: at,
          ids: subject.ids,
        } satisfies Finding;
      });
    }
    case 'invalid_union': {
      if (issue.discriminator === 'kind') {
        const known = `known kinds: ${OPERATOR_KINDS.join(', ')}`;
        const kindProblem =
          value === undefined
            ? found('required', `kind is required (${known})`)
            : found(
                'unknown-kind',
                typeof value === 'string'
                  ? `kind ${quote(value)} is not a known kind (${known})${guessKind(value)}`
                  : `kind must be a string, not ${describeValue(value)} (${known})`,
              );
        // The issue sits on the discriminator: its parent is the operator.
        const operatorPath = path.slice(0, -1);
        const element = valueAt(root, operatorPath);
        const base = operatorBaseSchema.safeParse(element);
        const more = base.success
          ? []
          : base.error.issues.flatMap((i) => translateIssue(root, i, operatorPath));
        return [kindProblem, ...more];
      }
      // A value that got inside one alternative (an array with a bad element) is best explained
      // by that alternative's own complaints.
      const inner = issue.errors.find(
        (branch) => branch.length > 0 && branch.every((i) => i.path.length > 0),
      );
      if (inner) return inner.flatMap((i) => translateIssue(root, i, path));
      const last = rest[rest.length - 1];
      const alternatives =
        (typeof last === 'string' ? UNION_WORDS[last] : undefined) ??
        issue.errors
          .map((branch) => branch.find((i) => i.code === 'invalid_type' && i.path.length === 0))
          .filter((i): i is core.$ZodIssueInvalidType => i !== undefined)
          .map((i) => expectedWords(i.expected))
          .join(' or ');
      if (value === undefined)
        return [found('required', `${field} is required (${alternatives || 'a value'})`)];
      if (alternatives === '') return [found('invalid-value', `${field} is not valid${got}`)];
      return [found('wrong-type', `${field} must be ${alternatives}, not ${describeValue(value)}`)];
    }
    case 'not_multiple_of':
      return [found('invalid-value', `${field} must be a multiple of ${issue.divisor}${got}`)];
    default:
      return [found('invalid-value', `${field} is not valid${got}`)];
  }
}

// ---------------------------------------------------------------------------------------------
// Graph rules

// What the graph rules need of an operator or an edge, taken from the raw document one field
// at a time: a malformed field (already reported by the schema) disables only the rules that
// need it, so one bad value does not hide problems elsewhere.
interface OperatorFacts {
  readonly index: number;
  readonly id: string;
  readonly kind?: OperatorKind;
  readonly parallelism?: number;
  readonly code?: string;
}

interface EdgeFacts {
  readonly index: number;
  readonly id?: string;
  readonly from?: string;
  readonly to?: string;
  readonly fromPort?: string;
  readonly partition?: Partition;
  readonly hasKey: boolean;
  readonly feedback?: boolean;
}

function operatorFacts(element: unknown, index: number): OperatorFacts | undefined {
  if (!isRecord(element) || typeof element.id !== 'string') return undefined;
  const { parallelism, params } = element;
  return {
    index,
    id: element.id,
    kind: isKind(element.kind) ? element.kind : undefined,
    parallelism:
      parallelism === undefined
        ? 1
        : Number.isInteger(parallelism) && Number(parallelism) >= 1
          ? Number(parallelism)
          : undefined,
    code: isRecord(params) && typeof params.code === 'string' ? params.code : undefined,
  };
}

function edgeFacts(element: unknown, index: number): EdgeFacts | undefined {
  if (!isRecord(element)) return undefined;
  const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
  const partition = partitionSchema.safeParse(element.partition);
  return {
    index,
    id: text(element.id),
    from: text(element.from),
    to: text(element.to),
    fromPort: element.fromPort === undefined ? 'out' : text(element.fromPort),
    partition: partition.success ? partition.data : undefined,
    hasKey: element.key !== undefined,
    feedback:
      element.feedback === undefined
        ? false
        : typeof element.feedback === 'boolean'
          ? element.feedback
          : undefined,
  };
}

const operatorLabel = (op: OperatorFacts): string => `operator ${quote(op.id)}`;
const edgeLabel = (edge: EdgeFacts): string =>
  edge.id === undefined ? `edges[${edge.index}]` : `edge ${quote(edge.id)}`;
function edgeList(list: readonly EdgeFacts[]): string {
  if (list.length === 1 || list.some((edge) => edge.id === undefined)) return list.map(edgeLabel).join(', ');
  return `edges ${list.map((edge) => quote(edge.id!)).join(', ')}`;
}
const edgeIds = (edge: EdgeFacts): string[] => (edge.id === undefined ? [] : [edge.id]);

function maxParallelismOf(root: Record<string, unknown>): number | undefined {
  const { settings } = root;
  if (settings === undefined) return settingsSchema.parse({}).maxParallelism;
  if (!isRecord(settings)) return undefined;
  const parsed = settingsSchema.shape.maxParallelism.safeParse(settings.maxParallelism);
  return parsed.success ? parsed.data : undefined;
}

function graphFindings(root: Record<string, unknown>): Finding[] {
  const findings: Finding[] = [];
  const operatorsKnown = Array.isArray(root.operators);
  const operators = (operatorsKnown ? (root.operators as unknown[]) : [])
    .map(operatorFacts)
    .filter((op): op is OperatorFacts => op !== undefined);
  const edges = (Array.isArray(root.edges) ? (root.edges as unknown[]) : [])
    .map(edgeFacts)
    .filter((edge): edge is EdgeFacts => edge !== undefined);
  const maxParallelism = maxParallelismOf(root);

  const byId = new Map<string, OperatorFacts>();
  for (const op of operators) {
    const first = byId.get(op.id);
    if (first) {
      findings.push({
        code: 'duplicate-operator-id',
        message: `operator id ${quote(op.id)} is used more than once (operators[${first.index}] and operators[${op.index}])`,
        path: ['operators', op.index, 'id'],
        ids: [op.id],
      });
    } else byId.set(op.id, op);
  }
  const edgeById = new Map<string, EdgeFacts>();
  for (const edge of edges) {
    if (edge.id === undefined) continue;
    const first = edgeById.get(edge.id);
    if (first) {
      findings.push({
        code: 'duplicate-edge-id',
        message: `edge id ${quote(edge.id)} is used more than once (edges[${first.index}] and edges[${edge.index}])`,
        path: ['edges', edge.index, 'id'],
        ids: [edge.id],
      });
    } else edgeById.set(edge.id, edge);
  }

  for (const op of operators) {
    const at = (...rest: Segment[]): Segment[] => ['operators', op.index, ...rest];
    if (op.kind !== undefined && !KINDS[op.kind].available) {
      findings.push({
        code: 'not-yet-available',
        message: `${operatorLabel(op)}: kind ${quote(op.kind)} is not available yet in this version of Pipewright`,
        path: at('kind'),
        ids: [op.id],
      });
    }
    if (op.parallelism !== undefined && maxParallelism !== undefined && op.parallelism > maxParallelism) {
      findings.push({
        code: 'parallelism-above-max',
        message: `${operatorLabel(op)}: parallelism ${op.parallelism} is above settings.maxParallelism (${maxParallelism})`,
        path: at('parallelism'),
        ids: [op.id],
      });
    }
    if (op.kind !== undefined && op.code !== undefined) {
      const facts = readCode(op.code);
      for (const fault of facts.faults) findings.push(codeFinding(op, fault));
      // Code that does not parse defines nothing anyone can know of: the syntax error says enough.
      for (const name of facts.tree === undefined ? [] : requiredFunctions(op.kind)) {
        if (!facts.tree!.defines.has(name)) {
          findings.push({
            code: 'missing-function',
            message: `${operatorLabel(op)}: params.code must define a function named ${name}`,
            path: at('params', 'code'),
            ids: [op.id],
          });
        }
      }
    }
  }

  const portsCache = new Map<OperatorFacts, EmittedPorts | undefined>();
  const portsOf = (op: OperatorFacts & { kind: OperatorKind }): EmittedPorts | undefined => {
    if (!portsCache.has(op)) {
      const info = KINDS[op.kind];
      const fixed = new Set(['out', ...info.fixedPorts]);
      if (info.functionName === undefined) portsCache.set(op, { ports: fixed, dynamic: false });
      else {
        const scanned = op.code === undefined ? undefined : readCode(op.code).tree?.ports;
        portsCache.set(
          op,
          scanned && { ports: new Set([...fixed, ...scanned.ports]), dynamic: scanned.dynamic },
        );
      }
    }
    return portsCache.get(op);
  };

  for (const edge of edges) {
    const at = (...rest: Segment[]): Segment[] => ['edges', edge.index, ...rest];
    const label = edgeLabel(edge);
    const from = edge.from === undefined ? undefined : byId.get(edge.from);
    const to = edge.to === undefined ? undefined : byId.get(edge.to);
    if (operatorsKnown && edge.from !== undefined && !from) {
      findings.push({
        code: 'unknown-operator',
        message: `${label} comes from unknown operator ${quote(edge.from)}${didYouMean(edge.from, [...byId.keys()])}`,
        path: at('from'),
        ids: [...edgeIds(edge), edge.from],
      });
    }
    if (from?.kind !== undefined) {
      const kind = from.kind;
      if (isSink(kind)) {
        findings.push({
          code: 'edge-from-sink',
          message: `${label} comes from ${operatorLabel(from)}, a sink: a sink has no outputs`,
          path: at('from'),
          ids: [...edgeIds(edge), from.id],
        });
      } else if (edge.fromPort !== undefined) {
        const known = portsOf({ ...from, kind });
        if (known && !known.dynamic && !known.ports.has(edge.fromPort)) {
          const list = [...known.ports].map(quote).join(', ');
          const hint = closest(edge.fromPort, known.ports);
          const which =
            KINDS[kind].functionName === undefined
              ? `it has no such output (its outputs: ${list})`
              : `its code never emits to it (it emits to ${list})`;
          findings.push({
            code: 'unknown-port',
            message:
              `${label} comes from port ${quote(edge.fromPort)} of ${operatorLabel(from)}, but ${which}` +
              (hint === undefined ? '' : `; did you mean ${quote(hint)}?`),
            path: at('fromPort'),
            ids: [...edgeIds(edge), from.id],
          });
        }
      }
    }
    if (operatorsKnown && edge.to !== undefined && !to) {
      findings.push({
        code: 'unknown-operator',
        message: `${label} goes to unknown operator ${quote(edge.to)}${didYouMean(edge.to, [...byId.keys()])}`,
        path: at('to'),
        ids: [...edgeIds(edge), edge.to],
      });
    }
    if (to?.kind !== undefined && isSource(to.kind)) {
      findings.push({
        code: 'edge-to-source',
        message: `${label} goes to ${operatorLabel(to)}, a source: a source has no inputs`,
        path: at('to'),
        ids: [...edgeIds(edge), to.id],
      });
    }

    if (edge.partition === 'hash' && !edge.hasKey) {
      findings.push({
        code: 'missing-key',
        message: `${label} is hash-partitioned but has no key (give "key" a field path such as "owner")`,
        path: at('key'),
        ids: edgeIds(edge),
      });
    }
    if (edge.partition !== undefined && edge.partition !== 'hash' && edge.hasKey) {
      findings.push({
        code: 'unexpected-key',
        message: `${label} has a key but is ${edge.partition}-partitioned; only hash edges take a key`,
        path: at('key'),
        ids: edgeIds(edge),
      });
    }
    if (
      edge.partition === 'forward' &&
      from?.parallelism !== undefined &&
      to?.parallelism !== undefined &&
      from.parallelism !== to.parallelism
    ) {
      findings.push({
        code: 'forward-parallelism',
        message:
          `${label} is forward-partitioned but ${operatorLabel(from)} has parallelism ${from.parallelism} and ` +
          `${operatorLabel(to)} has parallelism ${to.parallelism}; forward needs equal parallelisms (use rebalance or hash)`,
        path: at('partition'),
        ids: [...edgeIds(edge), from.id, to.id],
      });
    }
    if (edge.feedback === true && edge.partition !== undefined && edge.partition !== 'hash') {
      findings.push({
        code: 'feedback-not-hash',
        message: `${label} is a feedback edge, so it must be hash-partitioned (it is ${edge.partition})`,
        path: at('partition'),
        ids: edgeIds(edge),
      });
    }
    // A non-hash feedback edge is already reported above; saying it twice would not help.
    if (
      to?.kind !== undefined &&
      edge.partition !== undefined &&
      edge.partition !== 'hash' &&
      edge.feedback === false
    ) {
      const why = KINDS[to.kind].alwaysKeyed
        ? `is a ${to.kind}, a keyed operator`
        : to.kind === 'process' && to.code !== undefined && readCode(to.code).tree?.usesKeyedState
          ? 'uses keyed state or timers'
          : undefined;
      if (why !== undefined) {
        findings.push({
          code: 'keyed-input',
          message: `${operatorLabel(to)} ${why}, so its input ${label} must be hash-partitioned (it is ${edge.partition})`,
          path: at('partition'),
          ids: [...edgeIds(edge), to.id],
        });
      }
    }
  }

  // Edges whose feedback flag is malformed stay out: whether they may close a cycle is unknown.
  const forwardEdges = edges.filter(
    (edge): edge is EdgeFacts & { from: string; to: string } =>
      edge.feedback === false && edge.from !== undefined && edge.to !== undefined,
  );
  for (const cycle of findCycles([...byId.keys()], forwardEdges)) {
    const first = Math.min(...cycle.edges.map((edge) => edge.index));
    findings.push({
      code: 'cycle',
      message:
        `cycle without a feedback edge: ${describeCycle(cycle)} (${edgeList(cycle.edges)}); ` +
        'every cycle must pass through an edge marked "feedback": true',
      path: ['edges', first],
      ids: [...cycle.nodes, ...cycle.edges.flatMap(edgeIds)],
    });
  }
  return findings;
}

// ---------------------------------------------------------------------------------------------
// Entry points

function formatFinding(root: unknown): Finding | undefined {
  if (!isRecord(root)) {
    return {
      code: 'format',
      message: `not a Pipewright job file: expected a JSON object with "format": ${quote(JOB_FORMAT)}, found ${describeValue(root)}`,
      path: [],
      ids: [],
    };
  }
  const { format } = root;
  if (format === JOB_FORMAT) return undefined;
  const at = ['format'];
  if (format === undefined) {
    return {
      code: 'format',
      message: `not a Pipewright job file: "format" is missing (a job file says "format": ${quote(JOB_FORMAT)})`,
      path: at,
      ids: [],
    };
  }
  const [family] = JOB_FORMAT.split('/');
  if (typeof format === 'string' && format.startsWith(`${family}/`)) {
    return {
      code: 'format',
      message: `format ${format} is not supported by this version (it reads ${JOB_FORMAT})`,
      path: at,
      ids: [],
    };
  }
  return {
    code: 'format',
    message: `not a Pipewright job file: format is ${describeValue(format)} (expected ${quote(JOB_FORMAT)})`,
    path: at,
    ids: [],
  };
}

/**
 * Validates a parsed job file. Every problem is reported at once, sorted by where it is in the
 * document; `job` (with defaults filled in) is set exactly when there are none. A file of
 * another format gets only the format problem: its fields may mean something else.
 */
export function validateJob(input: unknown): { job?: Job; problems: Problem[] } {
  const wrongFormat = formatFinding(input);
  if (wrongFormat) return { problems: toProblems(input, [wrongFormat]) };
  const root = input as Record<string, unknown>;
  const parsed = jobSchema.safeParse(root);
  const findings = graphFindings(root);
  // The discriminated union guarantees each operator's params match its kind, as Job spells out.
  if (parsed.success && findings.length === 0) return { job: parsed.data as Job, problems: [] };
  if (!parsed.success)
    findings.unshift(...parsed.error.issues.flatMap((issue) => translateIssue(root, issue)));
  return { problems: toProblems(root, findings) };
}

/** Parses and validates a job file's text. */
export function validateJobText(text: string): { job?: Job; problems: Problem[] } {
  const { value, problems } = parseJobText(text);
  if (problems.length > 0) return { problems };
  return validateJob(value);
}
