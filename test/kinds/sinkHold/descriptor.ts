// sink.hold, as the graph side sees it: a sink that writes nothing and holds a bounded run at its
// very end, after every commit the run makes in a checkpoint and before it exits, while a file
// exists. It lives in test code only: a test kills the run there (kill -9 right after the final
// commit), which no timing from outside can hit every time.
import { z } from 'zod';
import { defineKind } from '../../../engine/graph/kinds/kindDescriptor.js';

export const holdParams = z.strictObject({
  holdWhile: z
    .string()
    .min(1)
    .describe(
      'While this file (relative to the job) exists, the end of the run waits, having made `<file>.held`.',
    ),
});

export type HoldParams = z.infer<typeof holdParams>;

export const sinkHoldDescriptor = defineKind({
  kind: 'sink.hold',
  role: 'sink',
  params: holdParams,
  ports: { inputs: true, outputs: [] },
  keyedInput: 'never',
  fileParams: { holdWhile: 'write' },
  available: true,
  designer: {
    label: 'Hold',
    group: 'sink',
    description: 'Writes nothing; holds the end of a bounded run while a file exists.',
    idBase: 'hold',
    defaultParams: { holdWhile: 'hold' },
    icon: 'M2 3h12v10H2z',
  },
});
