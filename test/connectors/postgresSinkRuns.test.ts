// sink.postgres through the CLI: generated records upserted and appended at parallelism 1 and 3,
// with checkpoints, leave exactly the rows a clean run must (upsert: each key's last record;
// append: every record once), and no prepared transaction behind. The four runs go side by side.
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeRun, removeTempDirs, runCli } from '../cliHarness.js';
import { createSinkTable, expectedLines, sinkJob, sinkRecords, sinkRunDir } from './postgresSinkJobs.js';
import { adminClient, dropTable, preparedOn, tableLines, uniqueTable } from './postgresSinkTables.js';
import { describeWithServer } from './servers.js';

const COUNT = 6000;
const KEYS = 1500;
const COLUMNS = 'id, k, amount, note, data';

let admin: pg.Client;
const tables: string[] = [];

await describeWithServer('postgres', 'sink.postgres runs', () => {
  beforeAll(async () => {
    admin = await adminClient();
  });
  afterAll(async () => {
    for (const table of tables) await dropTable(admin, table);
    await admin.end();
    await removeTempDirs();
  });

  describe.concurrent.each(['upsert', 'append'] as const)('mode %s', (mode) => {
    it.each([1, 3])('at parallelism %i writes exactly the rows of the input', async (parallelism) => {
      const table = uniqueTable(`pwr_${mode}`);
      tables.push(table);
      await createSinkTable(admin, table, mode);
      const run = await sinkRunDir(
        mode,
        sinkJob({ table, count: COUNT, keys: KEYS, mode, parallelism, intervalMs: 100 }),
      );
      const result = await runCli(['run', run.jobPath, '--quiet'], { cwd: run.dir, timeoutMs: 120_000 });
      expect(result.code, describeRun(result)).toBe(0);
      expect(await tableLines(admin, table, COLUMNS)).toEqual(expectedLines(sinkRecords(COUNT, KEYS), mode));
      expect(await preparedOn(admin, table)).toEqual([]);
    });
  });
});
