// The form fields a zod object schema reads as: what the designer's inspector draws to edit a
// kind's params (and the job's settings and an edge's fields). Derived from the schema, so a
// param added to a kind shows up in the designer without touching the renderer. Pure.
import { type core, z } from 'zod';

/** A JSON value, as a field's default is one. */
export type FieldJson = null | boolean | number | string | FieldJson[] | { [key: string]: FieldJson };

interface FieldBase {
  /** The key in the job file, e.g. "maxOutOfOrdernessMs". */
  readonly name: string;
  /** The key in words, e.g. "Max out of orderness (ms)". */
  readonly label: string;
  /** False when the field may be left out (it is optional or has a default). */
  readonly required: boolean;
  readonly description?: string;
  /** What the engine uses when the field is absent. */
  readonly defaultValue?: FieldJson;
}

export interface NumberBounds {
  readonly integer: boolean;
  readonly min?: number;
  readonly minExclusive?: boolean;
  readonly max?: number;
  readonly maxExclusive?: boolean;
}

export type ParamField = FieldBase &
  (
    | { readonly type: 'code' }
    | { readonly type: 'string'; readonly minLength?: number }
    | ({ readonly type: 'number' } & NumberBounds)
    | { readonly type: 'enum'; readonly options: readonly string[] }
    | { readonly type: 'boolean' }
    | { readonly type: 'stringList'; readonly minItems?: number }
    /**
     * One of some words or a value of another shape the schema also allows (Kafka's
     * startingOffsets: "earliest", "latest", "committed" or { "timestamp": ms }).
     */
    | { readonly type: 'choice'; readonly options: readonly string[] }
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
export function describeField(name: string, schema: AnySchema): ParamField {
  let inner = schema;
  let required = true;
  let description = schema.description;
  let defaultValue: FieldJson | undefined;
  for (;;) {
    if (inner instanceof z.ZodOptional) {
      required = false;
      inner = inner.unwrap() as AnySchema;
    } else if (inner instanceof z.ZodDefault) {
      required = false;
      defaultValue = inner.def.defaultValue as FieldJson;
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
  if (inner instanceof z.ZodUnion) {
    const options = unionWords(inner);
    if (options.length > 0) return { ...base, type: 'choice', options };
  }
  return { ...base, type: 'other' };
}

/** The words a union allows as enum or literal members, in its order. */
function unionWords(union: z.ZodUnion): string[] {
  return (union.options as readonly AnySchema[]).flatMap((member) => {
    if (member instanceof z.ZodEnum) return member.options.map(String);
    if (member instanceof z.ZodLiteral)
      return [...member.values].filter((value): value is string => typeof value === 'string');
    return [];
  });
}

/** Every field of an object schema, in the schema's order (the order the file is saved in). */
export function describeFields(schema: z.ZodObject): ParamField[] {
  return Object.entries(schema.shape).map(([name, field]) => describeField(name, field as AnySchema));
}
