// sink.hold, the Node side. Its writers drop every record and prepare nothing; its committer
// commits nothing, and at the end of a bounded run (commitRemaining: after the commits every other
// sink makes at the run's end, which come first in the job's order of operators, and before the
// run closes and the process exits) makes `<holdWhile>.held` and waits while `holdWhile` exists.
// Waiting on a timer keeps the run's thread alive meanwhile.
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { KindFactory } from '../../../engine/operators/kindFactory.js';
import type { SinkCommitter, SinkWriter } from '../../../engine/runtime/sink.js';
import { holdParams } from './descriptor.js';

const writer: SinkWriter = {
  open: async () => {},
  write: () => {},
  prepareCommit: () => undefined,
  endInput: async () => {},
  abort: async () => {},
};

class HoldCommitter implements SinkCommitter {
  constructor(private readonly file: string) {}

  async prepare(): Promise<undefined> {
    return undefined;
  }

  async commit(): Promise<void> {}

  async commitRemaining(): Promise<void> {
    if (!existsSync(this.file)) return;
    await writeFile(`${this.file}.held`, '');
    while (existsSync(this.file)) await new Promise((resolve) => setTimeout(resolve, 10));
  }

  async recover(): Promise<void> {}
}

export const sinkHoldFactory: KindFactory = {
  role: 'sink',
  createSink: ({ planned, jobDir }) => {
    // Params are typed for the built-in kinds only; this kind reads its own through its schema.
    const file = resolve(jobDir, holdParams.parse(planned.operator.params).holdWhile);
    return { createWriter: () => writer, committer: new HoldCommitter(file) };
  },
};
