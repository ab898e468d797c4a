// The kinds a job may use: the built-ins, and any kind registered at run time (a connector
// package, or a test). The validator, the job schema, the JSON Schema export and the designer
// all look kinds up here, so a registered kind is accepted everywhere at once.
import { BUILTIN_KINDS } from './builtinKinds.js';
import type { KindDescriptor } from './kindDescriptor.js';
import { describeFields, type ParamField } from './paramFields.js';

const registered = new Map<string, KindDescriptor>(BUILTIN_KINDS.map((d) => [d.kind, d]));
let version = 0;

/**
 * Adds a kind. Its name must be new: a built-in cannot be replaced, so a job file means the
 * same wherever it is read. Returns a function that removes the kind again (for tests).
 */
export function registerKind(descriptor: KindDescriptor): () => void {
  if (registered.has(descriptor.kind)) throw new Error(`kind "${descriptor.kind}" is already registered`);
  registered.set(descriptor.kind, descriptor);
  version++;
  return () => {
    if (registered.get(descriptor.kind) !== descriptor) return;
    registered.delete(descriptor.kind);
    version++;
  };
}

/** The kind of that name, if one is registered. */
export function findKind(kind: string): KindDescriptor | undefined {
  return registered.get(kind);
}

/** The kind of that name; throws for a kind never registered (a validated job has none). */
export function getKind(kind: string): KindDescriptor {
  const found = registered.get(kind);
  if (found === undefined) throw new Error(`unknown operator kind "${kind}"`);
  return found;
}

export function isKnownKind(kind: unknown): kind is string {
  return typeof kind === 'string' && registered.has(kind);
}

// The validator asks for the list on every job: it is rebuilt only when the kinds change.
let listed: { version: number; kinds: readonly KindDescriptor[]; names: readonly string[] } | undefined;
function listing(): NonNullable<typeof listed> {
  if (listed?.version !== version) {
    const kinds = Object.freeze([...registered.values()]);
    listed = { version, kinds, names: Object.freeze(kinds.map((d) => d.kind)) };
  }
  return listed;
}

/** Every kind, built-ins first in the contract's order, then in the order registered. */
export function listKinds(): readonly KindDescriptor[] {
  return listing().kinds;
}

export function kindNames(): readonly string[] {
  return listing().names;
}

/** Changes whenever a kind is added or removed: what is derived from the kinds may be cached by it. */
export function kindsVersion(): number {
  return version;
}

const fieldsByKind = new WeakMap<KindDescriptor, readonly ParamField[]>();

/** The inspector's fields for a kind's params: the descriptor's own, or derived from its schema. */
export function kindFields(descriptor: KindDescriptor): readonly ParamField[] {
  let fields = descriptor.designer.fields ?? fieldsByKind.get(descriptor);
  if (fields === undefined) {
    fields = describeFields(descriptor.params);
    fieldsByKind.set(descriptor, fields);
  }
  return fields;
}
