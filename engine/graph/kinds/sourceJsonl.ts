// source.jsonl: one record a line of a JSON Lines file; replayable from a byte offset, bounded.
import { z } from 'zod';
import { defineKind } from './kindDescriptor.js';
import { fieldPath, nonNegativeMs, relativePath } from './paramTypes.js';

export const sourceJsonlKind = defineKind({
  kind: 'source.jsonl',
  role: 'source',
  params: z.strictObject({
    path: relativePath,
    timestampField: fieldPath.optional(),
    maxOutOfOrdernessMs: nonNegativeMs.optional(),
    idleTimeoutMs: nonNegativeMs.optional(),
    /** A record whose timestamp is missing or not a time: fail the job (default) or skip it, counted. */
    onBadTimestamp: z.enum(['fail', 'skip']).optional(),
  }),
  ports: { inputs: false, outputs: ['out'] },
  keyedInput: 'never',
  fileParams: { path: 'read' },
  available: true,
  designer: {
    label: 'JSON Lines file',
    group: 'source',
    description: 'Reads a JSON Lines file, one record a line, to its end.',
    idBase: 'source',
    defaultParams: { path: 'input.jsonl' },
    icon: 'M4 1.5h5.5l3 3v10H4z M6 7h4.5 M6 9.5h4.5 M6 12h3',
    // Watermark settings mean nothing until the records have a time.
    fieldConditions: {
      maxOutOfOrdernessMs: { field: 'timestampField' },
      idleTimeoutMs: { field: 'timestampField' },
      onBadTimestamp: { field: 'timestampField' },
    },
  },
});
