// The end of a bounded job, exactly once (issue 25's "nothing lost, nothing twice, through kill -9
// at any moment"). A run's last commit used to be made after its last checkpoint, outside any: a
// kill between that commit and the process's exit, or a `--restore latest` of a run that had
// finished, restored the last checkpoint and wrote what came after it again, which sink.kafka
// and sink.postgres (append) then held twice (3240 rows for 3000). The end is a checkpoint now
// (FLIP-147's final checkpoint, CheckpointCoordinator.takeFinal): its completion makes that
// commit, and restoring it runs nothing. Shown with a real kill -9 held at that very moment by
// sink.hold (test/kinds/sinkHold: it waits at the run's end, after every other commit), and with
// a restore of a finished run, every sink kind in each (on one thread, then on two).
import { existsSync, writeFileSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import type pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  describeDifference,
  describeResult,
  killHard,
  runToEnd,
  startCli,
  waitUntil,
} from '../checkpointHelpers.js';
import { type JobDocument, makeTempDir, removeTempDirs, writeJob } from '../cliHarness.js';
import { compiledKindsDir, compileKinds } from '../kinds/compileKinds.js';
import { createTopic, deleteTopic, readCommitted, uniqueName } from './kafkaSinkTopic.js';
import { adminClient, dropTable, tableLines, uniqueTable } from './postgresSinkTables.js';
import { dropStreams, jsonOf, uniqueStream } from './redisStreams.js';
import { describeWithServers, KAFKA_BROKERS, PG_URL, REDIS_URL } from './servers.js';

const RECORDS = 3_000;
const GENERATE = 'function generate(i) {\n  return { id: i, v: i * 3 };\n}';
/** What every sink must hold once, in some order: each record as JSON text. */
const expected = Array.from({ length: RECORDS }, (_, i) => JSON.stringify({ id: i, v: i * 3 }));

let admin: pg.Client;
const tables: string[] = [];
const topics: string[] = [];

beforeAll(async () => {
  await compileKinds();
  process.env.PIPEWRIGHT_KIND_MODULES = path.join(compiledKindsDir, 'sinkHold', 'kind.js');
});

afterAll(async () => {
  delete process.env.PIPEWRIGHT_KIND_MODULES;
  if (admin !== undefined) {
    for (const table of tables) await dropTable(admin, table);
    await admin.end();
  }
  for (const topic of topics) await deleteTopic(KAFKA_BROKERS, topic);
  await dropStreams();
  await removeTempDirs();
});

/** Where each sink of a job writes; absent: the job has no such sink. */
interface Targets {
  readonly kafka?: string;
  readonly append?: string;
  readonly upsert?: string;
  readonly redis?: string;
  readonly jsonl?: string;
  /** sink.hold, last: the run's end waits while this file exists. */
  readonly hold?: string;
}

/** A generator of RECORDS records into each sink of `targets`, at `parallelism`, checkpoints every 50 ms. */
function job(name: string, targets: Targets, parallelism: number): JobDocument {
  const sinks: JobDocument[] = [];
  if (targets.jsonl !== undefined)
    sinks.push({ id: 'jsonl', kind: 'sink.jsonl', params: { path: targets.jsonl } });
  if (targets.kafka !== undefined) {
    sinks.push({
      id: 'kafka',
      kind: 'sink.kafka',
      params: {
        bootstrapServers: KAFKA_BROKERS,
        topic: targets.kafka,
        keyField: 'id',
        deliveryGuarantee: 'exactly-once',
        // Of this test's own: runs of the same job elsewhere on the shared broker would fence it.
        transactionalIdPrefix: uniqueName('pw-end'),
      },
    });
  }
  for (const mode of ['append', 'upsert'] as const) {
    const table = targets[mode];
    if (table === undefined) continue;
    sinks.push({
      id: `pg-${mode}`,
      kind: 'sink.postgres',
      params: { connection: PG_URL, table, mode, ...(mode === 'upsert' ? { keyColumns: ['id'] } : {}) },
    });
  }
  if (targets.redis !== undefined)
    sinks.push({ id: 'redis', kind: 'sink.redis', params: { url: REDIS_URL, stream: targets.redis } });
  if (targets.hold !== undefined)
    sinks.push({ id: 'hold', kind: 'sink.hold', params: { holdWhile: targets.hold } });
  return {
    format: 'pipewright.job/1',
    name,
    settings: { checkpointIntervalMs: 50, checkpointsRetained: 3 },
    operators: [
      { id: 'events', kind: 'source.generator', params: { code: GENERATE, count: RECORDS } },
      ...sinks.map((sink) => ({ ...sink, parallelism })),
    ],
    edges: sinks.map((sink) => ({
      id: `to-${sink.id}`,
      from: 'events',
      to: sink.id,
      ...(sink.id === 'pg-upsert' ? { partition: 'hash', key: 'id' } : { partition: 'rebalance' }),
    })),
  };
}

