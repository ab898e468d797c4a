// The kind table as the engine read it before kinds were descriptors (kinds/kindDescriptor.ts):
// a view of the kind registry, kept for the code that still looks kinds up by `KINDS[kind]`.
import type { KindDescriptor, KindGroup } from './kinds/kindDescriptor.js';
import { findKind, kindNames } from './kinds/kindRegistry.js';
import type { OperatorKind } from './schema.js';

/** The palette group a kind is listed under (keyed transforms have their own). */
export type OperatorRole = KindGroup;

export interface KindInfo {
  readonly kind: OperatorKind;
  readonly role: OperatorRole;
  readonly title: string;
  /** The function the user's `code` must define, if the kind runs user code. */
  readonly functionName?: string;
  /** The signature shown as a hint in code fields and error messages. */
  readonly signature?: string;
  /** Kinds that always need hash-partitioned inputs. `process` needs them only when it uses state. */
  readonly alwaysKeyed: boolean;
  /** Named output ports the kind itself defines besides "out" (user code may add more). */
  readonly fixedPorts: readonly string[];
  /** False for kinds the contract names but this engine version cannot run yet. */
  readonly available: boolean;
}

const infos = new WeakMap<KindDescriptor, KindInfo>();

/** A descriptor as the older table spelled it. */
export function kindInfo(descriptor: KindDescriptor): KindInfo {
  let info = infos.get(descriptor);
  if (info === undefined) {
    info = {
      kind: descriptor.kind as OperatorKind,
      role: descriptor.designer.group,
      title: descriptor.designer.label,
      ...(descriptor.userCode === undefined
        ? {}
        : { functionName: descriptor.userCode.functionName, signature: descriptor.userCode.signature }),
      alwaysKeyed: descriptor.keyedInput === 'always',
      fixedPorts: descriptor.ports.outputs.filter((port) => port !== 'out'),
      available: descriptor.available,
    };
    infos.set(descriptor, info);
  }
  return info;
}

/**
 * Every registered kind by name, built-ins and those registered at run time alike (a live view:
 * a kind registered later is in it too).
 */
export const KINDS: Readonly<Record<OperatorKind, KindInfo>> = new Proxy(
  {} as Record<OperatorKind, KindInfo>,
  {
    get: (_, kind) => {
      const descriptor = typeof kind === 'string' ? findKind(kind) : undefined;
      return descriptor && kindInfo(descriptor);
    },
    has: (_, kind) => typeof kind === 'string' && findKind(kind) !== undefined,
    ownKeys: () => [...kindNames()],
    getOwnPropertyDescriptor: (_, kind) => {
      const descriptor = typeof kind === 'string' ? findKind(kind) : undefined;
      return (
        descriptor && { value: kindInfo(descriptor), enumerable: true, configurable: true, writable: false }
      );
    },
  },
);

/**
 * Whether a `process` function's code reaches for keyed state or timers, read from its syntax
 * tree as the validator reads it to demand keyed inputs (false for code that does not parse);
 * the runtime enforces the same rule when the code actually calls them.
 */
export { usesKeyedState as codeUsesKeyedState } from './validation/userCodeChecks.js';
