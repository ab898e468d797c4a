// source.postgres's slot and publication, through the real CLI against the shared PostgreSQL:
// two jobs in one folder whose sources share an operator id get default names of their own and
// each reads exactly its table's changes (issue 25: the second streamed the first's publication
// and lost every change, with no error); a publication that exists but does not publish the table
// is refused in one line naming the operator, the publication and the table; and a checkpoint
// keeps the names it was taken with, so one taken under the older default names still restores.
import { createHash } from 'node:crypto';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { defaultName } from '../../engine/operators/postgres/source/postgresSource.js';
import {
  finish,
  inspectCheckpointDir,
  killHard,
  outputLines,
  startCli,
  waitUntil,
} from '../checkpointHelpers.js';
import {
  describeRun,
  type JobDocument,
  makeTempDir,
  removeTempDirs,
  runCli,
  writeJob,
} from '../cliHarness.js';
import { dropAll, ModelTable, uniqueName, waitUntilLines, withClient } from './postgresSourceTables.js';
import { describeWithServer, PG_URL } from './servers.js';

afterAll(removeTempDirs);

/** A job named `name` reading `table` into `out`, its source called "src" whatever the job. */
function cdcJob(name: string, table: string, out: string, params: Record<string, unknown> = {}): JobDocument {
  return {
    format: 'pipewright.job/1',
    name,
    settings: { checkpointIntervalMs: 50 },
    operators: [
      { id: 'src', kind: 'source.postgres', params: { connection: PG_URL, table, ...params } },
      { id: 'out', kind: 'sink.jsonl', params: { path: out } },
    ],
    edges: [{ id: 'e', from: 'src', to: 'out', partition: 'forward' }],
  };
}

