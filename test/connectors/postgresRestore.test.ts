// source.postgres and sink.postgres under a real kill -9 (issue 16, "Must show"), each killed and
// restored with `--restore latest` until a run ends by itself (the two jobs run side by side):
//  - source.postgres -> sink.jsonl: a table's snapshot, changes made while the first run streams
//    and more made between runs (some in transactions of hundreds of changes): the sink holds
//    exactly the records a clean reading gives, in order. The killed runs read without a bound;
//    the last reads up to the log's end when it opened (stopAt "current");
//  - generated records -> sink.postgres in append mode and in upsert mode, at parallelism 3 and
//    then 2: the append table holds every record once (the transactions prepared at the kill
//    committed or rolled back at the restore, none left prepared), the upsert table each key's
//    last record.
// Kills at random moments, more of them, at full size: postgresSourceRestore.soak.test.ts and
// postgresSinkRestore.soak.test.ts. (Restores at fixed steps in this process, as
// test/stepFailures.ts makes them, do not fit here: stepping a run stalls once a subtask waits on
// its server.)
import path from 'node:path';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  crashAndRestore,
  describeAttempts,
  describeDifference,
  expectRestoredToEnd,
  inspectCheckpointDir,
  type KillPlan,
  outputLines,
  waitUntil,
} from '../checkpointHelpers.js';
import { type JobDocument, makeTempDir, removeTempDirs, writeJob } from '../cliHarness.js';
import { withKeepAlive } from './keepAlive.js';
import { createSinkTable, expectedLines, generatorCode, sinkRecords } from './postgresSinkJobs.js';
import { adminClient, dropTable, preparedOn, tableLines, uniqueTable } from './postgresSinkTables.js';
import { dropAll, ModelTable, uniqueName, withClient } from './postgresSourceTables.js';
import { describeWithServer, PG_URL } from './servers.js';

afterAll(removeTempDirs);

/**
 * Right after a checkpoint completes; then, in the restored run, while one is being written. The
 * killed runs go on until killed; the last one runs to its end.
 */
const KILLS: KillPlan[] = [
  { delayMs: 0, afterCheckpoint: true },
  { delayMs: 0, duringCheckpoint: true },
];

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

