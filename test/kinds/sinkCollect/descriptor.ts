// sink.collect, as the graph side sees it: a kind that lives in test code only, to show that a
// new sink (with its own two-phase commit) is one folder and no edit elsewhere.
import { z } from 'zod';
import { defineKind } from '../../../engine/graph/kinds/kindDescriptor.js';
import { relativePath } from '../../../engine/graph/kinds/paramTypes.js';

export const collectParams = z.strictObject({
  dir: relativePath.describe('The folder the sink stages and commits its files in.'),
});

export type CollectParams = z.infer<typeof collectParams>;

export const sinkCollectDescriptor = defineKind({
  kind: 'sink.collect',
  role: 'sink',
  params: collectParams,
  ports: { inputs: true, outputs: [] },
  keyedInput: 'never',
  fileParams: { dir: 'write' },
  available: true,
  designer: {
    label: 'Collect',
    group: 'sink',
    description:
      'Collects records into files in a folder, exactly once: only those of completed checkpoints.',
    idBase: 'collect',
    defaultParams: { dir: 'collected' },
    icon: 'M2 3h12v10H2z M2 6h12',
  },
});
