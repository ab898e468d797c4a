// Schema issues in words: zod's issues become problems a person reads, naming the operator or
// edge, the field, what was expected and what was found, without zod's jargon.
import type { core } from 'zod';
import { z } from 'zod';
import { findKind, isKnownKind, kindNames } from '../kinds/kindRegistry.js';
import { edgeSchema, jobSchema, operatorSchema, settingsSchema } from '../schema.js';
import type { Finding } from './finding.js';
import { fieldName, type Segment, valueAt } from './jsonPath.js';
import type { ProblemCode } from './problemCodes.js';
import { closest, didYouMean, guessKind } from './suggestions.js';
import { describeValue, expectedWords, quote } from './valueWords.js';

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
    if (parent.length === 3 && third === 'params' && isKnownKind(kind))
      return Object.keys(findKind(kind)!.params.shape);
  }
  return undefined;
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

/** One zod issue (at `base` in the document) as the findings it stands for. */
export function translateIssue(
  root: unknown,
  issue: core.$ZodIssue,
  base: readonly Segment[] = [],
): Finding[] {
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
        const known = `known kinds: ${kindNames().join(', ')}`;
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
