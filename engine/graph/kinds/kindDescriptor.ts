// What an operator kind is, independent of how it runs: a pure descriptor that the validator,
// the JSON Schema export and the designer read, and that the Node side pairs with a factory
// (engine/operators). A new kind is one descriptor plus one factory; nothing here may use a
// Node API, since the designer loads it in the browser.
import type { z } from 'zod';
import type { FieldCondition } from './fieldConditions.js';
import type { ParamField } from './paramFields.js';

/** Where a kind sits in a job: a source has no inputs, a sink no outputs. */
export type KindRole = 'source' | 'transform' | 'sink';

/** The palette group the designer lists a kind under: keyed transforms have their own. */
export type KindGroup = 'source' | 'transform' | 'keyed' | 'sink';

/** Whether a kind's inputs must be hash-partitioned (`keyed-input` problems). */
export type KeyedInput =
  /** Always: the kind keeps keyed state by the input's key (window). */
  | 'always'
  /** Only when its code reaches for keyed state or timers, as its syntax tree says (process). */
  | 'when-code-uses-state'
  /**
   * Never demanded, though the kind keeps keyed state: it sends each record to the subtasks
   * owning the keys the record names itself, so any partitioning of its inputs will do
   * (transaction).
   */
  | 'routes-itself'
  | 'never';

export interface KindUserCode {
  /** The function the runtime calls, e.g. "map". */
  readonly functionName: string;
  /**
   * Every function `params.code` must define, in the order missing ones are reported;
   * `[functionName]` when absent.
   */
  readonly requiredFunctions?: readonly string[];
  /** The signature shown as a hint in code fields and error messages. */
  readonly signature: string;
}

export interface KindPorts {
  /** False for a source: an edge into it is a problem. */
  readonly inputs: boolean;
  /**
   * The output ports the kind itself defines, "out" first; empty for a sink. A kind that runs
   * user code also has every port its code emits to.
   */
  readonly outputs: readonly string[];
}

export interface KindDesigner {
  /** The kind's name in words, e.g. "JSON Lines file". */
  readonly label: string;
  readonly group: KindGroup;
  /** One or two sentences for people: what the kind does. */
  readonly description: string;
  /** The start of a new operator's id, e.g. "source" for "source-1". */
  readonly idBase: string;
  /** The params a freshly dropped operator starts with: they validate. */
  readonly defaultParams: Readonly<Record<string, unknown>>;
  /** The icon: SVG path data in a 16×16 box, drawn with a 1.5 stroke. */
  readonly icon: string;
  /**
   * The inspector's fields for the params, in order; derived from `params` (see paramFields.ts)
   * when absent, which is what a kind needs unless its schema reads badly as a form.
   */
  readonly fields?: readonly ParamField[];
  /**
   * Params that mean something only beside some values of another (a window's `slideMs` only
   * for sliding windows), by name: the inspector leaves them out while they do not apply.
   */
  readonly fieldConditions?: Readonly<Record<string, FieldCondition>>;
  /**
   * A short line the canvas card shows under the operator's id, read from its params (a
   * transaction's tables); undefined when there is nothing to say. The params are unchecked: a
   * file being edited may hold anything there.
   */
  readonly cardLine?: (params: Readonly<Record<string, unknown>>) => string | undefined;
  /**
   * A connector's params that say where its server is (a URL, brokers, a connection string): the
   * inspector offers "Test connection" for the kind, and warns of a password written into them.
   */
  readonly connectionParams?: readonly string[];
}

/** A problem a kind finds in its params taken together (see KindDescriptor.checkParams). */
export interface ParamProblem {
  /** "required": a param that others make necessary; "invalid-value": one that others rule out. */
  readonly code: 'required' | 'invalid-value';
  /** Where, inside the params: ["topic"], ["auth", "urls", 1]. */
  readonly path: readonly (string | number)[];
  /** What is wrong, for people: the validator puts `operator "<id>": ` before it. */
  readonly message: string;
}

export interface KindDescriptor<K extends string = string, P extends z.ZodObject = z.ZodObject> {
  /** The kind as a job file spells it, e.g. "source.jsonl". */
  readonly kind: K;
  readonly role: KindRole;
  /** The params schema: a strict zod object (unknown fields are problems). */
  readonly params: P;
  readonly ports: KindPorts;
  /** Present when the kind runs user code from `params.code`. */
  readonly userCode?: KindUserCode;
  readonly keyedInput: KeyedInput;
  /**
   * The params that name a file, and whether the kind reads or writes it. A job that is not
   * trusted may name only files inside its own folder (see engine/graph/jobReach.ts): a kind
   * that opens a file through a param not listed here escapes that rule.
   */
  readonly fileParams?: Readonly<Record<string, 'read' | 'write'>>;
  /** False for a kind the contract names but this engine version cannot run yet. */
  readonly available: boolean;
  readonly designer: KindDesigner;
  /**
   * The checks across the params that a field-by-field schema cannot say (exactly one of three
   * params; one param needed when another has some value), so that the kind's module holds all
   * of the kind. The params are unchecked, as the file has them: a param the schema refuses
   * should be left to the schema's problem, and the checks read only values of the right shape.
   * Every kind's params are also checked for malformed "${env:...}" references, without this.
   */
  readonly checkParams?: (params: Readonly<Record<string, unknown>>) => readonly ParamProblem[];
}

/** Declares a kind, keeping its name and params schema as types (for `ParamsOf`). */
export function defineKind<const K extends string, P extends z.ZodObject>(
  descriptor: KindDescriptor<K, P>,
): KindDescriptor<K, P> {
  return descriptor;
}

/** The functions a kind's code must define (none for a kind without user code). */
export function requiredFunctions(descriptor: KindDescriptor): readonly string[] {
  const code = descriptor.userCode;
  if (code === undefined) return [];
  return code.requiredFunctions ?? [code.functionName];
}

/**
 * An operator's params as its kind's descriptor types them. A validated job types an operator
 * of a kind registered at run time as a built-in one, though its params were checked against
 * this descriptor's schema: this is the one place that says so.
 */
export function paramsOf<P extends z.ZodObject>(
  descriptor: KindDescriptor<string, P>,
  operator: { readonly kind: string; readonly params: unknown },
): z.output<P> {
  if (operator.kind !== descriptor.kind)
    throw new Error(`an operator of kind "${operator.kind}" read as a "${descriptor.kind}"`);
  return operator.params as z.output<P>;
}
