// ParallelJobRun's stop before its threads exist: the run is still emptying its state folder or
// reading the first checkpoint id, so there is no part to tell; the stop must be kept for when
// they are open, not lost (an unbounded source would then run on for ever).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fn, generator, makeJob, sink } from '../../test/jobBuilders.js';
import { ParallelJobRun } from './parallelJobRun.js';

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pipewright-parallel-stop-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const RECORDS = 200_000;

describe('ParallelJobRun.stop', () => {
  for (const checkpoints of [false, true]) {
    it(`asked before the threads exist (${checkpoints ? 'reading the first checkpoint id' : 'emptying the state folder'}) stops the run once they are open`, async () => {
      const job = makeJob(
        'early-stop',
        [
          generator('src', 'function generate(i) { return { i }; }', RECORDS),
          fn('p1', 'map', 'function map(r) { return r; }', 2),
          sink('out', 'out.jsonl', 2),
        ],
        [
          { id: 'e1', from: 'src', to: 'p1', partition: 'rebalance' },
          { id: 'e2', from: 'p1', to: 'out', partition: 'forward' },
        ],
        { stateBackend: 'level', ...(checkpoints ? { checkpointIntervalMs: 60_000 } : {}) },
      );
      const run = ParallelJobRun.start({
        job,
        jobDir: dir,
        stateDir: join(dir, 'state'),
        ...(checkpoints ? { checkpointDir: join(dir, 'checkpoints') } : {}),
        threads: 2,
      });
      // Synchronously after start: open() is awaiting its folders, no worker is started yet.
      run.stop();
      const summary = await run.run();
      expect(summary.stopped).toBe(true);
      const sinkIn = summary.metrics.operators.find((op) => op.id === 'out')?.recordsIn ?? 0;
      expect(sinkIn).toBeLessThan(RECORDS);
    });
  }
});
