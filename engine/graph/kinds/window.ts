// window: event-time windows per key; late records go to port "late". Not runnable yet.
import { z } from 'zod';
import { defineKind } from './kindDescriptor.js';
import { fieldPath, nonNegativeMs } from './paramTypes.js';

export const windowKind = defineKind({
  kind: 'window',
  role: 'transform',
  params: z.strictObject({
    type: z.enum(['tumbling', 'sliding', 'session']),
    sizeMs: z.number().int().positive().optional(),
    slideMs: z.number().int().positive().optional(),
    gapMs: z.number().int().positive().optional(),
    aggregate: z.enum(['count', 'sum', 'min', 'max', 'avg']),
    field: fieldPath.optional(),
    allowedLatenessMs: nonNegativeMs.optional(),
  }),
  ports: { inputs: true, outputs: ['out', 'late'] },
  keyedInput: 'always',
  available: false,
  designer: {
    label: 'Window',
    group: 'keyed',
    description: 'Aggregates each key’s records over event-time windows; late records go to port "late".',
    idBase: 'window',
    defaultParams: { type: 'tumbling', sizeMs: 1000, aggregate: 'count' },
    icon: 'M2 3h12v10H2z M6 3v10 M10 3v10',
  },
});
