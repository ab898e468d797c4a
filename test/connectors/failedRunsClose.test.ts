// A run that fails lets go of every connection its connectors opened: the CLI exits 1 with its
// one line within its CPU budget (a connection left open kept its run thread, and so the CLI,
// alive for ever after the line), and the designer's host, whose run thread outlives the run,
// is left with no socket to the server (and PostgreSQL with no session of the operator). One
// failure at open per connector kind, source and sink, and sink.postgres's failures mid-run.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeRun, type JobDocument, makeTempDir, removeTempDirs, runCli } from '../cliHarness.js';
import { hostSessionPerTest } from '../hostSession.js';
import { createTopic, deleteTopic, readCommitted, uniqueName } from './kafkaSinkTopic.js';
import { socketsTo } from './openSockets.js';
import { adminClient, dropTable, uniqueTable } from './postgresSinkTables.js';
import { dropAll } from './postgresSourceTables.js';
import { dropStreams, redis, uniqueStream } from './redisStreams.js';
import { describeWithServer, KAFKA_BROKERS, PG_URL, REDIS_URL, serverAddress } from './servers.js';

const session = hostSessionPerTest('pipewright-closes-');

afterAll(removeTempDirs);

const INPUT = `${Array.from({ length: 50 }, (_, i) => JSON.stringify({ id: i + 1, v: i })).join('\n')}\n`;

/** A two-operator job: `from` -> `to`, a forward edge. */
function job(name: string, from: Record<string, unknown>, to: Record<string, unknown>): JobDocument {
  return {
    format: 'pipewright.job/1',
    name,
    settings: { checkpointIntervalMs: 0 },
    operators: [from, to],
    edges: [{ id: 'e1', from: from.id as string, to: to.id as string, partition: 'forward' }],
  };
}

const jsonlSource = (path = 'in.jsonl') => ({ id: 'src', kind: 'source.jsonl', params: { path } });
const jsonlSink = { id: 'out', kind: 'sink.jsonl', params: { path: 'out.jsonl' } };

async function writeJobIn(dir: string, document: JobDocument, inputs: Record<string, string>) {
  for (const [name, text] of Object.entries({ 'in.jsonl': INPUT, ...inputs })) {
    await writeFile(join(dir, name), text);
  }
  const path = join(dir, 'job.json');
  const text = JSON.stringify(document);
  await writeFile(path, text);
  return { path, text };
}

/**
 * The job fails saying `says`: through the CLI (exit 1, within its budget, not stuck after its
 * line), then in the designer, after which this process has no more sockets to `port` than
 * before the run.
 */
async function failsAndCloses(
  document: JobDocument,
  says: RegExp,
  port: number,
  inputs: Record<string, string> = {},
): Promise<void> {
  const dir = await makeTempDir('pipewright-closes-cli-');
  await writeJobIn(dir, document, inputs);
  // A run that has printed its failure and waits on an open socket uses no CPU: 15 s of that is stuck.
  const cli = await runCli(['run', 'job.json', '--quiet'], { cwd: dir, timeoutMs: 30_000, idleMs: 15_000 });
  expect(cli.code, describeRun(cli)).toBe(1);
  expect(cli.stderr, describeRun(cli)).toMatch(says);

  const before = socketsTo(port);
  const { path, text } = await writeJobIn(session.dir, document, inputs);
  // A run that fails as it opens answers run.start with its failure; a later one, in its status.
  const started = await session.call('run.start', { text, path, mode: 'run', previewSinks: false });
  if (started.error !== undefined) {
    expect(started.error.message).toMatch(says);
  } else {
    const ended = await session.ended((started.result as { runId: string }).runId);
    expect(ended.status).toBe('failed');
    expect(ended.message).toMatch(says);
  }
  await session.until(
    `the failed run's sockets to port ${port} to close (${socketsTo(port)} open, ${before} before)`,
    () => socketsTo(port) <= before,
    10_000,
  );
}

