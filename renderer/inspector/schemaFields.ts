// The inspector's forms are generated from the engine's zod schemas, so a parameter added to a
// kind's descriptor (engine/graph/kinds) shows up in the designer without touching the renderer.
// The fields themselves are the engine's (engine/graph/kinds/paramFields.ts); this file converts
// between a field's JSON value and the text of its input.
import type { ParamField as FieldDescriptor, NumberBounds } from '../../engine/graph/index.js';
import type { JsonValue } from '../document/jobDraft';

export {
  describeField,
  describeFields,
  fieldLabel,
  type NumberBounds,
  type ParamField as FieldDescriptor,
} from '../../engine/graph/index.js';

// ---------------------------------------------------------------------------------------------
// Text <-> value

export type Parsed =
  | { readonly ok: true; readonly value: JsonValue | undefined }
  | { readonly ok: false; readonly message: string };

/** The words for a number field's range, e.g. "a whole number, at least 0". */
export function numberWords(bounds: NumberBounds): string {
  const parts = [bounds.integer ? 'a whole number' : 'a number'];
  if (bounds.min !== undefined) parts.push(`${bounds.minExclusive ? 'more than' : 'at least'} ${bounds.min}`);
  if (bounds.max !== undefined && bounds.max < Number.MAX_SAFE_INTEGER)
    parts.push(`${bounds.maxExclusive ? 'less than' : 'at most'} ${bounds.max}`);
  return parts.join(', ');
}

/** Splits "a, b ,c" into ["a", "b", "c"]; empty items are dropped. */
export function splitList(text: string): string[] {
  return text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

/**
 * The value an input's text stands for. Empty text means "absent" (the parameter is removed):
 * the engine's validator then says whether the field may be absent, in the same words as for
 * a job file. Only text that is no value at all (a number field holding "12a") is refused, so
 * the draft never holds NaN.
 */
export function parseFieldText(field: FieldDescriptor, text: string): Parsed {
  const trimmed = text.trim();
  switch (field.type) {
    case 'number': {
      if (trimmed === '') return { ok: true, value: undefined };
      const value = Number(trimmed);
      if (!Number.isFinite(value))
        return { ok: false, message: `${JSON.stringify(trimmed)} is not a number` };
      return { ok: true, value };
    }
    case 'stringList': {
      const items = splitList(text);
      return { ok: true, value: items.length === 0 && !field.required ? undefined : items };
    }
    case 'choice': {
      // A word is the word (no quotes to type); anything else is the JSON it spells.
      if (trimmed === '') return { ok: true, value: undefined };
      if (/^[\w.-]+$/.test(trimmed) && !/^-?\d/.test(trimmed)) return { ok: true, value: trimmed };
      try {
        return { ok: true, value: JSON.parse(trimmed) as JsonValue };
      } catch {
        return { ok: false, message: `neither one of ${field.options.join(', ')} nor valid JSON` };
      }
    }
    case 'other': {
      if (trimmed === '') return { ok: true, value: undefined };
      try {
        return { ok: true, value: JSON.parse(trimmed) as JsonValue };
      } catch {
        return { ok: false, message: 'not valid JSON' };
      }
    }
    default:
      // A required text field keeps its empty string so that the validator can say "must not be empty".
      return { ok: true, value: text === '' && !field.required ? undefined : text };
  }
}

/** The text an input shows for a value; a value of the wrong type (a foreign file) is shown as written. */
export function formatFieldValue(field: FieldDescriptor, value: JsonValue | undefined): string {
  if (value === undefined) return '';
  if (field.type === 'stringList' && Array.isArray(value) && value.every((v) => typeof v === 'string'))
    return value.join(', ');
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/** Whether two JSON values are the same value. */
export function sameJson(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}
