// Soak: a source kind and a sink kind that live in test code only (test/kinds/sourceCounter and
// test/kinds/sinkCollect) run a keyed job (test/customKindsJob.ts) in a child process killed with
// SIGKILL at random moments and restored from its latest checkpoint (also at other
// parallelisms) until it finishes. The output must be exactly what the job means, every record
// once, each key's records in order. Kill times come from a seeded PRNG: random here, printed, and
// PIPEWRIGHT_TEST_SEED=<seed> repeats them. `npm test` has one real kill and the same restores at
// fixed points in its own process (test/customKinds.test.ts).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  finish,
  inspectCheckpointDir,
  killHard,
  seededRandom,
  testSeed,
  waitUntil,
} from './checkpointHelpers.js';
import type { CliResult } from './cliHarness.js';
import { expectExactOutput, jobDocument, startRunner } from './customKindsJob.js';
import { compileKinds } from './kinds/compileKinds.js';

const seed = testSeed();
const scratch: string[] = [];

async function freshDir(label: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), `pipewright-kinds-${label}-`));
  scratch.push(dir);
  return dir;
}

beforeAll(async () => {
  // A child process loads the kinds' build (dist/test/kinds, beside dist/engine).
  await compileKinds();
});

afterAll(async () => {
  for (const dir of scratch) await rm(dir, { recursive: true, force: true });
});

// ------------------------------------------------------------------------------- child runs

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
  it('survive kill -9 at random moments, restored from the latest checkpoint each time', async () => {
    const dir = await freshDir('kill');
    await expectKilledAndRestored(dir, [2, 2, 2], 1);
  });

  it('survive kill -9 with restores at other parallelisms (2 -> 3 -> 1)', async () => {
    const dir = await freshDir('rescale');
    await expectKilledAndRestored(dir, [2, 3, 1], 2);
  });
});