await describeWithServer('postgres', 'sink.postgres and source.postgres, failing', () => {
  const pgPort = serverAddress('postgres').port;
  let admin: pg.Client;
  const tables: string[] = [];
  const sessionsOf = async (operatorId: string) =>
    Number(
      (
        await admin.query<{ n: string }>(
          'SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = $1',
          [`pipewright ${operatorId}`],
        )
      ).rows[0]!.n,
    );
  const table = (prefix: string) => {
    const name = uniqueTable(prefix);
    tables.push(name);
    return name;
  };
  const pgSink = (id: string, params: Record<string, unknown>) => ({
    id,
    kind: 'sink.postgres',
    params: { connection: PG_URL, ...params },
  });

  beforeAll(async () => {
    admin = await adminClient();
  });
  afterAll(async () => {
    for (const t of tables) await dropTable(admin, t);
    await admin.end();
  });

  it('sink.postgres (upsert) whose table is missing', async () => {
    const id = uniqueName('pgup').replace('-', '_');
    await failsAndCloses(
      job(
        'closes',
        jsonlSource(),
        pgSink(id, { table: `${table('pwc')}_missing`, mode: 'upsert', keyColumns: ['id'] }),
      ),
      new RegExp(`operator "${id}": table "pwc_[0-9a-f]+_missing" does not exist`),
      pgPort,
    );
    expect(await sessionsOf(id)).toBe(0);
  });

  it('sink.postgres (upsert) keyed on a column the table lacks', async () => {
    const id = uniqueName('pgkey').replace('-', '_');
    const name = table('pwc');
    await admin.query(`CREATE TABLE ${name} (id int PRIMARY KEY, v int)`);
    await failsAndCloses(
      job('closes', jsonlSource(), pgSink(id, { table: name, mode: 'upsert', keyColumns: ['nope'] })),
      new RegExp(`operator "${id}": .*nope`),
      pgPort,
    );
    expect(await sessionsOf(id)).toBe(0);
  });

  it('sink.postgres (append) whose table is missing', async () => {
    const id = uniqueName('pgapm').replace('-', '_');
    await failsAndCloses(
      job('closes', jsonlSource(), pgSink(id, { table: `${table('pwc')}_missing`, mode: 'append' })),
      new RegExp(`operator "${id}": table "pwc_[0-9a-f]+_missing" does not exist`),
      pgPort,
    );
    expect(await sessionsOf(id)).toBe(0);
  });

  it('sink.postgres (append) given a value its column rejects, mid-run', async () => {
    const id = uniqueName('pgapv').replace('-', '_');
    const name = table('pwc');
    await admin.query(`CREATE TABLE ${name} (id int, v int)`);
    await failsAndCloses(
      job('closes', jsonlSource('bad.jsonl'), pgSink(id, { table: name, mode: 'append' })),
      new RegExp(`operator "${id}": table "${name}" rejects a value of column "v"`),
      pgPort,
      { 'bad.jsonl': '{"id":1,"v":2}\n{"id":2,"v":"not a number"}\n' },
    );
    expect(await sessionsOf(id)).toBe(0);
  });

  it('source.postgres (unbounded) into a sink.postgres whose table is missing', async () => {
    const source = table('pwc_src');
    await admin.query(`CREATE TABLE ${source} (id int PRIMARY KEY, v int)`);
    await admin.query(`INSERT INTO ${source} VALUES (1, 1), (2, 2)`);
    const id = uniqueName('pgsrc').replace('-', '_');
    // The slot and publication are the job's to keep (a restore reads on from them): this test
    // drops them, or every run of it leaves one slot of the server's few behind.
    const sourceOp = {
      id: `${id}_in`,
      kind: 'source.postgres',
      params: { connection: PG_URL, table: source, slot: `${id}_slot`, publication: `${id}_pub` },
    };
    try {
      await failsAndCloses(
        job(
          'closes',
          sourceOp,
          pgSink(id, { table: `${source}_missing`, mode: 'upsert', keyColumns: ['id'] }),
        ),
        new RegExp(`operator "${id}": table "${source}_missing" does not exist`),
        pgPort,
      );
      expect(await sessionsOf(id)).toBe(0);
    } finally {
      await dropAll(source, id);
    }
  });

  it('source.postgres whose table is missing', async () => {
    const id = uniqueName('pgsrcm').replace('-', '_');
    await failsAndCloses(
      job(
        'closes',
        { id, kind: 'source.postgres', params: { connection: PG_URL, table: `${table('pwc')}_missing` } },
        jsonlSink,
      ),
      new RegExp(`operator "${id}": table "pwc_[0-9a-f]+_missing" does not exist`),
      pgPort,
    );
  });
});

