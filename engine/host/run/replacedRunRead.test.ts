// A state read that began on a run and waited (for the run to let go of its stores) must not open
// that run's state folder once a new run has replaced it: the new run owns the folder then, and a
// reader holding LevelDB's lock on it kept the new run from opening (the host's protocol fuzz met
// this as an "internal error" with a stack trace in run.start's answer).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { planJob } from '../../graph/plan.js';
import type { Job } from '../../graph/schema.js';
import { validateJob } from '../../graph/validation/validateJob.js';
import { LevelKvStore } from '../../state/levelKvStore.js';
import type { DrivenRun } from './drivenRun.js';
import { createStateMethods, type RunEntry } from './stateMethods.js';

let dir = '';
afterEach(() => rm(dir, { recursive: true, force: true }));

const JOB_TEXT = {
  format: 'pipewright.job/1',
  name: 'counts',
  settings: { stateBackend: 'level' },
  operators: [
    {
      id: 'gen',
      kind: 'source.generator',
      params: { code: 'function generate(i) { return { k: i }; }', count: 1 },
    },
    { id: 'count', kind: 'process', params: { code: 'function process(r, ctx) { ctx.emit(r); }' } },
  ],
  edges: [{ id: 'e1', from: 'gen', to: 'count', partition: 'hash', key: 'k' }],
};

/** A run whose live store fails to browse (it is closing) and that lets go when told to. */
function closingRun(runId: string, job: Job, stateDir: string) {
  let release = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let active = true;
  const run = {
    runId,
    job,
    dirs: { stateDir, checkpointDir: join(stateDir, '..', 'checkpoints') },
    get active() {
      return active;
    },
    liveStateUnavailable: () => undefined,
    liveStore: () => ({ browse: () => Promise.reject(new Error('the store is closed')) }),
    released,
  } as unknown as DrivenRun;
  return {
    run,
    end() {
      active = false;
      release();
    },
  };
}

it('a read that waited for its run to close refuses once another run replaced it, and leaves the folder unlocked', async () => {
  dir = await mkdtemp(join(tmpdir(), 'pipewright-replaced-read-'));
  const { job } = validateJob(JOB_TEXT);
  if (job === undefined) throw new Error('the test job is not valid');
  const stateDir = join(dir, 'state');
  // The folder the old run left: a real LevelDB, so a reader could open it.
  const folder = join(stateDir, 'subtasks', 'count-0');
  await (await LevelKvStore.open(folder, 1 << 20)).close();

  const old = closingRun('run-1', job, stateDir);
  let current: RunEntry | undefined = { run: old.run, plan: planJob(job) };
  const runOf = (method: string, runId: string): RunEntry => {
    if (current?.run.runId === runId) return current;
    throw new Error(`${method}: there is no run ${runId}`);
  };
  const state = createStateMethods(runOf);
  try {
    const read = state.methods['state.page'].run({
      runId: 'run-1',
      operator: 'count',
      subtask: 0,
      limit: 10,
    });
    // As run.start does: the old run is dropped and its stored states closed before the new run opens.
    await new Promise((resolve) => setTimeout(resolve, 20));
    current = undefined;
    await state.closeStoredStates();
    old.end();
    await expect(read).rejects.toThrow('state.page: there is no run run-1');
    // Nothing holds the folder: the new run can open it.
    await (await LevelKvStore.open(folder, 1 << 20)).close();
  } finally {
    await state.close();
  }
});
