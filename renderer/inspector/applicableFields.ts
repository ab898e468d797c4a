// Which of a kind's fields the inspector shows for the params an operator has now, and what a
// change to one param does to the others: a field that does not apply (a window's `slideMs`
// for a tumbling window) is left out of the form, so the form asks only what the chosen shape
// needs. The descriptor says which fields depend on which (KindDesigner.fieldConditions).
import {
  conditionWords,
  type FieldCondition,
  fieldApplies,
  fieldLabel,
  type KindDescriptor,
  type ParamField,
} from '../../engine/graph/index.js';
import type { JsonValue } from '../document/jobDraft';

export interface FormField {
  readonly field: ParamField;
  /** Said beside a field kept only because it holds a value it does not use (a foreign file). */
  readonly note?: string;
}

function conditionOf(descriptor: KindDescriptor, name: string): FieldCondition | undefined {
  return descriptor.designer.fieldConditions?.[name];
}

/** "Used only when Type is sliding." / "Used only when Timestamp field is set." */
export function unusedNote(condition: FieldCondition): string {
  const what = fieldLabel(condition.field);
  return condition.oneOf === undefined
    ? `Used only when ${what} is set; clear it or set ${what}.`
    : `Used only when ${what} is ${conditionWords(condition)}; clear it or change ${what}.`;
}

/**
 * The fields to draw, in order: those that apply, and those that do not but hold a value (so
 * that it can be seen and cleared, with a note saying why it does nothing).
 */
export function formFields(
  descriptor: KindDescriptor,
  fields: readonly ParamField[],
  params: Readonly<Record<string, unknown>>,
): FormField[] {
  const shown: FormField[] = [];
  for (const field of fields) {
    const condition = conditionOf(descriptor, field.name);
    if (fieldApplies(condition, params)) {
      // Optional in the schema, required where it applies (an upsert's key columns).
      shown.push({ field: condition?.required === true ? { ...field, required: true } : field });
    } else if (params[field.name] !== undefined) shown.push({ field, note: unusedNote(condition!) });
  }
  return shown;
}

/**
 * The params patch that sets `name` to `value`: with it, every field that applied before and
 * stops applying is removed, so switching a window from sliding to session leaves no `slideMs`
 * behind (one edit: undo brings both back).
 */
export function paramPatch(
  descriptor: KindDescriptor,
  params: Readonly<Record<string, unknown>>,
  name: string,
  value: JsonValue | undefined,
): Record<string, JsonValue | undefined> {
  const patch: Record<string, JsonValue | undefined> = { [name]: value };
  const next: Record<string, unknown> = { ...params, [name]: value };
  for (const [field, condition] of Object.entries(descriptor.designer.fieldConditions ?? {})) {
    if (condition.field !== name || params[field] === undefined) continue;
    if (fieldApplies(condition, params) && !fieldApplies(condition, next)) patch[field] = undefined;
  }
  return patch;
}
