// sink.collect, the Node side: a writer per subtask and one committer, told only the folder and
// the first checkpoint's id (the first staged file's epoch).
import { resolve } from 'node:path';
import type { KindFactory } from '../../../engine/operators/kindFactory.js';
import { CollectCommitter } from './collectCommitter.js';
import { CollectWriter } from './collectWriter.js';
import { collectParams } from './descriptor.js';

export const sinkCollectFactory: KindFactory = {
  role: 'sink',
  createSink: ({ planned, jobDir, checkpoints }) => {
    // Params are typed for the built-in kinds only; this kind reads its own through its schema.
    const dir = resolve(jobDir, collectParams.parse(planned.operator.params).dir);
    const firstEpoch = checkpoints?.firstId ?? 0;
    return {
      createWriter: (env) => new CollectWriter(dir, env.subtask, firstEpoch),
      committer: new CollectCommitter(planned.operator.id, dir),
    };
  },
};
