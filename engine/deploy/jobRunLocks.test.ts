// A JobRun holds its folders and output files from the start of open() to its end, whichever end:
// finished, stopped, failed, closed, or open() failing half-way. Meanwhile a second JobRun of the
// same folders (the CLI, the browser form and the desktop app all open one) is refused. The
// ends a run has on both executors are tested on both; close() is JobRun's (debug runs) only.
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { EXECUTORS, openJob } from '../../test/executors.js';
import { fn, generator, makeJob, sink } from '../../test/jobBuilders.js';
import type { Job } from '../graph/schema.js';
import { JobRun, type RunOptions } from './jobRun.js';
import { RunLockRefused } from './runLock.js';

let root = '';
let dir = '';
let case_ = 0;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'pipewright-runlocks-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});
beforeEach(() => {
  dir = join(root, `case-${case_++}`);
});

const COUNT =
  'function process(r, ctx) {\n  const n = (ctx.state.value("n").get() ?? 0) + 1;\n  ctx.state.value("n").set(n);\n  ctx.emit({ ...r, n });\n}';

function countingJob(count: number | undefined, settings: Record<string, unknown> = {}, code = COUNT): Job {
  const source = generator(
    'gen',
    'function generate(i) {\n  return { i, key: "k" + (i % 5) };\n}',
    count ?? 1,
  );
  if (count === undefined) delete (source.params as { count?: number }).count;
  return makeJob(
    'locked',
    [source, fn('count', 'process', code, 2), sink('out', 'out/counts.jsonl')],
    [
      { id: 'e1', from: 'gen', to: 'count', partition: 'hash', key: 'key' },
      { id: 'e2', from: 'count', to: 'out', partition: 'rebalance' },
    ],
    { stateBackend: 'level', ...settings },
  );
}

const options = (): RunOptions => ({
  jobDir: dir,
  stateDir: join(dir, 'state'),
  checkpointDir: join(dir, 'checkpoints'),
});

const locks = () => ({
  state: existsSync(join(dir, 'state', '.pipewright.lock')),
  checkpoints: existsSync(join(dir, 'checkpoints', '.pipewright.lock')),
  output: existsSync(join(dir, 'out', '.counts.jsonl.lock')),
});
const ALL = { state: true, checkpoints: true, output: true };
const NONE = { state: false, checkpoints: false, output: false };

describe.each(EXECUTORS)('a run holds its folders (%s)', (executor) => {
  it('from open to a finished run, and refuses a second run of them meanwhile', async () => {
    const job = countingJob(500);
    const run = await openJob(executor, job, options());
    expect(locks()).toEqual(ALL);
    const refused = await openJob(executor, job, options()).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    // Across threads a refusal comes back as its message (a JobError): the class is JobRun's.
    if (executor === 'deterministic') expect(refused).toBeInstanceOf(RunLockRefused);
    expect(refused?.message).toMatch(
      new RegExp(
        `^the state folder ${join(dir, 'state')} is in use by another run of job "locked" \\(pid ${process.pid}, started [-\\d]+ [:\\d]+\\); stop that run first$`,
      ),
    );
    // The refused run touched nothing: the first goes on as if it had never been tried.
    const summary = await run.run();
    expect(summary.stopped).toBe(false);
    expect(locks()).toEqual(NONE);
    // Free again.
    await (await openJob(executor, job, options())).run();
  });

  it('until a stop', async () => {
    const run = await openJob(executor, countingJob(undefined, { checkpointIntervalMs: 20 }), options());
    const ran = run.run();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(locks()).toEqual(ALL);
    run.stop();
    expect((await ran).stopped).toBe(true);
    expect(locks()).toEqual(NONE);
  });

  it('until a failure', async () => {
    const job = countingJob(50, {}, 'function process(r) {\n  if (r.i === 20) throw new Error("no");\n}');
    const run = await openJob(executor, job, options());
    expect(locks()).toEqual(ALL);
    await expect(run.run()).rejects.toThrow('no');
    expect(locks()).toEqual(NONE);
  });
});

// close() ends a debug run, which is JobRun's only.
describe('a JobRun holds its folders', () => {
  it('until it is closed', async () => {
    const run = await JobRun.open(countingJob(50), options());
    expect(locks()).toEqual(ALL);
    await run.close();
    expect(locks()).toEqual(NONE);
  });

  it('not at all once open() has failed half-way (its stores were open)', async () => {
    const job = makeJob(
      'locked',
      [
        { id: 'in', kind: 'source.jsonl', params: { path: 'missing.jsonl' } },
        fn('count', 'process', COUNT, 2),
        sink('out', 'out/counts.jsonl'),
      ],
      [
        { id: 'e1', from: 'in', to: 'count', partition: 'hash', key: 'key' },
        { id: 'e2', from: 'count', to: 'out', partition: 'rebalance' },
      ],
      { stateBackend: 'level' },
    );
    await expect(JobRun.open(job, options())).rejects.toThrow('cannot read its input file');
    expect(locks()).toEqual(NONE);
    await (await JobRun.open(countingJob(5), options())).close();
  });

  it('but not the output file of a preview run, which writes none', async () => {
    const job = countingJob(50);
    const preview = await JobRun.open(job, {
      jobDir: dir,
      stateDir: join(dir, 'state'),
      previewSinks: () => {},
    });
    expect(locks()).toEqual({ state: true, checkpoints: false, output: false });
    // A run with other folders that writes the same output is not held back by the preview.
    const other = await JobRun.open(job, {
      jobDir: dir,
      stateDir: join(dir, 'state2'),
      checkpointDir: join(dir, 'checkpoints2'),
    });
    await other.run();
    await preview.run();
    expect(locks()).toEqual(NONE);
  });
});
