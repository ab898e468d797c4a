// Soak: exactly once into PostgreSQL (issue 16, "Must show"): a job writing generated records into a
// table, killed with kill -9 at random moments (once while a checkpoint is being written) and
// restored with `--restore latest` until it finishes, leaves exactly the rows of a clean run:
// in append mode the same multiset of rows, none twice (prepared transactions committed or
// rolled back at the restore); in upsert mode the same table (replays write the same rows).
// Also when the restores run at another parallelism. Kill times come from a seeded PRNG: random
// here, printed; PIPEWRIGHT_TEST_SEED=<seed> repeats them (as far as a machine's timing allows).
// `npm test` has one kill per kind, at fixed moments, in postgresRestore.test.ts.
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  between,
  crashAndRestore,
  describeAttempts,
  describeDifference,
  expectRestoredToEnd,
  type KillPlan,
  randomFor,
  testSeed,
} from '../checkpointHelpers.js';
import { removeTempDirs, writeJob } from '../cliHarness.js';
import {
  createSinkTable,
  expectedLines,
  type SinkJobShape,
  sinkJob,
  sinkRecords,
  sinkRunDir,
} from './postgresSinkJobs.js';
import { adminClient, dropTable, preparedOn, tableLines, uniqueTable } from './postgresSinkTables.js';
import { describeWithServer } from './servers.js';

const seed = testSeed();
// About four seconds of input at the generator's pace: the kills fall mid-run.
const COUNT = 12_000;
const RATE = 3000;
const KEYS = 2500;
const COLUMNS = 'id, k, amount, note, data';

let admin: pg.Client;
const tables: string[] = [];

/** Each run killed at a random moment after a checkpoint of its own; the second while one is being written. */
function kills(random: () => number): KillPlan[] {
  return [0, 1, 2].map((i) => ({
    delayMs: between(random, 0, 1500),
    afterCheckpoint: true,
    duringCheckpoint: i === 1,
  }));
}

await describeWithServer('postgres', 'sink.postgres, kill -9 and --restore latest', () => {
  beforeAll(async () => {
    admin = await adminClient();
  });
  afterAll(async () => {
    for (const table of tables) await dropTable(admin, table);
    await admin.end();
    await removeTempDirs();
  });

  describe.each(['append', 'upsert'] as const)('mode %s', (mode) => {
    it.each([
      [3, 3],
      [3, 2],
    ])(
      'killed at parallelism %i, restored at %i until done: exactly the rows of a clean run',
      async (from, to) => {
        const random = randomFor(seed, `${mode} ${from} -> ${to}`);
        const table = uniqueTable(`pwk_${mode}`);
        tables.push(table);
        await createSinkTable(admin, table, mode);
        const shape = (attempt: number): SinkJobShape => ({
          table,
          count: COUNT,
          keys: KEYS,
          mode,
          parallelism: attempt === 0 ? from : to,
          intervalMs: 100,
          ratePerSec: RATE,
        });
        const run = await sinkRunDir(`kill-${mode}`, sinkJob(shape(0)));
        const attempts = await crashAndRestore({
          ...run,
          cwd: run.dir,
          kills: kills(random),
          beforeAttempt: (attempt) => writeJob(run.jobPath, sinkJob(shape(attempt))),
          timeoutMs: 120_000,
        });
        const context = `seed ${seed}\n${describeAttempts(attempts)}`;
        console.log(`sink.postgres ${mode} ${from} -> ${to}:\n${context}`);
        expectRestoredToEnd(attempts, 2, context);
        const difference = describeDifference(
          await tableLines(admin, table, COLUMNS),
          expectedLines(sinkRecords(COUNT, KEYS), mode),
        );
        expect(difference, context).toBe('');
        expect(await preparedOn(admin, table), context).toEqual([]);
      },
    );
  });
});
