// The inspector's forms are generated from the engine's zod schemas, so a parameter added to a
// kind in engine/graph/schema.ts shows up in the designer without touching the renderer. This
// file turns a zod object schema into plain field descriptors and converts between a field's
// JSON value and the text of its input.
import { type core, z } from 'zod';
import type { JsonValue } from '../document/jobDraft';

interface FieldBase {
  /** The key in the job file, e.g. "maxOutOfOrdernessMs". */
  readonly name: string;
  /** The key in words, e.g. "Max out of orderness (ms)". */
  readonly label: string;
  /** False when the field may be left out (it is optional or has a default). */
  readonly required: boolean;
  readonly description?: string;
  /** What the engine uses when the field is absent. */
  readonly defaultValue?: JsonValue;
}

export interface NumberBounds {
  readonly integer: boolean;
  readonly min?: number;
  readonly minExclusive?: boolean;
  readonly max?: number;
  readonly maxExclusive?: boolean;
}

export type FieldDescriptor = FieldBase &
  (
    | { readonly type: 'code' }
    | { readonly type: 'string'; readonly minLength?: number }
    | ({ readonly type: 'number' } & NumberBounds)
    | { readonly type: 'enum'; readonly options: readonly string[] }
    | { readonly type: 'boolean' }
    | { readonly type: 'stringList'; readonly minItems?: number }
    /** A shape no input here can edit faithfully; shown as JSON, edited in the file. */
    | { readonly type: 'other' }
  );

/** "maxOutOfOrdernessMs" -> "Max out of orderness (ms)". */
export function fieldLabel(name: string): string {
  const unit = /Ms$/.test(name) ? ' (ms)' : '';
  const words = (unit ? name.slice(0, -2) : name)
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .trim();
  return `${words.charAt(0).toUpperCase()}${words.slice(1)}${unit}`;
}

type AnySchema = z.ZodType;

// A check's definition, whatever the check: zod keeps the kind in `check` and the rest beside it.
function checkDefs(schema: { def: { checks?: readonly core.$ZodCheck<never>[] } }): core.$ZodCheckDef[] {
  return (schema.def.checks ?? []).map((check) => check._zod.def);
}

function numberBounds(schema: z.ZodNumber): NumberBounds {
  let bounds: { -readonly [K in keyof NumberBounds]: NumberBounds[K] } = { integer: schema.isInt };
  for (const def of checkDefs(schema)) {
    if (def.check === 'greater_than') {
      const { value, inclusive } = def as core.$ZodCheckGreaterThanDef;
      if (bounds.min === undefined || Number(value) >= bounds.min)
        bounds = { ...bounds, min: Number(value), minExclusive: !inclusive };
    } else if (def.check === 'less_than') {
      const { value, inclusive } = def as core.$ZodCheckLessThanDef;
      if (bounds.max === undefined || Number(value) <= bounds.max)
        bounds = { ...bounds, max: Number(value), maxExclusive: !inclusive };
    }
  }
  // An exclusive bound on a whole number is the next whole number, inclusive: say "at least 1", not "more than 0".
  if (bounds.integer && bounds.minExclusive && bounds.min !== undefined)
    bounds = { ...bounds, min: Math.floor(bounds.min) + 1, minExclusive: false };
  if (bounds.integer && bounds.maxExclusive && bounds.max !== undefined)
    bounds = { ...bounds, max: Math.ceil(bounds.max) - 1, maxExclusive: false };
  return bounds;
}

function minLength(schema: z.ZodString | z.ZodArray<AnySchema>): number | undefined {
  const mins = checkDefs(schema)
    .filter((def) => def.check === 'min_length')
    .map((def) => (def as core.$ZodCheckMinLengthDef).minimum);
  return mins.length === 0 ? undefined : Math.max(...mins);
}

/** One field of an object schema, its optional and default wrappers looked through. */
export function describeField(name: string, schema: AnySchema): FieldDescriptor {
  let inner = schema;
  let required = true;
  let description = schema.description;
  let defaultValue: JsonValue | undefined;
  for (;;) {
    if (inner instanceof z.ZodOptional) {
      required = false;
      inner = inner.unwrap() as AnySchema;
    } else if (inner instanceof z.ZodDefault) {
      required = false;
      defaultValue = inner.def.defaultValue as JsonValue;
      inner = inner.unwrap() as AnySchema;
    } else break;
    // A description given to the wrapper wins over the one of the type it wraps.
    description ??= inner.description;
  }
  const base: FieldBase = {
    name,
    label: fieldLabel(name),
    required,
    ...(description === undefined ? {} : { description }),
    ...(defaultValue === undefined ? {} : { defaultValue }),
  };
  if (inner instanceof z.ZodString) {
    if (name === 'code') return { ...base, type: 'code' };
    const min = minLength(inner);
    return { ...base, type: 'string', ...(min === undefined ? {} : { minLength: min }) };
  }
  if (inner instanceof z.ZodNumber) return { ...base, type: 'number', ...numberBounds(inner) };
  if (inner instanceof z.ZodEnum) return { ...base, type: 'enum', options: inner.options.map(String) };
  if (inner instanceof z.ZodBoolean) return { ...base, type: 'boolean' };
  if (inner instanceof z.ZodArray && inner.element instanceof z.ZodString) {
    const min = minLength(inner as z.ZodArray<AnySchema>);
    return { ...base, type: 'stringList', ...(min === undefined ? {} : { minItems: min }) };
  }
  return { ...base, type: 'other' };
}

/** Every field of an object schema, in the schema's order (the order the file is saved in). */
export function describeFields(schema: z.ZodObject): FieldDescriptor[] {
  return Object.entries(schema.shape).map(([name, field]) => describeField(name, field as AnySchema));
}

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
