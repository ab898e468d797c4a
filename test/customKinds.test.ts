// A source kind and a sink kind that live in test code only (test/kinds/sourceCounter and
// test/kinds/sinkCollect, one folder each, no edit elsewhere) run a keyed job through
// checkpoints (test/customKindsJob.ts): in this process, in a child process killed with SIGKILL
// and restored from its latest checkpoint at other parallelisms until it finishes, failed at
// fixed steps in this process and restored (also at other parallelisms), and on a worker thread
// told to load the kind modules. The output must be exactly what the job means, every record
// once, each key's records in order. Kills at random moments: customKinds.soak.test.ts.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ThreadedJobRun } from '../engine/deploy/threadedJobRun.js';
import { defineKind } from '../engine/graph/kinds/kindDescriptor.js';
import { validateJob } from '../engine/graph/validation/validateJob.js';
import { registerKindModule } from '../engine/operators/kindFactories.js';
import {
  crashAndRestore,
  describeAttempts,
  expectRestoredToEnd,
  randomFor as randomForSeed,
  testSeed,
} from './checkpointHelpers.js';
import { expectExactOutput, jobDocument, startRunner, validJob } from './customKindsJob.js';
import { EXECUTORS, runJob } from './executors.js';
import { compiledKindModules, compileKinds } from './kinds/compileKinds.js';
import { kind as sinkCollect } from './kinds/sinkCollect/kind.js';
import { kind as sourceCounter } from './kinds/sourceCounter/kind.js';
import {
  describeStepAttempts,
  expectFailedAndRestored,
  failAndRestore,
  failurePoints,
  wholeRun,
} from './stepFailures.js';

// ------------------------------------------------------------------------------------ set-up

const seed = testSeed('failure points');
const randomFor = (label: string) => randomForSeed(seed, label);
/** In this process a checkpoint is asked for every this many steps (slices of run()). */
const EVERY_STEPS = 4;
const scratch: string[] = [];

async function freshDir(label: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), `pipewright-kinds-${label}-`));
  scratch.push(dir);
  return dir;
}

let unregister: (() => void)[] = [];

beforeAll(async () => {
  // In this process the kinds come in from their TypeScript; a child process or a worker
  // thread loads their build (dist/test/kinds, beside dist/engine).
  unregister = [registerKindModule(sourceCounter), registerKindModule(sinkCollect)];
  await compileKinds();
});

afterAll(async () => {
  for (const undo of unregister) undo();
  for (const dir of scratch) await rm(dir, { recursive: true, force: true });
});

// -------------------------------------------------------------------------------------- tests

