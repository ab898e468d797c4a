// source.waiting, as the graph side sees it: a source that, like a connector whose server does not
// answer, reports what it waits for (env.reportWait) until a file appears, then emits its records.
// It lives in test code only: the wait status's way to the CLI and the designer is tested with it.
import { z } from 'zod';
import { defineKind } from '../../../engine/graph/kinds/kindDescriptor.js';

export const waitingParams = z.strictObject({
  count: z.number().int().min(0).describe('Emits {n} for n = 0 .. count - 1, once releaseFile exists.'),
  releaseFile: z.string().min(1).describe('Waits, saying so, until this file (relative to the job) exists.'),
  waitIn: z
    .enum(['poll', 'open'])
    .optional()
    .describe('Where it waits: in its polls (default), or in open(), while the job opens.'),
  connection: z
    .string()
    .optional()
    .describe('A stand-in connection string, e.g. "${env:NAME}": records say whether it came resolved.'),
});

export type WaitingParams = z.infer<typeof waitingParams>;

export const sourceWaitingDescriptor = defineKind({
  kind: 'source.waiting',
  role: 'source',
  params: waitingParams,
  ports: { inputs: false, outputs: ['out'] },
  keyedInput: 'never',
  // A kind names the files it opens, so that an untrusted job's may not lead outside its folder.
  fileParams: { releaseFile: 'read' },
  available: true,
  designer: {
    label: 'Waiting',
    group: 'source',
    description: 'Waits for a file, saying so in the run status, then counts.',
    idBase: 'waiting',
    defaultParams: { count: 10, releaseFile: 'go' },
    icon: 'M2 8h12',
  },
});
