// What each operator kind is, independent of how it runs: the designer's palette, the
// validator and the runtime all read this one table.
import { readCode } from './codeParse.js';
import type { OperatorKind } from './schema.js';

export type OperatorRole = 'source' | 'transform' | 'keyed' | 'sink';

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

export const KINDS: Readonly<Record<OperatorKind, KindInfo>> = {
  'source.jsonl': {
    kind: 'source.jsonl',
    role: 'source',
    title: 'JSON Lines file',
    alwaysKeyed: false,
    fixedPorts: [],
    available: true,
  },
  'source.generator': {
    kind: 'source.generator',
    role: 'source',
    title: 'Generator',
    functionName: 'generate',
    signature: 'function generate(i, ctx) { return record; }',
    alwaysKeyed: false,
    fixedPorts: [],
    available: true,
  },
  map: {
    kind: 'map',
    role: 'transform',
    title: 'Map',
    functionName: 'map',
    signature: 'function map(record, ctx) { return record; }',
    alwaysKeyed: false,
    fixedPorts: [],
    available: true,
  },
  filter: {
    kind: 'filter',
    role: 'transform',
    title: 'Filter',
    functionName: 'filter',
    signature: 'function filter(record, ctx) { return true; }',
    alwaysKeyed: false,
    fixedPorts: [],
    available: true,
  },
  flatMap: {
    kind: 'flatMap',
    role: 'transform',
    title: 'Flat map',
    functionName: 'flatMap',
    signature: 'function flatMap(record, ctx) { return [record]; }',
    alwaysKeyed: false,
    fixedPorts: [],
    available: true,
  },
  process: {
    kind: 'process',
    role: 'keyed',
    title: 'Process',
    functionName: 'process',
    signature: 'function process(record, ctx) { ctx.emit(record); }',
    alwaysKeyed: false,
    fixedPorts: [],
    available: true,
  },
  window: {
    kind: 'window',
    role: 'keyed',
    title: 'Window',
    alwaysKeyed: true,
    fixedPorts: ['late'],
    available: false,
  },
  transaction: {
    kind: 'transaction',
    role: 'keyed',
    title: 'Transaction',
    functionName: 'transact',
    signature: 'function keys(record) { return [[table, key]]; }\nfunction transact(record, tx) { }',
    alwaysKeyed: true,
    fixedPorts: [],
    available: false,
  },
  'sink.jsonl': {
    kind: 'sink.jsonl',
    role: 'sink',
    title: 'JSON Lines file',
    alwaysKeyed: false,
    fixedPorts: [],
    available: true,
  },
};

/**
 * Whether a `process` function's code reaches for keyed state or timers, read from its syntax
 * tree as the validator reads it to demand keyed inputs (false for code that does not parse);
 * the runtime enforces the same rule when the code actually calls them.
 */
export function codeUsesKeyedState(code: string): boolean {
  return readCode(code).tree?.usesKeyedState === true;
}