await describeWithServer('redis', 'sink.redis and source.redis, failing', () => {
  const redisPort = serverAddress('redis').port;
  let notAStream: string;
  beforeAll(async () => {
    notAStream = uniqueStream('closes');
    await (await redis()).set(notAStream, 'a string');
  });
  afterAll(dropStreams);

  it('source.redis reading a key that holds no stream', async () => {
    await failsAndCloses(
      job(
        'closes',
        { id: 'rin', kind: 'source.redis', params: { url: REDIS_URL, stream: notAStream } },
        jsonlSink,
      ),
      /operator "rin": key "pipewright-test-closes-[0-9a-f]+" at Redis at [^ ]+ holds a string, not a stream/,
      redisPort,
    );
  });

  it('sink.redis writing to a key that holds no stream', async () => {
    await failsAndCloses(
      job('closes', jsonlSource(), {
        id: 'rout',
        kind: 'sink.redis',
        params: { url: REDIS_URL, stream: notAStream },
      }),
      /operator "rout": key "pipewright-test-closes-[0-9a-f]+" at Redis at [^ ]+ holds a string, not a stream/,
      redisPort,
    );
  });
});

await describeWithServer('kafka', 'sink.kafka and source.kafka, failing', () => {
  const kafkaPort = serverAddress('kafka').port;
  const topics: string[] = [];
  afterAll(async () => {
    for (const topic of topics) await deleteTopic(KAFKA_BROKERS, topic);
  });

  it('source.kafka reading a topic that does not exist', async () => {
    await failsAndCloses(
      job(
        'closes',
        {
          id: 'kin',
          kind: 'source.kafka',
          params: { bootstrapServers: KAFKA_BROKERS, topic: uniqueName('pw-none') },
        },
        jsonlSink,
      ),
      /operator "kin": Kafka topic "pw-none-[0-9a-f]+" does not exist/,
      kafkaPort,
    );
  });

  it('sink.kafka writing to a topic that does not exist', async () => {
    await failsAndCloses(
      job('closes', jsonlSource(), {
        id: 'kout',
        kind: 'sink.kafka',
        params: { bootstrapServers: KAFKA_BROKERS, topic: uniqueName('pw-none') },
      }),
      /operator "kout": Kafka topic "pw-none-[0-9a-f]+" does not exist/,
      kafkaPort,
    );
  });

  it('sink.kafka whose job fails mid-run leaves no transaction open', async () => {
    const topic = uniqueName('pw-closes');
    topics.push(topic);
    await createTopic(KAFKA_BROKERS, topic, 1);
    const failing = {
      format: 'pipewright.job/1',
      name: 'closes',
      settings: { checkpointIntervalMs: 0 },
      operators: [
        jsonlSource(),
        {
          id: 'p1',
          kind: 'map',
          params: { code: 'function map(r) { if (r.id === 40) throw new Error("no 40"); return r; }' },
        },
        { id: 'kout', kind: 'sink.kafka', params: { bootstrapServers: KAFKA_BROKERS, topic } },
      ],
      edges: [
        { id: 'e1', from: 'src', to: 'p1', partition: 'forward' },
        { id: 'e2', from: 'p1', to: 'kout', partition: 'forward' },
      ],
    };
    await failsAndCloses(failing, /operator "p1" failed on the record from in\.jsonl:40: no 40/, kafkaPort);
    const contents = await readCommitted(KAFKA_BROKERS, topic);
    expect(contents.openTransactions).toBe(false);
  });
});
