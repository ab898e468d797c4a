// Soak (a server of its own, started and stopped): source.postgres while its server goes away: a
// PostgreSQL of the test's own is stopped for a few seconds while the job streams; the reader
// reconnects with backoff from the position it had emitted, and the sink holds every change exactly
// once, in order (changes made before the stop and after the return).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { validateJob } from '../../engine/graph/validation/validateJob.js';
import { outputLines } from '../checkpointHelpers.js';
import { openJob } from '../executors.js';
import { ModelTable, waitUntilLines, withClient } from './postgresSourceTables.js';
import { type PrivatePostgres, startPrivatePostgres } from './privateServers.js';
import { describeWithServer } from './servers.js';

let server: PrivatePostgres | undefined;
let dir: string;

await describeWithServer('postgres', 'source.postgres and a server outage', () => {
  beforeAll(async () => {
    server = await startPrivatePostgres();
    dir = await mkdtemp(path.join(tmpdir(), 'pipewright-pgsource-outage-'));
  });
  afterAll(async () => {
    await server?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('reconnects after the server returns, nothing lost or doubled', async () => {
    const url = server!.url;
    const table = new ModelTable('outage_t', url);
    await table.create(200);
    const { job, problems } = validateJob({
      format: 'pipewright.job/1',
      name: 'pgoutage',
      settings: { checkpointIntervalMs: 50 },
      operators: [
        {
          id: 'src',
          kind: 'source.postgres',
          parallelism: 1,
          params: { connection: url, table: table.name, retryTimeoutMs: 60_000 },
        },
        { id: 'out', kind: 'sink.jsonl', parallelism: 1, params: { path: 'out.jsonl' } },
      ],
      edges: [{ id: 'e', from: 'src', to: 'out', partition: 'forward' }],
    });
    expect(problems).toEqual([]);
    const run = await openJob('deterministic', job!, {
      jobDir: dir,
      stateDir: path.join(dir, 'state'),
      checkpointDir: path.join(dir, 'checkpoints'),
    });
    const done = run.run();
    const out = path.join(dir, 'out.jsonl');
    expect(await waitUntilLines(out, 200, 40_000)).toBe(true);
    await withClient(async (client) => {
      for (let k = 1; k <= 20; k++)
        await table.transaction(client, { insert: [1000 + k], update: [k], remove: [100 + k] });
    }, url);
    expect(await waitUntilLines(out, table.records.length, 40_000)).toBe(true);
    await server!.stop();
    await new Promise((resolve) => setTimeout(resolve, 3000));
    await server!.start();
    await withClient(async (client) => {
      for (let k = 21; k <= 40; k++)
        await table.transaction(client, { insert: [1000 + k], update: [k], remove: [100 + k] });
    }, url);
    expect(await waitUntilLines(out, table.records.length, 40_000)).toBe(true);
    run.stop();
    await done;
    expect(await outputLines(out)).toEqual(table.lines());
  });

  it('ends a bounded read on a server nobody else writes to', async () => {
    const url = server!.url;
    const jobDir = await mkdtemp(path.join(tmpdir(), 'pipewright-pgsource-idle-'));
    try {
      const { job } = validateJob({
        format: 'pipewright.job/1',
        name: 'pgidle',
        settings: { checkpointIntervalMs: 50 },
        operators: [
          {
            id: 'src',
            kind: 'source.postgres',
            parallelism: 1,
            params: { connection: url, table: 'outage_t', stopAt: 'current' },
          },
          { id: 'out', kind: 'sink.jsonl', parallelism: 1, params: { path: 'out.jsonl' } },
        ],
        edges: [{ id: 'e', from: 'src', to: 'out', partition: 'forward' }],
      });
      await openJob('deterministic', job!, {
        jobDir,
        stateDir: path.join(jobDir, 'state'),
        checkpointDir: path.join(jobDir, 'checkpoints'),
      }).then((run) => run.run());
      const count = await withClient(
        async (client) => (await client.query('SELECT count(*)::int AS n FROM outage_t')).rows[0].n,
        url,
      );
      expect((await outputLines(path.join(jobDir, 'out.jsonl'))).length).toBe(count);
    } finally {
      await rm(jobDir, { recursive: true, force: true });
    }
  });

  it('fails naming the operator and server once the server stays away longer than retryTimeoutMs', async () => {
    const url = server!.url;
    const jobDir = await mkdtemp(path.join(tmpdir(), 'pipewright-pgsource-gone-'));
    try {
      const { job } = validateJob({
        format: 'pipewright.job/1',
        name: 'pggone',
        settings: { checkpointIntervalMs: 50 },
        operators: [
          {
            id: 'src',
            kind: 'source.postgres',
            parallelism: 1,
            params: { connection: url, table: 'outage_t', retryTimeoutMs: 1000 },
          },
          { id: 'out', kind: 'sink.jsonl', parallelism: 1, params: { path: 'out.jsonl' } },
        ],
        edges: [{ id: 'e', from: 'src', to: 'out', partition: 'forward' }],
      });
      const run = await openJob('deterministic', job!, {
        jobDir,
        stateDir: path.join(jobDir, 'state'),
        checkpointDir: path.join(jobDir, 'checkpoints'),
      });
      const done = run.run();
      expect(await waitUntilLines(path.join(jobDir, 'out.jsonl'), 1, 40_000)).toBe(true);
      await server!.stop();
      try {
        await expect(done).rejects.toThrow(
          new RegExp(
            `^operator "src": PostgreSQL at 127\\.0\\.0\\.1:${server!.port}/pipewright did not answer for .* while streaming changes \\(retryTimeoutMs 1000\\)`,
          ),
        );
      } finally {
        await server!.start();
      }
    } finally {
      await rm(jobDir, { recursive: true, force: true });
    }
  });
});
