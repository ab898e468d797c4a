// A source kind and a sink kind that live in test code only (test/kinds/sourceCounter and
// test/kinds/sinkCollect, one folder each, no edit elsewhere) run a keyed job through
// checkpoints: in this process, in a child process killed with SIGKILL at random moments and
// restored from its latest checkpoint (also at other parallelisms) until it finishes, and on a
// worker thread told to load the kind modules. The output must be exactly what the job means,
// every record once, each key's records in order.
// Kill times come from a seeded PRNG: the seed is printed, and PIPEWRIGHT_TEST_SEED=<seed>
// repeats them.
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ThreadedJobRun } from '../engine/deploy/threadedJobRun.js';
import { defineKind } from '../engine/graph/kinds/kindDescriptor.js';
import type { Job } from '../engine/graph/schema.js';
import { validateJob } from '../engine/graph/validation/validateJob.js';
import { registerKindModule } from '../engine/operators/kindFactories.js';
import {
  describeDifference,
  finish,
  inspectCheckpointDir,
  killHard,
  type RunningCli,
  seededRandom,
  startNode,
  testSeed,
  waitUntil,
} from './checkpointHelpers.js';
import type { CliResult } from './cliHarness.js';
import { EXECUTORS, runJob } from './executors.js';
import { compiledKindModules, compiledRunner, compileKinds } from './kinds/compileKinds.js';
import { collectedLines } from './kinds/sinkCollect/collectFiles.js';
import { kind as sinkCollect } from './kinds/sinkCollect/kind.js';
import { kind as sourceCounter } from './kinds/sourceCounter/kind.js';

// ------------------------------------------------------------------------------------ the job

/** Keys are runs of KEY_WIDTH numbers; COUNT splits evenly at parallelism 1, 2 and 3 on key bounds. */
const COUNT = 4200;
const KEY_WIDTH = 100;
const KEYS = COUNT / KEY_WIDTH;

const MAP_CODE = `function map(record, ctx) {
  return { k: Math.floor(record.n / ${KEY_WIDTH}), n: record.n };
}`;

/** Per key, a running count and sum in keyed state: a record lost or repeated changes every later line. */
const PROCESS_CODE = `function process(record, ctx) {
  const total = ctx.state.value('total');
  const t = total.get() ?? { count: 0, sum: 0 };
  t.count += 1;
  t.sum += record.n;
  total.set(t);
  ctx.emit({ k: record.k, n: record.n, count: t.count, sum: t.sum });
}`;

interface JobShape {
  readonly parallelism: number;
  readonly perPoll: number;
  readonly pauseMs: number;
}

/**
 * src (source.counter) -> keyOf (map) -> total (process, keyed by k) -> out (sink.collect). The
 * forward edges keep a key's records in one reader's order (a key's numbers lie in one split).
 */
function jobDocument({ parallelism, perPoll, pauseMs }: JobShape): Record<string, unknown> {
  return {
    format: 'pipewright.job/1',
    name: 'custom-kinds',
    settings: { checkpointIntervalMs: 50 },
    operators: [
      { id: 'src', kind: 'source.counter', parallelism, params: { count: COUNT, perPoll, pauseMs } },
      { id: 'keyOf', kind: 'map', parallelism, params: { code: MAP_CODE } },
      { id: 'total', kind: 'process', parallelism, params: { code: PROCESS_CODE } },
      { id: 'out', kind: 'sink.collect', parallelism, params: { dir: 'collected' } },
    ],
    edges: [
      { id: 'e1', from: 'src', to: 'keyOf', partition: 'forward' },
      { id: 'e2', from: 'keyOf', to: 'total', partition: 'hash', key: 'k' },
      { id: 'e3', from: 'total', to: 'out', partition: 'forward' },
    ],
  };
}

function validJob(shape: JobShape): Job {
  const { job, problems } = validateJob(jobDocument(shape));
  expect(problems).toEqual([]);
  return job!;
}

/** What the job means, computed without the engine: one line per number, by key in order. */
function expectedLines(): string[] {
  const lines: string[] = [];
  for (let k = 0; k < KEYS; k++) {
    let sum = 0;
    for (let j = 0; j < KEY_WIDTH; j++) {
      const n = k * KEY_WIDTH + j;
      sum += n;
      lines.push(JSON.stringify({ k, n, count: j + 1, sum }));
    }
  }
  return lines;
}

/** Each key's numbers in the order the output has them. */
function perKeyOrder(lines: readonly string[]): Map<number, number[]> {
  const byKey = new Map<number, number[]>();
  for (const line of lines) {
    const { k, n } = JSON.parse(line) as { k: number; n: number };
    const ns = byKey.get(k) ?? [];
    ns.push(n);
    byKey.set(k, ns);
  }
  return byKey;
}

const expected = expectedLines();

/** The sink's committed output is exactly the job's: as a multiset, and in each key's order. */
async function expectExactOutput(dir: string, context: string): Promise<void> {
  const actual = await collectedLines(join(dir, 'collected'));
  expect(describeDifference(actual, expected), context).toBe('');
  expect(perKeyOrder(actual), `${context}\neach key's records in order`).toEqual(perKeyOrder(expected));
  // Every staged file was committed (or, on a restore, discarded).
  const staged = await readdir(join(dir, 'collected', 'staging')).catch(() => [] as string[]);
  expect(staged, `${context}\nstaged files left over`).toEqual([]);
}

