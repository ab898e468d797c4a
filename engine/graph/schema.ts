// The job file, format 1. This zod schema is the one source of the TypeScript types, the
// validator's shape checks and the published JSON Schema (docs/job-file.schema.json).
import { z } from 'zod';

export const JOB_FORMAT = 'pipewright.job/1';

export const ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

const id = z.string().regex(ID_PATTERN, 'must match [A-Za-z0-9_-]{1,64}');

const fieldPath = z
  .string()
  .regex(/^[^.]+(\.[^.]+)*$/, 'must be a field path such as "owner" or "item.owner"')
  .describe('A dotted field path into the record, e.g. "owner" or "item.owner".');

const code = z.string().describe('JavaScript that defines the function the operator kind calls.');

const relativePath = z
  .string()
  .min(1)
  .describe('A file path; a relative one resolves against the directory of the job file.');

const nonNegativeMs = z.number().int().min(0);

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
  })
  .describe('Job-wide settings; every field has a default.');

export const paramsSchemas = {
  'source.jsonl': z.strictObject({
    path: relativePath,
    timestampField: fieldPath.optional(),
    maxOutOfOrdernessMs: nonNegativeMs.optional(),
  }),
  'source.generator': z.strictObject({
    code,
    count: z.number().int().min(0).optional(),
    ratePerSec: z.number().positive().optional(),
    seed: z.number().int().optional(),
  }),
  map: z.strictObject({ code }),
  filter: z.strictObject({ code }),
  flatMap: z.strictObject({ code }),
  process: z.strictObject({ code }),
  window: z.strictObject({
    type: z.enum(['tumbling', 'sliding', 'session']),
    sizeMs: z.number().int().positive().optional(),
    slideMs: z.number().int().positive().optional(),
    gapMs: z.number().int().positive().optional(),
    aggregate: z.enum(['count', 'sum', 'min', 'max', 'avg']),
    field: fieldPath.optional(),
    allowedLatenessMs: nonNegativeMs.optional(),
  }),
  transaction: z.strictObject({
    tables: z.array(id).min(1),
    code,
  }),
  'sink.jsonl': z.strictObject({ path: relativePath }),
} as const;

export type OperatorKind = keyof typeof paramsSchemas;
export const OPERATOR_KINDS = Object.keys(paramsSchemas) as OperatorKind[];

export type ParamsOf<K extends OperatorKind> = z.infer<(typeof paramsSchemas)[K]>;

const operatorVariants = OPERATOR_KINDS.map((kind) =>
  z.strictObject({
    id,
    kind: z.literal(kind),
    parallelism: z.number().int().min(1).default(1),
    params: paramsSchemas[kind],
  }),
);

export const operatorSchema = z.discriminatedUnion(
  'kind',
  operatorVariants as unknown as [(typeof operatorVariants)[number], ...(typeof operatorVariants)[number][]],
);

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

export const jobSchema = z.strictObject({
  format: z.literal(JOB_FORMAT),
  name: z.string().min(1).max(200),
  description: z.string().optional(),
  settings: settingsSchema.default(settingsSchema.parse({})),
  operators: z.array(operatorSchema),
  edges: z.array(edgeSchema).default([]),
  editor: editorSchema.optional(),
});

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

export const SOURCE_KINDS: readonly OperatorKind[] = ['source.jsonl', 'source.generator'];
export const SINK_KINDS: readonly OperatorKind[] = ['sink.jsonl'];

export function isSource(kind: OperatorKind): boolean {
  return SOURCE_KINDS.includes(kind);
}

export function isSink(kind: OperatorKind): boolean {
  return SINK_KINDS.includes(kind);
}
