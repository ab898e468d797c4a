// The job file, format 1. This zod schema is the one source of the TypeScript types, the
// validator's shape checks and the published JSON Schema (docs/job-file.schema.json). An
// operator's params schema is its kind's descriptor's (kinds/), looked up in the kind registry.
import { z } from 'zod';
import { BUILTIN_KINDS, type BuiltinKind } from './kinds/builtinKinds.js';
import type { KindDescriptor } from './kinds/kindDescriptor.js';
import { findKind, kindsVersion, listKinds } from './kinds/kindRegistry.js';
import { fieldPath, id, nonNegativeMs } from './kinds/paramTypes.js';

export const JOB_FORMAT = 'pipewright.job/1';

export { ID_PATTERN } from './kinds/paramTypes.js';

export const settingsSchema = z
  .strictObject({
    maxParallelism: z
      .number()
      .int()
      .min(1)
      .max(32768)
      .default(128)
      .describe('Number of key groups; the upper bound of any parallelism.'),
    stateBackend: z
      .enum(['level', 'memory'])
      .default('level')
      .describe('"level": LevelDB on disk, one database per subtask. "memory": the heap.'),
    checkpointIntervalMs: nonNegativeMs.default(1000).describe('0 turns checkpoints off.'),
    checkpointsRetained: z.number().int().min(1).default(3),
    callTimeoutMs: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe(
        'A call into user code that runs longer than this (a record, or a promise it returned) fails the run, naming the operator and the record. Absent: no limit (Stop still ends a call that does not return).',
      ),
    threads: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe(
        "How many worker threads run the job's subtasks; 1 runs everything on one thread. Absent: the number of cores. The CLI's --threads overrides it; debug runs always use the deterministic single-thread order.",
      ),
  })
  .describe('Job-wide settings; every field has a default.');

/** The params schema of each built-in kind (a kind registered at run time: its descriptor's). */
export const paramsSchemas = Object.fromEntries(BUILTIN_KINDS.map((d) => [d.kind, d.params])) as {
  readonly [D in BuiltinKind as D['kind']]: D['params'];
};

/** The kinds this version ships. Kinds registered at run time are in kindRegistry's list. */
export type OperatorKind = BuiltinKind['kind'];
export const OPERATOR_KINDS: readonly OperatorKind[] = BUILTIN_KINDS.map((d) => d.kind);

export type ParamsOf<K extends OperatorKind> = z.infer<(typeof paramsSchemas)[K]>;

function operatorVariant<K extends string, P extends z.ZodObject>(descriptor: KindDescriptor<K, P>) {
  return z.strictObject({
    id,
    kind: z.literal(descriptor.kind),
    parallelism: z.number().int().min(1).default(1),
    params: descriptor.params,
  });
}

type OperatorVariant = ReturnType<typeof operatorVariant<OperatorKind, (typeof paramsSchemas)[OperatorKind]>>;

function operatorUnion(descriptors: readonly KindDescriptor[]) {
  const variants = descriptors.map(operatorVariant) as OperatorVariant[];
  return z.discriminatedUnion('kind', variants as [OperatorVariant, ...OperatorVariant[]]);
}

/** An operator of a built-in kind. `currentJobSchema()` also accepts the kinds registered since. */
export const operatorSchema = operatorUnion(BUILTIN_KINDS);

export const partitionSchema = z.enum(['forward', 'rebalance', 'hash', 'broadcast']);
export type Partition = z.infer<typeof partitionSchema>;

export const keySchema = z.union([fieldPath, z.array(fieldPath).min(1)]);

export const edgeSchema = z.strictObject({
  id,
  from: id,
  fromPort: id.default('out').describe('A named output of the upstream operator; "out" unless given.'),
  to: id,
  partition: partitionSchema,
  key: keySchema.optional().describe('The key of a hash edge: a field path or an array of them.'),
  feedback: z.boolean().default(false).describe('A transfer edge: the only kind allowed to close a cycle.'),
});

export const editorSchema = z
  .looseObject({
    positions: z.record(z.string(), z.object({ x: z.number(), y: z.number() })).optional(),
  })
  .describe('What only the designer needs (positions, viewport, notes). The engine ignores it.');

function jobSchemaOver(operator: typeof operatorSchema) {
  return z.strictObject({
    format: z.literal(JOB_FORMAT),
    name: z.string().min(1).max(200),
    description: z.string().optional(),
    settings: settingsSchema.default(settingsSchema.parse({})),
    operators: z.array(operator),
    edges: z.array(edgeSchema).default([]),
    editor: editorSchema.optional(),
  });
}

/** The job file over the built-in kinds: the source of the types. */
export const jobSchema = jobSchemaOver(operatorSchema);

let current = { version: kindsVersion(), schema: jobSchema };

/**
 * The job file over every kind registered now: what the validator and the JSON Schema export
 * check against. The same as `jobSchema` until a kind is registered at run time.
 */
export function currentJobSchema(): typeof jobSchema {
  const version = kindsVersion();
  if (current.version !== version) {
    const kinds = listKinds();
    const builtinOnly =
      kinds.length === BUILTIN_KINDS.length && kinds.every((d, i) => d === BUILTIN_KINDS[i]);
    // A registered kind's operators are typed as built-in ones: the types cannot know it.
    current = { version, schema: builtinOnly ? jobSchema : jobSchemaOver(operatorUnion(kinds)) };
  }
  return current.schema;
}

/** An operator of one kind, defaults filled in: `kind` narrows `params`. */
export type OperatorOf<K extends OperatorKind> = {
  id: string;
  kind: K;
  parallelism: number;
  params: ParamsOf<K>;
};
export type Operator = { [K in OperatorKind]: OperatorOf<K> }[OperatorKind];

/** A job as the engine sees it: defaults filled in. */
export type Job = Omit<z.output<typeof jobSchema>, 'operators'> & { operators: Operator[] };
/** A job as a file may spell it: defaults optional. */
export type JobInput = z.input<typeof jobSchema>;
export type Edge = Job['edges'][number];
export type Settings = Job['settings'];
export type KeySpec = z.infer<typeof keySchema>;

/** Whether the kind is a registered source (no inputs). */
export function isSource(kind: string): boolean {
  return findKind(kind)?.role === 'source';
}

/** Whether the kind is a registered sink (no outputs). */
export function isSink(kind: string): boolean {
  return findKind(kind)?.role === 'sink';
}

export const SOURCE_KINDS: readonly OperatorKind[] = OPERATOR_KINDS.filter(isSource);
export const SINK_KINDS: readonly OperatorKind[] = OPERATOR_KINDS.filter(isSink);