// ------------------------------------------------------------------------------------ set-up

const seed = testSeed();
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

// ------------------------------------------------------------------------------- child runs

/** Starts the compiled runner (runWithKinds.ts) on `jobPath`, without waiting for it. */
function startRunner(dir: string, restore: boolean): RunningCli {
  const args = [
    compiledRunner,
    join(dir, 'job.json'),
    '--state-dir',
    join(dir, 'state'),
    '--checkpoint-dir',
    join(dir, 'checkpoints'),
    ...(restore ? ['--restore', 'latest'] : []),
  ];
  return startNode(args, dir);
}

interface Attempt {
  readonly parallelism: number;
  readonly newestBefore: number | undefined;
  /** Milliseconds after this attempt's first completed checkpoint that it was killed; undefined: not killed. */
  readonly killedAfterMs: number | undefined;
  readonly result: CliResult;
}

function describeAttempts(attempts: readonly Attempt[]): string {
  return attempts
    .map((a, i) => {
      const outcome =
        a.killedAfterMs === undefined
          ? `exit ${a.result.code ?? a.result.signal}`
          : `killed ${a.killedAfterMs} ms after its first checkpoint`;
      const said = a.result.stderr.trim().split('\n').join(' | ');
      return `  #${i} at parallelism ${a.parallelism}: newest checkpoint before ${a.newestBefore ?? 'none'}; ${outcome}; said: ${said}`;
    })
    .join('\n');
}

/**
 * Runs the job in a child process at `parallelisms[0]`, kills it with SIGKILL a random time
 * (up to `maxDelayMs`) after it completed a checkpoint of its own, restores it from the latest
 * checkpoint at the next parallelism, and so on; the last attempt runs to its end, and so does
 * one that ends before its kill.
 */
async function crashAndRestore(
  dir: string,
  parallelisms: readonly number[],
  random: () => number,
  maxDelayMs: number,
): Promise<Attempt[]> {
  const checkpointDir = join(dir, 'checkpoints');
  const attempts: Attempt[] = [];
  for (let i = 0; i < parallelisms.length; i++) {
    const parallelism = parallelisms[i]!;
    const last = i === parallelisms.length - 1;
    await writeFile(
      join(dir, 'job.json'),
      JSON.stringify(jobDocument({ parallelism, perPoll: 10, pauseMs: 5 }), null, 2),
    );
    const newestBefore = inspectCheckpointDir(checkpointDir).completed[0];
    const run = startRunner(dir, i > 0);
    let killedAfterMs: number | undefined;
    if (!last) {
      const delayMs = Math.round(random() * maxDelayMs);
      const checkpointed = await waitUntil(
        () => {
          const newest = inspectCheckpointDir(checkpointDir).completed[0];
          return newest !== undefined && newest !== newestBefore;
        },
        { run, timeoutMs: 20_000 },
      );
      if (checkpointed) {
        const from = Date.now();
        await waitUntil(() => Date.now() >= from + delayMs, { run, timeoutMs: 20_000, everyMs: 2 });
        if (!run.exited()) {
          await killHard(run);
          killedAfterMs = delayMs;
        }
      }
    }
    const result = await finish(run, 30_000, `attempt ${i}`);
    attempts.push({
      parallelism,
      newestBefore,
      killedAfterMs: result.signal === 'SIGKILL' ? killedAfterMs : undefined,
      result,
    });
    if (!last && attempts.at(-1)!.killedAfterMs === undefined) break;
  }
  return attempts;
}

async function expectKilledAndRestored(dir: string, parallelisms: readonly number[], stream: number) {
  // One stream of kill times per test, so that each repeats on its own.
  const random = seededRandom((seed + stream * 0x9e3779b1) >>> 0);
  const attempts = await crashAndRestore(dir, parallelisms, random, 300);
  const context = `seed ${seed} (PIPEWRIGHT_TEST_SEED=${seed} repeats it)\n${describeAttempts(attempts)}`;
  // The first run was killed mid-run, after a checkpoint; a later one may end before its kill
  // (little may be left), and the last one ended by itself.
  expect(attempts[0]!.killedAfterMs, context).toBeDefined();
  expect(attempts.length, context).toBeGreaterThanOrEqual(2);
  expect(attempts.at(-1)!.killedAfterMs, context).toBeUndefined();
  expect(attempts.at(-1)!.result.code, context).toBe(0);
  for (const attempt of attempts.slice(1)) {
    expect(attempt.result.stderr, context).toMatch(/restoring checkpoint \d+/);
  }
  await expectExactOutput(dir, context);
}

// -------------------------------------------------------------------------------------- tests

describe('a source kind and a sink kind from test code', () => {
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

  it('survive kill -9 at random moments, restored from the latest checkpoint each time', async () => {
    const dir = await freshDir('kill');
    await expectKilledAndRestored(dir, [2, 2, 2], 1);
  });

  it('survive kill -9 with restores at other parallelisms (2 -> 3 -> 1)', async () => {
    const dir = await freshDir('rescale');
    await expectKilledAndRestored(dir, [2, 3, 1], 2);
  });

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
