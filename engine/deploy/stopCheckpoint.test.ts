// A clean stop takes a checkpoint of its own and the run ends right after that one completes
// (JobRun.stop, ParallelJobRun.stop), on both executors. A stop asked for while a checkpoint is
// completing (its metadata written, its sinks' parts being published) used to end the run at that
// checkpoint, which cut the job before the stop came: found making a fixture, SIGTERM 50 ms
// after checkpoint 1 left only chk-1.json. Asked for here from the completion event of checkpoint
// 1, which comes at exactly that moment (after its commit, before the run hears that it completed).
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EXECUTORS, type ExecutorRun, openJob } from '../../test/executors.js';
import { fn, makeJob, sink } from '../../test/jobBuilders.js';
import type { CheckpointEvent } from '../checkpoint/checkpointCoordinator.js';

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pipewright-stop-checkpoint-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** An unbounded generator -> map -> sink.jsonl: only a stop ends it. */
const job = (parallelism: number) =>
  makeJob(
    'stop-checkpoint',
    [
      {
        id: 'src',
        kind: 'source.generator',
        parallelism: 1,
        params: { code: 'function generate(i) { return { i }; }' },
      },
      fn('p1', 'map', 'function map(r) { return r; }', parallelism),
      sink('out', 'out.jsonl', parallelism),
    ],
    [
      { id: 'e1', from: 'src', to: 'p1', partition: 'rebalance' },
      { id: 'e2', from: 'p1', to: 'out', partition: 'forward' },
    ],
    { stateBackend: 'level', checkpointIntervalMs: 20 },
  );

describe.each(EXECUTORS)('a stop asked for while checkpoint 1 completes (%s)', (executor) => {
  it('takes checkpoint 2 of its own, ends right after it, and the output is what it committed', async () => {
    const checkpointDir = join(dir, 'checkpoints');
    const events: CheckpointEvent[] = [];
    let run: ExecutorRun | undefined;
    run = await openJob(executor, job(executor === 'parallel' ? 2 : 1), {
      jobDir: dir,
      stateDir: join(dir, 'state'),
      checkpointDir,
      onCheckpoint: (event) => {
        events.push(event);
        if (event.id === 1) run!.stop();
      },
    });
    const summary = await run.run();
    const said = events.map((e) => `${e.id} ${e.status}${e.reason === undefined ? '' : `: ${e.reason}`}`);
    expect(said).toEqual(['1 completed', '2 completed']);
    expect(summary.stopped).toBe(true);
    expect(summary.checkpoints).toEqual([1, 2]);
    // Ended at checkpoint 2, not after the end (the job has none): the output is what it published.
    const metadata = JSON.parse(await readFile(join(checkpointDir, 'chk-2.json'), 'utf8'));
    expect(metadata.finished).toBeUndefined();
    const commit = metadata.sinks[0].payload as { committedLength: number; parts: { bytes: number }[] };
    const committed = Math.max(0, commit.committedLength) + commit.parts.reduce((n, p) => n + p.bytes, 0);
    expect((await stat(join(dir, 'out.jsonl'))).size).toBe(committed);
  });
});