// Side by side, each in a folder of its own: the kill test mostly waits on its source's pauses.
describe.concurrent('a source kind and a sink kind from test code', () => {
  // On worker threads each worker loads the compiled kinds it is told to.
  it.each(EXECUTORS)('run a keyed job through checkpoints, exactly once (%s executor)', async (executor) => {
    const dir = await freshDir(executor);
    const job = validJob({ parallelism: 2, perPoll: 20, pauseMs: 1 });
    const summary = await runJob(executor, job, {
      jobDir: dir,
      stateDir: join(dir, 'state'),
      checkpointDir: join(dir, 'checkpoints'),
      kindModules: compiledKindModules,
    });
    expect(summary.checkpoints.length, 'checkpoints completed during the run').toBeGreaterThan(0);
    await expectExactOutput(dir, `${executor} run, checkpoints ${summary.checkpoints.join(', ')}`);
  });

  it('survive kill -9, restored from the latest checkpoint at other parallelisms (2 -> 3 -> 1)', async () => {
    // Right after the first run's first checkpoint, then while the run restored at 3 writes one:
    // both early in their run (whose source pauses 5 ms between polls), so they land however fast
    // or loaded the machine is. Kills at random moments: customKinds.soak.test.ts.
    const dir = await freshDir('kill');
    const parallelisms = [2, 3, 1];
    const writeShape = (attempt: number) =>
      writeFile(
        join(dir, 'job.json'),
        JSON.stringify(
          jobDocument({ parallelism: parallelisms[attempt] ?? 1, perPoll: 20, pauseMs: 5 }),
          null,
          2,
        ),
      );
    const attempts = await crashAndRestore({
      jobPath: join(dir, 'job.json'),
      cwd: dir,
      checkpointDir: join(dir, 'checkpoints'),
      kills: [
        { delayMs: 0, afterCheckpoint: true },
        { delayMs: 0, duringCheckpoint: true },
      ],
      beforeAttempt: writeShape,
      start: (restore) => startRunner(dir, restore),
    });
    const context = describeAttempts(attempts);
    expectRestoredToEnd(attempts, 2, context);
    expect(
      attempts[1]!.killedWhileWriting,
      `the second kill hit a checkpoint being written\n${context}`,
    ).not.toEqual([]);
    for (const attempt of attempts.slice(1))
      expect(attempt.restoredFrom, context).toEqual(expect.any(Number));
    await expectExactOutput(dir, context);
  });

  it.each([
    { label: 'at parallelism 2', parallelismOf: [2, 2, 2, 2] },
    { label: 'restored at parallelism 3, then 1', parallelismOf: [2, 3, 1] },
  ])(
    'fail at fixed steps and restore from the latest checkpoint in this process, $label',
    async ({ label, parallelismOf }) => {
      // test/stepFailures.ts: checkpoints every few steps, failures at steps of a seeded PRNG.
      const job = (attempt: number) =>
        jobDocument({ parallelism: parallelismOf[attempt] ?? 2, perPoll: 50, pauseMs: 0 });
      const whole = await wholeRun(await freshDir('steps'), job(0), EVERY_STEPS);
      const dir = await freshDir('steps');
      const failures = parallelismOf.length - 1;
      const attempts = await failAndRestore({
        jobDir: dir,
        job,
        checkpointEverySteps: EVERY_STEPS,
        failAtSteps: failurePoints(
          randomFor(label),
          failures,
          whole.steps,
          EVERY_STEPS,
          whole.completedAt[0],
        ),
      });
      const context = describeStepAttempts(attempts);
      expectFailedAndRestored(attempts, failures);
      await expectExactOutput(dir, context);
    },
  );

  it('run on a worker thread that loads the kind modules it is given', async () => {
    const dir = await freshDir('thread');
    const job = validJob({ parallelism: 2, perPoll: 50, pauseMs: 1 });
    const options = {
      job,
      jobDir: dir,
      stateDir: join(dir, 'state'),
      checkpointDir: join(dir, 'checkpoints'),
    };
    // Without them the worker knows only the built-in kinds, and says so naming the operator.
    await expect(ThreadedJobRun.start(options).run()).rejects.toThrow(
      /operator "src": kind source\.counter has no implementation loaded/,
    );
    // A module that is not there: one line naming it, before anything is opened.
    const missing = join(dir, 'nowhere', 'kind.js');
    await expect(ThreadedJobRun.start({ ...options, kindModules: [missing] }).run()).rejects.toThrow(
      `cannot load the kind module ${missing}: `,
    );
    const summary = await ThreadedJobRun.start({ ...options, kindModules: compiledKindModules }).run();
    expect(summary.checkpoints.length, 'checkpoints completed during the run').toBeGreaterThan(0);
    await expectExactOutput(dir, `threaded run, checkpoints ${summary.checkpoints.join(', ')}`);
  });
});

describe("a kind module's own checks across its params", () => {
  it("run in the validator as a built-in kind's do, once the module is registered", () => {
    // source.counter with a rule about two of its params, such as a kind module may give: the
    // module registers its descriptor as it is (registerKindModule, which loadKindModule and
    // PIPEWRIGHT_KIND_MODULES go through), hook and all.
    const undo = registerKindModule({
      descriptor: defineKind({
        ...sourceCounter.descriptor,
        kind: 'source.boundedCounter',
        checkParams: (params) =>
          typeof params.perPoll === 'number' &&
          typeof params.count === 'number' &&
          params.perPoll > params.count
            ? [{ code: 'invalid-value', path: ['perPoll'], message: 'params.perPoll is above params.count' }]
            : [],
      }),
      factory: sourceCounter.factory,
    });
    try {
      const job = (perPoll: number) => ({
        ...jobDocument({ parallelism: 1, perPoll, pauseMs: 0 }),
        operators: [
          { id: 'src', kind: 'source.boundedCounter', params: { count: 10, perPoll } },
          { id: 'out', kind: 'sink.collect', params: { dir: 'collected' } },
        ],
        edges: [{ id: 'e1', from: 'src', to: 'out', partition: 'forward' }],
      });
      expect(validateJob(job(10)).problems).toEqual([]);
      expect(validateJob(job(11)).problems).toEqual([
        {
          code: 'invalid-value',
          message: 'operator "src": params.perPoll is above params.count',
          path: '$.operators[0].params.perPoll',
          ids: ['src'],
        },
      ]);
    } finally {
      undo();
    }
  });
});
