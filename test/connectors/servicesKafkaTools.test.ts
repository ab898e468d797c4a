// The Kafka quick start of docs/connectors.md, as a user follows it (issue 25, item 28): a topic
// made and a JSONL file loaded with `npm run services -- kafka topic|produce` (Kafka's own
// TopicCommand and ConsoleProducer, on the jars the services script fetches), then read back by
// a job. Against the shared broker, on topics of unique names removed afterwards.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { freePort } from '../../scripts/services/processes.mjs';
import { ChildWatch } from '../childWork.js';
import {
  describeRun,
  makeTempDir,
  readJsonl,
  removeTempDirs,
  repoRoot,
  runCli,
  writeJob,
} from '../cliHarness.js';
import { createTopic, deleteTopic, readCommitted, uniqueName } from './kafkaSinkTopic.js';
import { describeWithServer, KAFKA_BROKERS, serverAddress } from './servers.js';

const made: string[] = [];
afterAll(async () => {
  for (const topic of made) await deleteTopic(KAFKA_BROKERS, topic);
  await removeTempDirs();
});

interface Result {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** `npm run services -- ARGS` typed in `cwd` (npm's INIT_CWD), at the test broker's port. */
function services(args: readonly string[], cwd: string, port = serverAddress('kafka').port): Promise<Result> {
  const env = { ...process.env, INIT_CWD: cwd, PIPEWRIGHT_KAFKA_PORT: String(port) };
  return new Promise((resolve, reject) => {
    const child = execFile(
      process.execPath,
      [path.join(repoRoot, 'scripts', 'services.mjs'), ...args],
      { cwd: repoRoot, env },
      (error, stdout, stderr) => {
        watch.stop();
        if (watch.exceeded !== undefined) reject(new Error(`services ${args.join(' ')} ${watch.exceeded}`));
        else resolve({ code: error === null ? 0 : Number(error.code ?? 1), stdout, stderr });
      },
    );
    // The script's own work (Kafka's tools run in a child of it, whose time is not counted here).
    const watch = new ChildWatch(child, { cpuMs: 30_000 });
  });
}

const show = (r: Result) => `exit ${r.code}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`;

await describeWithServer('kafka', 'npm run services -- kafka topic | produce', () => {
  it('follows the quick start of docs/connectors.md: a topic, a file loaded, a job reading it whole', async () => {
    const docs = readFileSync(path.join(repoRoot, 'docs', 'connectors.md'), 'utf8');
    const from = docs.indexOf('\n## Kafka quick start\n');
    expect(from).toBeGreaterThan(0);
    const section = docs.slice(from, docs.indexOf('\n## ', from + 1));
    const blocks = [...section.matchAll(/```(\w*)\n([^`]*)```/g)].map(([, lang, body]) => ({
      lang,
      body: body!,
    }));
    const [commands, printed, job] = [blocks[0]!, blocks[1]!, blocks[2]!];
    expect([commands.lang, job.lang]).toEqual(['sh', 'json']);
    // The docs' topic is "lines"; here a name of its own, on the test's broker.
    const topic = uniqueName('pw-quickstart');
    made.push(topic);
    const ours = (text: string) =>
      text.replaceAll('"lines"', `"${topic}"`).replaceAll('localhost:9092', KAFKA_BROKERS);

    const lines = commands.body.trim().split('\n');
    expect(lines.map((line) => line.split(' ').slice(0, 6).join(' '))).toEqual([
      'npm run services -- kafka topic',
      'npm run services -- kafka produce',
    ]);
    let stdout = '';
    for (const line of lines) {
      const args = line.split(' ').slice(4);
      args[2] = topic;
      // Typed in the checkout, as the docs' file path says.
      const result = await services(args, repoRoot);
      expect(result.code, show(result)).toBe(0);
      stdout += result.stdout;
    }
    expect(stdout).toBe(ours(printed.body));

    const dir = await makeTempDir('pipewright-kafka-quickstart-');
    const document = JSON.parse(job.body);
    document.operators[0].params.topic = topic;
    document.operators[0].params.bootstrapServers = KAFKA_BROKERS;
    await writeJob(path.join(dir, 'lines.job.json'), document);
    const run = await runCli(['run', 'lines.job.json'], { cwd: dir });
    expect(run.code, describeRun(run)).toBe(0);
    const file = /kafka produce \S+ (\S+)/.exec(commands.body)![1]!;
    const sent = await readJsonl<{ line: string }>(path.join(repoRoot, file));
    expect(run.stdout.trimEnd().split('\n').at(-1)).toMatch(
      new RegExp(`^done: job "lines", ${sent.length} records from the sources in `),
    );
    const out = await readJsonl<{ line: string }>(path.join(dir, 'out', 'lines.jsonl'));
    const byText = (a: { line: string }, b: { line: string }) => a.line.localeCompare(b.line);
    expect(out.sort(byText)).toEqual(sent.sort(byText));
  });

  it('sends nothing from a file with a line that is not JSON, and says which line', async () => {
    const dir = await makeTempDir('pipewright-kafka-quickstart-');
    const topic = uniqueName('pw-quickstart');
    made.push(topic);
    await createTopic(KAFKA_BROKERS, topic, 1);
    await writeFile(path.join(dir, 'events.jsonl'), '{"n":1}\n{"n":2}\n{"n": 3,,}\n{"n":4}\n');
    const produced = await services(['kafka', 'produce', topic, 'events.jsonl'], dir);
    expect(produced.code, show(produced)).toBe(1);
    expect(produced.stdout).toBe('');
    expect(produced.stderr).toMatch(/^kafka: events\.jsonl:3 is not JSON \([^\n]+\); nothing was sent\n$/);
    expect((await readCommitted(KAFKA_BROKERS, topic)).values).toEqual([]);
  });

  it('says in one line when the broker, the topic or the file is not there, or the partitions are not a number', async () => {
    const dir = await makeTempDir('pipewright-kafka-quickstart-');
    const topic = uniqueName('pw-missing');
    await writeFile(path.join(dir, 'events.jsonl'), '{"n":1}\n');
    const noBroker = await services(['kafka', 'topic', topic], dir, await freePort());
    expect(noBroker.code, show(noBroker)).toBe(1);
    expect(noBroker.stderr).toMatch(
      /^kafka: nothing answers at localhost:\d+; start Kafka first: npm run services start kafka\n$/,
    );
    const [noTopic, noFile, badCount] = await Promise.all([
      services(['kafka', 'produce', topic, 'events.jsonl'], dir),
      services(['kafka', 'produce', topic, 'nothing.jsonl'], dir),
      services(['kafka', 'topic', topic, '--partitions', 'many'], dir),
    ]);
    expect(noTopic.code, show(noTopic)).toBe(1);
    expect(noTopic.stderr).toBe(
      `kafka: there is no topic "${topic}" at ${KAFKA_BROKERS}; make it first: npm run services -- kafka topic ${topic} --partitions N\n`,
    );
    expect(noFile.code, show(noFile)).toBe(1);
    expect(noFile.stderr).toBe('kafka: cannot read nothing.jsonl: no such file\n');
    expect(badCount.code, show(badCount)).toBe(1);
    expect(badCount.stderr.split('\n')[0]).toBe(
      'kafka: --partitions takes a whole number, 1 or more, not "many"',
    );
    expect(badCount.stderr.split('\n')).toHaveLength(3);
  });
});