/** Drops slots and publications by their exact names (default names have no test prefix). */
async function dropNamed(names: readonly string[]): Promise<void> {
  await withClient(async (client) => {
    for (const name of names) {
      for (let attempt = 0; ; attempt++) {
        try {
          await client.query(
            'SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = $1',
            [name],
          );
          break;
        } catch (error) {
          // A stopped run's walsender may hold its slot for a moment yet.
          if (attempt > 50) throw error;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }
      await client.query(`DROP PUBLICATION IF EXISTS "${name}"`);
    }
  });
}

/** Stops a run as Ctrl-C does (a last checkpoint, exit 0). */
async function stop(run: ReturnType<typeof startCli>, what: string) {
  run.child.kill('SIGTERM');
  return finish(run, 30_000, what);
}

await describeWithServer('postgres', 'source.postgres slot and publication names', () => {
  it('two jobs in one folder, sources of the same id, two tables: each reads exactly its own changes', async () => {
    const prefix = uniqueName('pwnames');
    const alpha = new ModelTable(`${prefix}_a`);
    const beta = new ModelTable(`${prefix}_b`);
    const dir = await makeTempDir('pipewright-pg-two-jobs-');
    const names = [defaultName(dir, 'alpha', 'src'), defaultName(dir, 'beta', 'src')];
    expect(names[0]).not.toBe(names[1]);
    const runs: ReturnType<typeof startCli>[] = [];
    try {
      await alpha.create(200);
      await beta.create(300);
      await writeJob(path.join(dir, 'alpha.job.json'), cdcJob('alpha', alpha.name, 'alpha.jsonl'));
      await writeJob(path.join(dir, 'beta.job.json'), cdcJob('beta', beta.name, 'beta.jsonl'));
      const first = startCli(['run', 'alpha.job.json'], dir);
      runs.push(first);
      expect(await waitUntilLines(path.join(dir, 'alpha.jsonl'), 200, 60_000), first.stderr()).toBe(true);
      // The second starts while the first streams.
      const second = startCli(['run', 'beta.job.json'], dir);
      runs.push(second);
      expect(await waitUntilLines(path.join(dir, 'beta.jsonl'), 300, 60_000), second.stderr()).toBe(true);
      // Changes to both tables while both jobs stream, interleaved.
      await withClient(async (client) => {
        for (let k = 1; k <= 20; k++) {
          await alpha.transaction(client, { insert: [1000 + k], update: [k], remove: [100 + k] });
          await beta.transaction(client, { insert: [2000 + k], update: [k, 150 + k], remove: [200 + k] });
        }
      });
      const alphaDone = await waitUntilLines(path.join(dir, 'alpha.jsonl'), alpha.records.length, 60_000);
      const betaDone = await waitUntilLines(path.join(dir, 'beta.jsonl'), beta.records.length, 60_000);
      const stopped = [await stop(first, 'job alpha'), await stop(second, 'job beta')];
      for (const result of stopped) expect(result.code, describeRun(result)).toBe(0);
      expect(alphaDone && betaDone, stopped.map(describeRun).join('\n')).toBe(true);
      expect(await outputLines(path.join(dir, 'alpha.jsonl'))).toEqual(alpha.lines());
      expect(await outputLines(path.join(dir, 'beta.jsonl'))).toEqual(beta.lines());
      // Each job made its own slot and publication, publishing its own table.
      const published = await withClient((client) =>
        client.query<{ pubname: string; tablename: string }>(
          'SELECT pubname, tablename FROM pg_publication_tables WHERE pubname = ANY($1) ORDER BY tablename',
          [names],
        ),
      );
      expect(published.rows).toEqual([
        { pubname: names[0], tablename: alpha.name },
        { pubname: names[1], tablename: beta.name },
      ]);
    } finally {
      for (const run of runs) await killHard(run);
      try {
        await dropNamed(names);
      } finally {
        await dropAll(alpha.name, prefix);
        await dropAll(beta.name, prefix);
      }
    }
  }, 180_000);

  it('a publication that exists but does not publish the table: one line naming the operator, the publication and the table, exit 1', async () => {
    const prefix = uniqueName('pwnames');
    const mine = new ModelTable(`${prefix}_mine`);
    const other = new ModelTable(`${prefix}_other`);
    const dir = await makeTempDir('pipewright-pg-wrong-publication-');
    try {
      await mine.create(10);
      await other.create(10);
      await withClient((client) => client.query(`CREATE PUBLICATION ${prefix}_pub FOR TABLE ${other.name}`));
      const job = cdcJob('wrong', mine.name, 'out.jsonl', {
        slot: `${prefix}_slot`,
        publication: `${prefix}_pub`,
        stopAt: 'current',
      });
      await writeJob(path.join(dir, 'wrong.job.json'), job);
      const result = await runCli(['run', 'wrong.job.json'], { cwd: dir, timeoutMs: 60_000 });
      expect(result.code, describeRun(result)).toBe(1);
      const lines = result.stderr.split('\n').filter((line) => line.trim() !== '');
      expect(lines, describeRun(result)).toHaveLength(1);
      expect(lines[0]).toBe(
        `pipewright: operator "src": publication "${prefix}_pub" does not publish table "public.${mine.name}" (it publishes "public.${other.name}"): name a publication that does, or add the table to it (ALTER PUBLICATION "${prefix}_pub" ADD TABLE "public"."${mine.name}")`,
      );
      // It made no slot either.
      const slots = await withClient((client) =>
        client.query('SELECT 1 FROM pg_replication_slots WHERE slot_name = $1', [`${prefix}_slot`]),
      );
      expect(slots.rowCount).toBe(0);
    } finally {
      await dropAll(mine.name, prefix);
      await dropAll(other.name, prefix);
    }
  }, 120_000);

  it('a restore whose checkpoint names a publication that no longer publishes the table: one line, exit 1', async () => {
    const prefix = uniqueName('pwnames');
    const mine = new ModelTable(`${prefix}_mine`);
    const other = new ModelTable(`${prefix}_other`);
    const dir = await makeTempDir('pipewright-pg-moved-publication-');
    const jobPath = path.join(dir, 'moved.job.json');
    const checkpointDir = path.join(dir, '.pipewright', 'moved', 'checkpoints');
    try {
      await mine.create(50);
      await other.create(5);
      await writeJob(
        jobPath,
        cdcJob('moved', mine.name, 'out.jsonl', { slot: `${prefix}_slot`, publication: `${prefix}_pub` }),
      );
      const first = startCli(['run', jobPath], dir);
      await waitUntil(() => inspectCheckpointDir(checkpointDir).completed.length > 0, {
        run: first,
        timeoutMs: 60_000,
      });
      await killHard(first);
      // As a checkpoint of two jobs that shared a default publication would have it: another table's.
      await withClient((client) => client.query(`ALTER PUBLICATION ${prefix}_pub SET TABLE ${other.name}`));
      const restored = await runCli(['run', jobPath, '--restore', 'latest'], { cwd: dir, timeoutMs: 60_000 });
      expect(restored.code, describeRun(restored)).toBe(1);
      const lines = restored.stderr
        .split('\n')
        .filter((line) => !/^pipewright: restoring checkpoint/.test(line));
      expect(
        lines.filter((line) => line.trim() !== ''),
        describeRun(restored),
      ).toEqual([
        `pipewright: operator "src": publication "${prefix}_pub" does not publish table "public.${mine.name}" (it publishes "public.${other.name}"): name a publication that does, or add the table to it (ALTER PUBLICATION "${prefix}_pub" ADD TABLE "public"."${mine.name}")`,
      ]);
    } finally {
      await dropAll(mine.name, prefix);
      await dropAll(other.name, prefix);
    }
  }, 120_000);

  it('a checkpoint taken under the older default names restores with the names it recorded', async () => {
    const prefix = uniqueName('pwnames');
    const table = new ModelTable(`${prefix}_t`);
    const dir = await makeTempDir('pipewright-pg-old-names-');
    // The default of the versions before: "pipewright_", a hash of the job's folder only, the operator.
    const old = `pipewright_${createHash('sha256').update(dir).digest('hex').slice(0, 10)}_src`;
    const jobPath = path.join(dir, 'old.job.json');
    const checkpointDir = path.join(dir, '.pipewright', 'old', 'checkpoints');
    try {
      await table.create(100);
      // The names those versions chose, as they would have made them.
      await writeJob(jobPath, cdcJob('old', table.name, 'out.jsonl', { slot: old, publication: old }));
      const first = startCli(['run', jobPath], dir);
      await waitUntil(() => inspectCheckpointDir(checkpointDir).completed.length > 0, {
        run: first,
        timeoutMs: 60_000,
      });
      await killHard(first);
      await withClient(async (client) => {
        for (let k = 1; k <= 10; k++) await table.transaction(client, { insert: [500 + k], update: [k] });
      });
      // This version's job file names neither: its default is another name, the checkpoint's is kept.
      expect(defaultName(dir, 'old', 'src')).not.toBe(old);
      await writeJob(jobPath, cdcJob('old', table.name, 'out.jsonl', { stopAt: 'current' }));
      const restored = await runCli(['run', jobPath, '--restore', 'latest'], { cwd: dir, timeoutMs: 60_000 });
      expect(restored.code, describeRun(restored)).toBe(0);
      expect(await outputLines(path.join(dir, 'out.jsonl'))).toEqual(table.lines());
      const slots = await withClient((client) =>
        client.query<{ slot_name: string }>(
          'SELECT slot_name FROM pg_replication_slots WHERE slot_name = ANY($1)',
          [[old, defaultName(dir, 'old', 'src')]],
        ),
      );
      expect(slots.rows).toEqual([{ slot_name: old }]);
    } finally {
      try {
        await dropNamed([old, defaultName(dir, 'old', 'src')]);
      } finally {
        await dropAll(table.name, prefix);
      }
    }
  }, 120_000);
});
