// sink.postgres through the CLI: generated records upserted and appended at parallelism 1 and 3,
// with checkpoints, leave exactly the rows a clean run must (upsert: each key's last record;
// append: every record once), and no prepared transaction behind. One run of a job with a sink
// of each, each writing a table of its own.
import type pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeRun, type JobDocument, removeTempDirs, runCli } from '../cliHarness.js';
import {
  createSinkTable,
  expectedLines,
  generatorCode,
  sinkRecords,
  sinkRunDir,
} from './postgresSinkJobs.js';
import { adminClient, dropTable, preparedOn, tableLines, uniqueTable } from './postgresSinkTables.js';
import { describeWithServer, PG_URL } from './servers.js';

const COUNT = 6000;
const KEYS = 1500;
const COLUMNS = 'id, k, amount, note, data';

const SINKS = (['upsert', 'append'] as const).flatMap((mode) =>
  [1, 3].map((parallelism) => ({ id: `${mode}-${parallelism}`, mode, parallelism })),
);

let admin: pg.Client;
const tableOf = new Map<string, string>();

/** The generated records into each sink (upserts hash-partitioned on the key, so each key's records keep their order). */
function job(): JobDocument {
  return {
    format: 'pipewright.job/1',
    name: 'pg-sink',
    settings: { checkpointIntervalMs: 100, checkpointsRetained: 3 },
    operators: [
      { id: 'input', kind: 'source.generator', params: { code: generatorCode(KEYS), count: COUNT } },
      ...SINKS.map((sink) => ({
        id: sink.id,
        kind: 'sink.postgres',
        parallelism: sink.parallelism,
        params: {
          connection: PG_URL,
          table: tableOf.get(sink.id),
          mode: sink.mode,
          ...(sink.mode === 'upsert' ? { keyColumns: ['k'] } : {}),
        },
      })),
    ],
    edges: SINKS.map((sink) =>
      sink.mode === 'upsert'
        ? { id: `to-${sink.id}`, from: 'input', to: sink.id, partition: 'hash', key: 'k' }
        : { id: `to-${sink.id}`, from: 'input', to: sink.id, partition: 'rebalance' },
    ),
  };
}

await describeWithServer('postgres', 'sink.postgres runs', () => {
  beforeAll(async () => {
    admin = await adminClient();
    for (const sink of SINKS) {
      const table = uniqueTable(`pwr_${sink.mode}`);
      tableOf.set(sink.id, table);
      await createSinkTable(admin, table, sink.mode);
    }
    const run = await sinkRunDir('runs', job());
    const result = await runCli(['run', run.jobPath, '--quiet'], { cwd: run.dir, timeoutMs: 120_000 });
    expect(result.code, describeRun(result)).toBe(0);
  });
  afterAll(async () => {
    for (const table of tableOf.values()) await dropTable(admin, table);
    await admin.end();
    await removeTempDirs();
  });

  it.each(SINKS)(
    'mode $mode at parallelism $parallelism writes exactly the rows of the input',
    async (sink) => {
      const table = tableOf.get(sink.id)!;
      expect(await tableLines(admin, table, COLUMNS)).toEqual(
        expectedLines(sinkRecords(COUNT, KEYS), sink.mode),
      );
      expect(await preparedOn(admin, table)).toEqual([]);
    },
  );
});
