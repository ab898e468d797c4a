// Soak: source.postgres exactly once under kill -9: a table's snapshot, changes made while the first
// run streams, and more made between restarts (some in transactions of 1500 changes, so kills
// fall inside a transaction and a restore must skip the changes of it already emitted), read
// into a jsonl sink by runs killed at random moments and restored with `--restore latest` until
// one ends by itself: the sink must hold exactly the records a clean reading gives, in order.
// The first run reads without a bound and is killed after its first checkpoint (its snapshot is
// then read: checkpoints wait for it); the restores read up to the log's end when the first of
// them opened (stopAt "current"), so every run after it reads the same changes. Kill times come
// from a seeded PRNG: random here, printed; PIPEWRIGHT_TEST_SEED repeats them (as far as a
// machine's timing allows). `npm test` has one kill per kind, at fixed moments, in
// postgresRestore.test.ts.
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import {
  between,
  crashAndRestore,
  describeAttempts,
  describeDifference,
  inspectCheckpointDir,
  type KillPlan,
  outputLines,
  randomFor,
  testSeed,
  waitUntil,
} from '../checkpointHelpers.js';
import { type JobDocument, makeTempDir, removeTempDirs, writeJob } from '../cliHarness.js';
import { dropAll, ModelTable, uniqueName, withClient } from './postgresSourceTables.js';
import { describeWithServer, PG_URL } from './servers.js';

afterAll(removeTempDirs);

const seed = testSeed();
const SNAPSHOT_ROWS = 4000;
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

function job(table: string, prefix: string, bounded: boolean): JobDocument {
  return {
    format: 'pipewright.job/1',
    name: 'pgcdc',
    settings: { checkpointIntervalMs: 50, checkpointsRetained: 3 },
    operators: [
      {
        id: 'src',
        kind: 'source.postgres',
        parallelism: 1,
        params: {
          connection: PG_URL,
          table,
          slot: `${prefix}_slot`,
          publication: `${prefix}_pub`,
          ...(bounded ? { stopAt: 'current' } : {}),
        },
      },
      { id: 'out', kind: 'sink.jsonl', parallelism: 1, params: { path: 'out/changes.jsonl' } },
    ],
    edges: [{ id: 'e', from: 'src', to: 'out', partition: 'forward' }],
  };
}

await describeWithServer('postgres', 'source.postgres under kill -9', () => {
  it('ends with exactly the records of a clean reading, in order', async () => {
    const random = randomFor(seed, 'postgres source kills');
    const prefix = uniqueName('pwsrc');
    const table = new ModelTable(`${prefix}_t`);
    const dir = await makeTempDir('pipewright-pgsource-kill-');
    const jobPath = path.join(dir, 'pgcdc.job.json');
    const checkpointDir = path.join(dir, '.pipewright', 'pgcdc', 'checkpoints');
    try {
      await table.create(SNAPSHOT_ROWS);
      // While the first run streams (once its snapshot is checkpointed): 100 small transactions.
      let duringFirstRun: Promise<void> = Promise.resolve();
      const kills: KillPlan[] = [
        { delayMs: between(random, 0, 200), afterCheckpoint: true },
        // Soon after the restore's first checkpoint: its bounded read (some 30,000 changes) must
        // still be under way. Up to 100 ms let a fast run end first (seed 420274944: at 81 ms).
        { delayMs: between(random, 0, 25), afterCheckpoint: true },
        { delayMs: between(random, 0, 50), afterCheckpoint: true, duringCheckpoint: true },
        { delayMs: between(random, 0, 12_000) },
      ];
      const attempts = await crashAndRestore({
        jobPath,
        cwd: dir,
        checkpointDir,
        kills,
        timeoutMs: 60_000,
        beforeAttempt: async (attempt) => {
          await writeJob(jobPath, job(table.name, prefix, attempt > 0));
          if (attempt === 0) {
            duringFirstRun = withClient(async (client) => {
              await waitUntil(() => inspectCompleted(checkpointDir), { timeoutMs: 60_000 });
              for (let k = 1; k <= 100; k++) {
                await table.transaction(client, { insert: [10_000 + k], update: [k], remove: [2000 + k] });
              }
            });
          }
          if (attempt === 1) {
            await duringFirstRun;
            await withClient(async (client) => {
              await table.transaction(client, { update: range(101, 1600), note: 'big' });
              await table.transaction(client, {
                update: range(1, 4000).filter((id) => table.rows.has(id)),
                note: 'all',
              });
              await table.transaction(client, { insert: range(40_001, 60_000) });
              await table.transaction(client, { remove: range(3001, 3500) });
              for (let k = 1; k <= 100; k++) {
                await table.transaction(client, {
                  insert: [30_000 + k],
                  update: [1600 + k],
                  remove: [3500 + k],
                });
              }
            });
          }
        },
      });
      const context = `seed ${seed}\n${describeAttempts(attempts)}`;
      console.log(`source.postgres under kill -9:\n${context}`);
      const last = attempts.at(-1)!;
      expect(last.result.code, `${context}\n${last.result.stderr}`).toBe(0);
      const lines = await outputLines(path.join(dir, 'out', 'changes.jsonl'));
      const expected = table.lines();
      expect(describeDifference(lines, expected), context).toBe('');
      expect(lines, context).toEqual(expected);
      expect(attempts.filter((a) => a.killed).length, context).toBeGreaterThanOrEqual(2);
    } finally {
      await dropAll(table.name, prefix);
    }
  });
});

function inspectCompleted(checkpointDir: string): boolean {
  try {
    return inspectCheckpointDir(checkpointDir).completed.length > 0;
  } catch {
    return false;
  }
}
