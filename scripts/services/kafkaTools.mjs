// `npm run services -- kafka topic NAME [--partitions N]` and `… kafka produce TOPIC FILE`: the
// Kafka quick start of docs/connectors.md with nothing else installed. Kafka's own tools do the
// work (TopicCommand and ConsoleProducer, what kafka-topics.sh and kafka-console-producer.sh
// run), on the broker's jars and the tools jar fetched beside them on first use; the broker's
// metadata and end offsets are read here to say what was done and to check that it was.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fetchedJars, kafkaAnswers, kafkaLibs } from './kafka.mjs';
import { requireProgram, ServiceError } from './processes.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const JAVA = '/usr/bin/java';
const TOOLS_JAR = 'kafka-tools-4.1.1.jar';

export const KAFKA_TOOLS_USAGE =
  'usage: npm run services -- kafka topic NAME [--partitions N] | kafka produce TOPIC FILE.jsonl';

/** A mistake in the command line: said with the usage after it. */
export class KafkaToolsUsageError extends ServiceError {}

const REASONS = { ENOENT: 'no such file', EISDIR: 'it is a folder', EACCES: 'permission denied' };

/** The tools' classpath: the broker's jars and the tools jar, fetched the first time. */
async function toolClasspath(cacheDir) {
  requireProgram(JAVA, 'openjdk-17-jre-headless', 'java');
  const libs = await kafkaLibs(cacheDir);
  const tools = await fetchedJars(cacheDir, {
    folder: 'kafka-tools',
    pom: 'kafka-tools-pom.xml',
    marker: TOOLS_JAR,
    what: "Kafka's command-line tools",
  });
  return `${libs}/*:${tools}/*`;
}

/**
 * Runs one of Kafka's tool classes to its end, `input` on its stdin; resolves to what it wrote
 * on stderr (its warnings), or throws a ServiceError with `what` and the line of its output
 * that says what went wrong.
 */
async function runTool(cacheDir, mainClass, args, what, input = '') {
  const classpath = await toolClasspath(cacheDir);
  const javaArgs = [
    // A tool carries a few requests: a small heap and C1 only start it sooner.
    '-Xmx256m',
    '-XX:TieredStopAtLevel=1',
    '-XX:+UseSerialGC',
    `-Dlog4j.configuration=file:${join(HERE, 'kafka-tools-log4j.properties')}`,
    '-cp',
    classpath,
    mainClass,
    ...args,
  ];
  return new Promise((resolvePromise, reject) => {
    const child = execFile(JAVA, javaArgs, { maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error === null) {
        resolvePromise(stderr);
        return;
      }
      const lines = `${stdout}\n${stderr}`.split('\n').map((line) => line.trim());
      const said =
        lines.find((line) => line.startsWith('Error while executing topic command : ')) ??
        lines.find((line) => /^(ERROR|Exception|Error)\b/.test(line)) ??
        lines.findLast((line) => line !== '') ??
        error.message;
      reject(
        new ServiceError(`${what} failed: ${said.replace(/^Error while executing topic command : /, '')}`),
      );
    });
    child.stdin.on('error', () => {}); // a tool that dies early closes its stdin: its exit says why
    child.stdin.end(input);
  });
}

async function admin(port) {
  const { Admin } = await import('@platformatic/kafka');
  return new Admin({
    clientId: 'pipewright-services',
    bootstrapBrokers: [`localhost:${port}`],
    retries: 0,
    connectTimeout: 3000,
    requestTimeout: 10_000,
  });
}

/** The topic's partition count at the broker, or undefined when there is no such topic. */
async function partitionCount(port, topic) {
  const client = await admin(port);
  try {
    if (!(await client.listTopics({ includeInternals: true })).includes(topic)) return undefined;
    const metadata = await client.metadata({ topics: [topic] });
    return metadata.topics.get(topic).partitionsCount;
  } finally {
    await client.close().catch(() => {});
  }
}

/** The sum of the topic's end offsets: how many records it has taken so far. */
async function recordsTaken(port, topic, partitions) {
  const client = await admin(port);
  try {
    const listed = await client.listOffsets({
      topics: [
        {
          name: topic,
          partitions: Array.from({ length: partitions }, (_, partitionIndex) => ({
            partitionIndex,
            timestamp: -1n,
          })),
        },
      ],
    });
    return listed[0].partitions.reduce((sum, partition) => sum + Number(partition.offset), 0);
  } finally {
    await client.close().catch(() => {});
  }
}

async function requireBroker(port) {
  if (!(await kafkaAnswers(port))) {
    throw new ServiceError(
      `nothing answers at localhost:${port}; start Kafka first: npm run services start kafka`,
    );
  }
}

