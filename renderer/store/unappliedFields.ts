// Inputs of the inspector holding text that is no value ("four" in Parallelism): the input says
// so in red, but the job keeps its old value, and a save writes that old value. So each such
// input is also a problem in the Problems panel, and a save says what it left out.
import type { Problem } from '../../engine/graph/index.js';

/** The element whose form holds an input; the job's own form has no id. */
export type FieldOwner =
  | { readonly kind: 'operator' | 'edge'; readonly id: string }
  | { readonly kind: 'job' };

export interface UnappliedField {
  /** Which input: one entry per input, however often its text changes. */
  readonly key: string;
  readonly owner: FieldOwner;
  readonly label: string;
  /** JSON path of the value the input edits, as the validator writes paths. */
  readonly path: string;
  readonly text: string;
  /** Why the text is no value. */
  readonly reason: string;
  /** The value the job keeps, as the input writes it ('' when it has none). */
  readonly kept: string;
}

/** "Parallelism of operator "p1"", "Max parallelism of the job". */
function fieldName(field: UnappliedField): string {
  const { owner } = field;
  return owner.kind === 'job'
    ? `${field.label} of the job`
    : `${field.label} of ${owner.kind} ${JSON.stringify(owner.id)}`;
}

function sentence(text: string): string {
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

function keptText(field: UnappliedField): string {
  return field.kept === '' ? 'no value' : field.kept;
}

/** The input as a problem of the Problems panel, naming the element and the field. */
export function unappliedProblem(field: UnappliedField): Problem {
  const subject = field.owner.kind === 'job' ? '' : `${field.owner.kind} ${JSON.stringify(field.owner.id)}: `;
  return {
    code: 'field-not-applied',
    message: `${subject}${field.label} ${JSON.stringify(field.text)} is not applied: ${sentence(field.reason)} The job keeps ${keptText(field)}.`,
    path: field.path,
    ids: field.owner.kind === 'job' ? [] : [field.owner.id],
  };
}

/** What a save says when inputs held changes it could not write; undefined when none did. */
export function savedWithoutNotice(fields: readonly UnappliedField[]): string | undefined {
  const [first] = fields;
  if (first === undefined) return undefined;
  if (fields.length === 1) {
    return `Saved without your change to ${fieldName(first)}: ${sentence(first.reason)} The file keeps ${keptText(first)}.`;
  }
  const names = fields.map(fieldName);
  return `Saved without your changes to ${names.slice(0, -1).join(', ')} and ${names.at(-1)}: they are no values (see the Problems panel), so the file keeps the old ones.`;
}
