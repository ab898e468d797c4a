// sink.jsonl: exactly-once JSON Lines output, visible only for completed checkpoints.
import { z } from 'zod';
import { defineKind } from './kindDescriptor.js';
import { relativePath } from './paramTypes.js';

export const sinkJsonlKind = defineKind({
  kind: 'sink.jsonl',
  role: 'sink',
  params: z.strictObject({ path: relativePath }),
  ports: { inputs: true, outputs: [] },
  keyedInput: 'never',
  fileParams: { path: 'write' },
  available: true,
  designer: {
    label: 'JSON Lines file',
    group: 'sink',
    description: 'Writes records to a JSON Lines file, exactly once: only those of completed checkpoints.',
    idBase: 'sink',
    defaultParams: { path: 'output.jsonl' },
    icon: 'M8 1.5v7 M5 5.5l3 3 3-3 M2 10v4h12v-4',
  },
});