/** `topic NAME [--partitions N]`: makes the topic (replication factor 1: one broker). */
async function makeTopic(args, { port, cacheDir }) {
  let name;
  let partitionsText = '1';
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    const inline = /^--partitions=(.*)$/.exec(arg);
    if (inline !== null) partitionsText = inline[1];
    else if (arg === '--partitions') {
      if (i + 1 >= args.length) throw new KafkaToolsUsageError('--partitions needs a value: --partitions N');
      partitionsText = args[++i];
    } else if (arg.startsWith('-')) throw new KafkaToolsUsageError(`unknown option ${arg}`);
    else if (name === undefined) name = arg;
    else throw new KafkaToolsUsageError(`kafka topic takes one topic name, not also "${arg}"`);
  }
  if (name === undefined) throw new KafkaToolsUsageError('kafka topic needs a topic name');
  const partitions = Number(partitionsText);
  if (!/^[0-9]+$/.test(partitionsText) || !Number.isSafeInteger(partitions) || partitions < 1) {
    throw new KafkaToolsUsageError(`--partitions takes a whole number, 1 or more, not "${partitionsText}"`);
  }
  await requireBroker(port);
  const at = `localhost:${port}`;
  const existing = await partitionCount(port, name);
  if (existing === partitions) return `topic "${name}" exists already (${plural(partitions)}) at ${at}`;
  if (existing !== undefined) {
    throw new ServiceError(
      `topic "${name}" exists already at ${at}, with ${plural(existing)}, not ${partitions}`,
    );
  }
  await runTool(
    cacheDir,
    'org.apache.kafka.tools.TopicCommand',
    [
      '--bootstrap-server',
      at,
      '--create',
      '--topic',
      name,
      '--partitions',
      String(partitions),
      '--replication-factor',
      '1',
    ],
    `making topic "${name}"`,
  );
  return `created topic "${name}" (${plural(partitions)}) at ${at}`;
}

function plural(partitions) {
  return `${partitions} partition${partitions === 1 ? '' : 's'}`;
}

/**
 * The records of a JSONL file, one a line (blank lines are none), each checked to be JSON
 * before anything is sent: a file with a bad line sends nothing.
 */
function jsonLines(file, shown) {
  let text;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ServiceError(`cannot read ${shown}: ${REASONS[error.code] ?? error.message}`);
  }
  const records = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].replace(/\r$/, '');
    if (line.trim() === '') continue;
    try {
      JSON.parse(line);
    } catch (error) {
      throw new ServiceError(`${shown}:${i + 1} is not JSON (${error.message}); nothing was sent`);
    }
    records.push(line);
  }
  return records;
}

/** `produce TOPIC FILE`: each line of the JSONL file a record (its value; no key). */
async function produce(args, { port, cacheDir }) {
  if (args.length !== 2 || args.some((arg) => arg.startsWith('-'))) {
    throw new KafkaToolsUsageError('kafka produce takes a topic and a JSONL file');
  }
  const [topic, shown] = args;
  // npm runs scripts in the package folder; the file is relative to where the user typed the command.
  const records = jsonLines(resolve(process.env.INIT_CWD ?? process.cwd(), shown), shown);
  await requireBroker(port);
  const at = `localhost:${port}`;
  const partitions = await partitionCount(port, topic);
  if (partitions === undefined) {
    throw new ServiceError(
      `there is no topic "${topic}" at ${at}; make it first: npm run services -- kafka topic ${topic} --partitions N`,
    );
  }
  const before = await recordsTaken(port, topic, partitions);
  const warnings = await runTool(
    cacheDir,
    'org.apache.kafka.tools.ConsoleProducer',
    ['--bootstrap-server', at, '--topic', topic, '--producer-property', 'acks=all'],
    `sending ${shown} to topic "${topic}"`,
    records.length === 0 ? '' : `${records.join('\n')}\n`,
  );
  // ConsoleProducer logs a record it could not send and still exits 0: the end offsets say.
  const taken = (await recordsTaken(port, topic, partitions)) - before;
  if (taken < records.length) {
    const why = warnings.split('\n').find((line) => line.startsWith('ERROR ')) ?? 'the producer said nothing';
    throw new ServiceError(
      `topic "${topic}" took ${taken} of the ${records.length} records of ${shown}: ${why.replace(/^ERROR /, '')}`,
    );
  }
  return `sent ${records.length} record${records.length === 1 ? '' : 's'} from ${shown} to topic "${topic}"`;
}

/** Runs `kafka topic …` or `kafka produce …` (args from the tool's name on); resolves to the line to print. */
export function kafkaTool(args, settings) {
  const [tool, ...rest] = args;
  if (tool === 'topic') return makeTopic(rest, settings);
  if (tool === 'produce') return produce(rest, settings);
  throw new KafkaToolsUsageError(`unknown kafka command "${tool}"`);
}
