// What the graph rules need of a job, taken from the raw document one field at a time: a
// malformed field (already reported by the schema) disables only the rules that need it, so
// one bad value does not hide problems elsewhere.
import type { EmittedPorts } from '../codeParse.js';
import type { KindDescriptor } from '../kinds/kindDescriptor.js';
import { findKind } from '../kinds/kindRegistry.js';
import { type Partition, partitionSchema, settingsSchema } from '../schema.js';
import { isRecord } from './jsonPath.js';
import { operatorPorts } from './userCodeChecks.js';
import { quote } from './valueWords.js';

export interface OperatorFacts {
  readonly index: number;
  readonly id: string;
  /** Its kind, when that is a registered one. */
  readonly kind?: KindDescriptor;
  readonly parallelism?: number;
  readonly code?: string;
  /** Its params, when they are an object (each field still unchecked: rules read what they need). */
  readonly params?: Readonly<Record<string, unknown>>;
}

export interface EdgeFacts {
  readonly index: number;
  readonly id?: string;
  readonly from?: string;
  readonly to?: string;
  readonly fromPort?: string;
  readonly partition?: Partition;
  readonly hasKey: boolean;
  readonly feedback?: boolean;
  /** The operators it names, when they exist (the first of each id). */
  readonly fromOp?: OperatorFacts;
  readonly toOp?: OperatorFacts;
}

/** What every graph rule reads: built once per validation. */
export interface GraphContext {
  /** False when `operators` is not a list: then no edge can be said to name an unknown operator. */
  readonly operatorsKnown: boolean;
  readonly operators: readonly OperatorFacts[];
  readonly edges: readonly EdgeFacts[];
  /** Each operator id's first operator. */
  readonly byId: ReadonlyMap<string, OperatorFacts>;
  readonly maxParallelism?: number;
  /**
   * The ports an operator may emit to, worked out once per operator; undefined for an unknown
   * kind, or while its code does not parse.
   */
  readonly portsOf: (op: OperatorFacts) => EmittedPorts | undefined;
  /** The job file's folder, absolute, when the caller knows it: relative paths resolve against it. */
  readonly jobDir?: string;
}

function operatorFacts(element: unknown, index: number): OperatorFacts | undefined {
  if (!isRecord(element) || typeof element.id !== 'string') return undefined;
  const { parallelism, params } = element;
  const kind = typeof element.kind === 'string' ? findKind(element.kind) : undefined;
  return {
    index,
    id: element.id,
    kind,
    parallelism:
      parallelism === undefined
        ? 1
        : Number.isInteger(parallelism) && Number(parallelism) >= 1
          ? Number(parallelism)
          : undefined,
    code: isRecord(params) && typeof params.code === 'string' ? params.code : undefined,
    params: isRecord(params) ? params : undefined,
  };
}

function edgeFacts(
  element: unknown,
  index: number,
  byId: ReadonlyMap<string, OperatorFacts>,
): EdgeFacts | undefined {
  if (!isRecord(element)) return undefined;
  const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
  const partition = partitionSchema.safeParse(element.partition);
  const from = text(element.from);
  const to = text(element.to);
  return {
    index,
    id: text(element.id),
    from,
    to,
    fromOp: from === undefined ? undefined : byId.get(from),
    toOp: to === undefined ? undefined : byId.get(to),
    fromPort: element.fromPort === undefined ? 'out' : text(element.fromPort),
    partition: partition.success ? partition.data : undefined,
    hasKey: element.key !== undefined,
    feedback:
      element.feedback === undefined
        ? false
        : typeof element.feedback === 'boolean'
          ? element.feedback
          : undefined,
  };
}

function maxParallelismOf(root: Record<string, unknown>): number | undefined {
  const { settings } = root;
  if (settings === undefined) return settingsSchema.parse({}).maxParallelism;
  if (!isRecord(settings)) return undefined;
  const parsed = settingsSchema.shape.maxParallelism.safeParse(settings.maxParallelism);
  return parsed.success ? parsed.data : undefined;
}

export function graphContext(root: Record<string, unknown>, jobDir?: string): GraphContext {
  const operatorsKnown = Array.isArray(root.operators);
  const operators = (operatorsKnown ? (root.operators as unknown[]) : [])
    .map(operatorFacts)
    .filter((op): op is OperatorFacts => op !== undefined);
  const byId = new Map<string, OperatorFacts>();
  for (const op of operators) if (!byId.has(op.id)) byId.set(op.id, op);
  const edges = (Array.isArray(root.edges) ? (root.edges as unknown[]) : [])
    .map((element, index) => edgeFacts(element, index, byId))
    .filter((edge): edge is EdgeFacts => edge !== undefined);
  const portsCache = new Map<OperatorFacts, EmittedPorts | undefined>();
  const portsOf = (op: OperatorFacts): EmittedPorts | undefined => {
    if (!portsCache.has(op)) portsCache.set(op, op.kind && operatorPorts(op.kind, op.code));
    return portsCache.get(op);
  };
  const maxParallelism = maxParallelismOf(root);
  return {
    operatorsKnown,
    operators,
    edges,
    byId,
    ...(maxParallelism === undefined ? {} : { maxParallelism }),
    portsOf,
    ...(jobDir === undefined ? {} : { jobDir }),
  };
}

export const operatorLabel = (op: OperatorFacts): string => `operator ${quote(op.id)}`;

export const edgeLabel = (edge: EdgeFacts): string =>
  edge.id === undefined ? `edges[${edge.index}]` : `edge ${quote(edge.id)}`;

export function edgeList(list: readonly EdgeFacts[]): string {
  if (list.length === 1 || list.some((edge) => edge.id === undefined)) return list.map(edgeLabel).join(', ');
  return `edges ${list.map((edge) => quote(edge.id!)).join(', ')}`;
}

export const edgeIds = (edge: EdgeFacts): string[] => (edge.id === undefined ? [] : [edge.id]);