async function topic(): Promise<string> {
  const name = uniqueName('pw-end');
  await createTopic(KAFKA_BROKERS, name, 2);
  topics.push(name);
  return name;
}

async function table(mode: 'append' | 'upsert'): Promise<string> {
  admin ??= await adminClient();
  const name = uniqueTable(`pw_end_${mode}`);
  await admin.query(`CREATE TABLE ${name} (id int, v int${mode === 'upsert' ? ', PRIMARY KEY (id)' : ''})`);
  tables.push(name);
  return name;
}

/** What each sink of `targets` holds, as JSON text of the records, sorted (kafka: committed only). */
async function outputs(dir: string, targets: Targets): Promise<Record<string, string[]>> {
  const held: Record<string, string[]> = {};
  if (targets.kafka !== undefined) {
    const read = await readCommitted(KAFKA_BROKERS, targets.kafka);
    held.kafka = read.values.sort();
    if (read.openTransactions) held.kafka.push('(a transaction is still open)');
  }
  for (const mode of ['append', 'upsert'] as const) {
    const name = targets[mode];
    if (name !== undefined) held[mode] = await tableLines(admin, name, 'id, v');
  }
  if (targets.redis !== undefined) held.redis = (await jsonOf(targets.redis)).sort();
  if (targets.jsonl !== undefined) {
    const text = await readFile(path.join(dir, targets.jsonl), 'utf8');
    held.jsonl = text
      .split('\n')
      .filter((line) => line !== '')
      .sort();
  }
  return held;
}

/** Each sink holds every record once (what is wrong, sink by sink). */
function expectEachOnce(held: Record<string, string[]>, context: string): void {
  const sorted = [...expected].sort();
  const wrong = Object.entries(held).flatMap(([sink, lines]) => {
    const difference = describeDifference(lines, sorted);
    return difference === '' ? [] : [`${sink}: ${difference}`];
  });
  expect(wrong.join('\n'), context).toBe('');
}

await describeWithServers(['kafka', 'postgres', 'redis'], 'the end of a bounded job, exactly once', () => {
  /** A sink of every kind, each writing to a target of this test's own. */
  const everySink = async (): Promise<Targets> => ({
    jsonl: 'out.jsonl',
    kafka: await topic(),
    append: await table('append'),
    upsert: await table('upsert'),
    redis: uniqueStream('end'),
  });

  it('one thread: killed with kill -9 right after its final commit, then --restore latest: each record once', async () => {
    const dir = await makeTempDir('pipewright-end-kill-');
    const targets: Targets = { ...(await everySink()), hold: 'hold' };
    const jobPath = path.join(dir, 'end.job.json');
    await writeJob(jobPath, job('end-kill', targets, 1));
    const hold = path.join(dir, 'hold');
    writeFileSync(hold, '');
    const run = startCli(['run', jobPath, '--trust'], dir);
    const held = await waitUntil(() => existsSync(`${hold}.held`), { run, timeoutMs: 60_000 });
    const killed = await killHard(run);
    expect(held, `the run never reached its end\n${describeResult(killed)}`).toBe(true);
    expect(killed.signal, `killed before it exited\n${describeResult(killed)}`).toBe('SIGKILL');
    // Killed after the commits of its end: everything is there, once.
    expectEachOnce(await outputs(dir, targets), 'when killed');
    await rm(hold);

    const restored = await runToEnd(['run', jobPath, '--trust', '--restore', 'latest'], dir);
    expect(restored.code, describeResult(restored)).toBe(0);
    expectEachOnce(await outputs(dir, targets), `after the restore\n${describeResult(restored)}`);
    expect(restored.stderr, describeResult(restored)).toMatch(/finished .*nothing is left to run/);
  });

  it('two threads: a finished run restored runs nothing, and every sink kind holds each record once', async () => {
    const dir = await makeTempDir('pipewright-end-restore-');
    const targets = await everySink();
    const jobPath = path.join(dir, 'end.job.json');
    await writeJob(jobPath, job('end-restore', targets, 2));
    const args = ['run', jobPath, '--trust', '--threads', '2'];
    const ran = await runToEnd(args, dir);
    expect(ran.code, describeResult(ran)).toBe(0);
    expectEachOnce(await outputs(dir, targets), 'after the run');

    const restored = await runToEnd([...args, '--restore', 'latest'], dir);
    expect(restored.code, describeResult(restored)).toBe(0);
    expectEachOnce(await outputs(dir, targets), `after the restore\n${describeResult(restored)}`);
    expect(restored.stderr, describeResult(restored)).toMatch(/finished .*nothing is left to run/);
    expect(restored.stdout, describeResult(restored)).toMatch(/^done: .* 0 records from the sources/);
  });
});
