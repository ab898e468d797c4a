// source.generator: records made by user code, deterministic; unbounded without a count.
import { z } from 'zod';
import { defineKind } from './kindDescriptor.js';
import { code, fieldPath, nonNegativeMs } from './paramTypes.js';

export const sourceGeneratorKind = defineKind({
  kind: 'source.generator',
  role: 'source',
  params: z.strictObject({
    code,
    count: z.number().int().min(0).optional(),
    ratePerSec: z.number().positive().optional(),
    seed: z.number().int().optional(),
    /** Event time: the field of each generated record holding it (epoch ms or an ISO date). */
    timestampField: fieldPath.optional(),
    maxOutOfOrdernessMs: nonNegativeMs.optional(),
    idleTimeoutMs: nonNegativeMs.optional(),
  }),
  ports: { inputs: false, outputs: ['out'] },
  userCode: { functionName: 'generate', signature: 'function generate(i, ctx) { return record; }' },
  keyedInput: 'never',
  available: true,
  designer: {
    label: 'Generator',
    group: 'source',
    description: 'Makes records with generate(i, ctx): count of them, or without end.',
    idBase: 'generator',
    defaultParams: { code: 'function generate(i, ctx) {\n  return { id: i };\n}\n', count: 100 },
    icon: 'M8 1.5v4 M8 10.5v4 M1.5 8h4 M10.5 8h4 M3.5 3.5 6 6 M10 10l2.5 2.5 M12.5 3.5 10 6 M6 10l-2.5 2.5',
  },
});