/** The table's changes -> out/changes.jsonl; unbounded, or up to the log's end at the start. */
function sourceJob(table: string, prefix: string, bounded: boolean): JobDocument {
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

const COUNT = 3000;
const KEYS = 700;
const COLUMNS = 'id, k, amount, note, data';

/** Generated records (a second of them at the generator's pace) into an append and an upsert table. */
function sinkJob(tables: { append: string; upsert: string }, parallelism: number): JobDocument {
  const sink = (id: string, table: string, mode: 'append' | 'upsert') => ({
    id,
    kind: 'sink.postgres',
    parallelism,
    params: { connection: PG_URL, table, mode, ...(mode === 'upsert' ? { keyColumns: ['k'] } : {}) },
  });
  return {
    format: 'pipewright.job/1',
    name: 'pg-sink',
    settings: { checkpointIntervalMs: 100, checkpointsRetained: 3 },
    operators: [
      {
        id: 'input',
        kind: 'source.generator',
        params: { code: generatorCode(KEYS), count: COUNT, ratePerSec: COUNT },
      },
      sink('append', tables.append, 'append'),
      sink('upsert', tables.upsert, 'upsert'),
    ],
    edges: [
      { id: 'to-append', from: 'input', to: 'append', partition: 'rebalance' },
      // Hash-partitioned on the key, so that each key's records keep their order.
      { id: 'to-upsert', from: 'input', to: 'upsert', partition: 'hash', key: 'k' },
    ],
  };
}

await describeWithServer('postgres', 'source.postgres and sink.postgres under kill -9', () => {
  let admin: pg.Client;
  const tables: string[] = [];
  beforeAll(async () => {
    admin = await adminClient();
  });
  afterAll(async () => {
    for (const table of tables) await dropTable(admin, table);
    await admin.end();
  });

  describe.concurrent('each killed and restored', () => {
    it('source.postgres ends with exactly the records of a clean reading, in order', async () => {
      const prefix = uniqueName('pwsrc');
      const table = new ModelTable(`${prefix}_t`);
      const dir = await makeTempDir('pipewright-pgsource-kill-');
      const jobPath = path.join(dir, 'pgcdc.job.json');
      const checkpointDir = path.join(dir, '.pipewright', 'pgcdc', 'checkpoints');
      try {
        await table.create(1000);
        // While the first run streams (once its snapshot is checkpointed): small transactions.
        let duringFirstRun: Promise<void> = Promise.resolve();
        const attempts = await crashAndRestore({
          jobPath,
          cwd: dir,
          checkpointDir,
          kills: KILLS,
          beforeAttempt: async (attempt) => {
            await writeJob(jobPath, sourceJob(table.name, prefix, attempt >= KILLS.length));
            if (attempt === 0) {
              duringFirstRun = withClient(async (client) => {
                await waitUntil(() => inspectCheckpointDir(checkpointDir).completed.length > 0, {
                  timeoutMs: 60_000,
                });
                for (let k = 1; k <= 30; k++) {
                  await table.transaction(client, { insert: [10_000 + k], update: [k], remove: [500 + k] });
                }
              });
            }
            if (attempt === 1) {
              await duringFirstRun;
              await withClient(async (client) => {
                await table.transaction(client, { update: range(101, 500), note: 'big' });
                await table.transaction(client, { insert: range(20_001, 21_500) });
                await table.transaction(client, { remove: range(601, 900) });
                for (let k = 1; k <= 30; k++) {
                  await table.transaction(client, {
                    insert: [30_000 + k],
                    update: [40 + k],
                    remove: [900 + k],
                  });
                }
              });
            }
          },
        });
        const context = describeAttempts(attempts);
        expectRestoredToEnd(attempts, KILLS.length, context);
        const lines = await outputLines(path.join(dir, 'out', 'changes.jsonl'));
        const expected = table.lines();
        expect(describeDifference(lines, expected), context).toBe('');
        expect(lines, context).toEqual(expected);
      } finally {
        await dropAll(table.name, prefix);
      }
    });

    it('sink.postgres at parallelism 3, restored at 2: exactly the rows of a clean run, append and upsert', async () => {
      const names = { append: uniqueTable('pwk_append'), upsert: uniqueTable('pwk_upsert') };
      tables.push(names.append, names.upsert);
      await createSinkTable(admin, names.append, 'append');
      await createSinkTable(admin, names.upsert, 'upsert');
      const dir = await makeTempDir('pipewright-pgsink-kill-');
      const jobPath = path.join(dir, 'pg-sink.job.json');
      const attempts = await crashAndRestore({
        jobPath,
        cwd: dir,
        checkpointDir: path.join(dir, '.pipewright', 'pg-sink', 'checkpoints'),
        kills: KILLS,
        beforeAttempt: (attempt) =>
          writeJob(
            jobPath,
            withKeepAlive(
              sinkJob(names, attempt === 0 ? 3 : 2),
              ['append', 'upsert'],
              attempt >= KILLS.length,
            ),
          ),
      });
      const context = describeAttempts(attempts);
      expectRestoredToEnd(attempts, KILLS.length, context);
      const records = sinkRecords(COUNT, KEYS);
      for (const mode of ['append', 'upsert'] as const) {
        const difference = describeDifference(
          await tableLines(admin, names[mode], COLUMNS),
          expectedLines(records, mode),
        );
        expect(difference, `${mode}\n${context}`).toBe('');
        expect(await preparedOn(admin, names[mode]), `${mode}\n${context}`).toEqual([]);
      }
    });
  });
});
