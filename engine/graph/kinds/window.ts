// window: event-time windows per key, with Flink's semantics (tumbling, sliding, session); late
// records go to port "late". Which params a window type needs is checked by
// validation/windowRules.ts (a zod refinement would word it as a bare schema issue).
import { z } from 'zod';
import { defineKind } from './kindDescriptor.js';
import { fieldPath, nonNegativeMs } from './paramTypes.js';

/** The built-in aggregates, and "code": the aggregate is params.code's functions. */
export const WINDOW_AGGREGATES = ['count', 'sum', 'min', 'max', 'avg', 'code'] as const;

/** The aggregates that read params.field. */
export const FIELD_AGGREGATES: readonly string[] = ['sum', 'min', 'max', 'avg'];

const positiveMs = z.number().int().positive();

export const windowKind = defineKind({
  kind: 'window',
  role: 'transform',
  params: z.strictObject({
    type: z
      .enum(['tumbling', 'sliding', 'session'])
      .describe(
        'tumbling: back-to-back windows; sliding: windows of sizeMs every slideMs; session: gapMs of quiet ends one.',
      ),
    sizeMs: positiveMs.optional().describe('The length of each window (tumbling and sliding).'),
    slideMs: positiveMs.optional().describe('How far apart sliding windows start; at most sizeMs.'),
    offsetMs: z
      .number()
      .int()
      .optional()
      .describe(
        'Shifts the windows from the epoch (tumbling and sliding; less than sizeMs, or slideMs, either way): -3600000 aligns days to UTC+1.',
      ),
    gapMs: positiveMs.optional().describe('A session ends when no record of its key comes for this long.'),
    aggregate: z
      .enum(WINDOW_AGGREGATES)
      .describe('What each window computes; "code" runs the functions in code.'),
    field: fieldPath.optional(),
    code: z
      .string()
      .optional()
      .describe(
        'With aggregate "code": defines createAccumulator(), add(acc, record) and result(acc), and merge(a, b) for session windows; accumulators are JSON values.',
      ),
    allowedLatenessMs: nonNegativeMs
      .optional()
      .describe(
        'How long after a window fired a late record still updates it (and fires it again); later records go to port "late".',
      ),
  }),
  ports: { inputs: true, outputs: ['out', 'late'] },
  keyedInput: 'always',
  available: true,
  designer: {
    label: 'Window',
    group: 'keyed',
    description:
      'Aggregates each key’s records over event-time windows into { key, start, end, value }; late records go to port "late".',
    idBase: 'window',
    defaultParams: { type: 'tumbling', sizeMs: 1000, aggregate: 'count' },
    icon: 'M2 3h12v10H2z M6 3v10 M10 3v10',
    fieldConditions: {
      sizeMs: { field: 'type', oneOf: ['tumbling', 'sliding'] },
      slideMs: { field: 'type', oneOf: ['sliding'] },
      offsetMs: { field: 'type', oneOf: ['tumbling', 'sliding'] },
      gapMs: { field: 'type', oneOf: ['session'] },
      field: { field: 'aggregate', oneOf: FIELD_AGGREGATES },
      code: { field: 'aggregate', oneOf: ['code'] },
    },
  },
});
