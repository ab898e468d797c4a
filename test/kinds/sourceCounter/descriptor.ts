// source.counter, as the graph side sees it: a kind that lives in test code only, to show that a
// new source is one folder (descriptor, factory, kind module) and no edit elsewhere.
import { z } from 'zod';
import { defineKind } from '../../../engine/graph/kinds/kindDescriptor.js';

export const counterParams = z.strictObject({
  count: z.number().int().min(0).describe('Emits {n} for n = 0 .. count - 1.'),
  perPoll: z.number().int().min(1).optional().describe('Records per poll at most (default 100).'),
  pauseMs: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe('Waits this long (a real timer) before each poll, so that a run lasts.'),
});

export type CounterParams = z.infer<typeof counterParams>;

export const sourceCounterDescriptor = defineKind({
  kind: 'source.counter',
  role: 'source',
  params: counterParams,
  ports: { inputs: false, outputs: ['out'] },
  keyedInput: 'never',
  available: true,
  designer: {
    label: 'Counter',
    group: 'source',
    description: 'Counts from 0 to count - 1, a few records per poll, pausing between polls.',
    idBase: 'counter',
    defaultParams: { count: 100 },
    icon: 'M2 4h12 M2 8h12 M2 12h12',
  },
});
