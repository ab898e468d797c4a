// Apache Kafka's own broker in KRaft mode, one node that is broker and controller: its jars
// fetched from Maven Central with Maven once (pom.xml beside this file), its storage formatted
// once, then `java -cp 'libs/*' kafka.Kafka server.properties` in the background.
import { randomBytes } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { classArchiveOptions, keepClassArchive } from './classArchive.mjs';
import {
  portAnswers,
  processAlive,
  readPid,
  requireProgram,
  run,
  ServiceError,
  spawnInBackground,
  stopPid,
  waitUntil,
} from './processes.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const JAVA = '/usr/bin/java';
const MVN = '/usr/bin/mvn';
/** The jar whose presence says the broker's jars are all there (they are renamed into place at once). */
const BROKER_JAR = 'kafka_2.13-4.1.1.jar';

/**
 * The jars a pom (beside this file) names, in `cacheDir`/`folder`, fetched with Maven the first
 * time (into a folder renamed into place when complete, so that an interrupted fetch is not taken
 * for the jars). `marker` is the jar whose presence says they are all there. Resolves to the folder.
 */
export async function fetchedJars(cacheDir, { folder, pom, marker, what }) {
  const libs = join(cacheDir, folder);
  if (existsSync(join(libs, marker))) return libs;
  requireProgram(JAVA, 'openjdk-17-jre-headless', 'java');
  requireProgram(MVN, 'maven', 'mvn');
  mkdirSync(cacheDir, { recursive: true });
  const work = join(cacheDir, `${folder}.fetching-${process.pid}`);
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work);
  copyFileSync(join(HERE, pom), join(work, 'pom.xml'));
  await run(
    MVN,
    [
      '-q',
      '-B',
      '-f',
      join(work, 'pom.xml'),
      'dependency:copy-dependencies',
      `-DoutputDirectory=${join(work, 'libs')}`,
    ],
    `Fetching ${what} with Maven`,
    { cwd: work },
  );
  // Another process (a parallel test file) may have fetched them meanwhile: keep whichever came first.
  if (!existsSync(join(libs, marker))) {
    rmSync(libs, { recursive: true, force: true });
    renameSync(join(work, 'libs'), libs);
  }
  rmSync(work, { recursive: true, force: true });
  return libs;
}

/** The broker's jars in `cacheDir`/kafka-libs (pom.xml). Resolves to the folder. */
export function kafkaLibs(cacheDir) {
  return fetchedJars(cacheDir, {
    folder: 'kafka-libs',
    pom: 'pom.xml',
    marker: BROKER_JAR,
    what: "Kafka's jars",
  });
}

/** A cluster id as Kafka writes them: 16 random bytes, URL-safe base64, not starting with '-'. */
function clusterId() {
  for (;;) {
    const id = randomBytes(16).toString('base64url');
    if (!id.startsWith('-')) return id;
  }
}

function serverProperties(dir, port, controllerPort, extraProperties) {
  const template = readFileSync(join(HERE, 'kafka-server.properties'), 'utf8');
  const values = { PORT: port, CONTROLLER_PORT: controllerPort, DATA_DIR: join(dir, 'data') };
  const extra = Object.entries(extraProperties).map(([key, value]) => `${key}=${value}\n`);
  return template.replace(/\$\{(\w+)\}/g, (_, name) => String(values[name])) + extra.join('');
}

/** Whether a Kafka broker at localhost:port answers a metadata request listing itself. */
export async function kafkaAnswers(port) {
  if (!(await portAnswers(port))) return false;
  // Imported here: it takes half a second of CPU, which commands about the other servers skip.
  const { Admin } = await import('@platformatic/kafka');
  const admin = new Admin({
    clientId: 'pipewright-services',
    bootstrapBrokers: [`localhost:${port}`],
    retries: 0,
    connectTimeout: 1000,
    requestTimeout: 3000,
  });
  try {
    const metadata = await admin.metadata({ topics: [] });
    return metadata.brokers.size > 0;
  } catch {
    return false;
  } finally {
    await admin.close().catch(() => {});
  }
}

/**
 * Starts the broker with its config, data, log and pid file in `dir` (storage formatted the
 * first time only) and resolves once it answers a metadata request. `jvmOptions`,
 * `extraProperties` and `shareClasses` (classArchive.mjs) are for private instances that want a
 * quick start over peak speed.
 */
export async function startKafka({
  dir,
  port,
  controllerPort,
  cacheDir,
  heap = '1g',
  jvmOptions = [],
  extraProperties = {},
  shareClasses = false,
}) {
  requireProgram(JAVA, 'openjdk-17-jre-headless', 'java');
  const libs = await kafkaLibs(cacheDir);
  mkdirSync(dir, { recursive: true });
  const properties = join(dir, 'server.properties');
  writeFileSync(properties, serverProperties(dir, port, controllerPort, extraProperties));
  copyFileSync(join(HERE, 'kafka-log4j.properties'), join(dir, 'log4j.properties'));
  const classpath = `${libs}/*`;
  if (!existsSync(join(dir, 'data', 'meta.properties'))) {
    await run(
      JAVA,
      [
        '-Xmx256m',
        '-XX:TieredStopAtLevel=1',
        '-cp',
        classpath,
        'kafka.tools.StorageTool',
        'format',
        '-t',
        clusterId(),
        '-c',
        properties,
        '--standalone',
      ],
      "Formatting Kafka's storage",
      { cwd: dir },
    );
  }
  const logFile = join(dir, 'kafka.log');
  const pid = spawnInBackground(
    JAVA,
    [
      `-Xmx${heap}`,
      ...jvmOptions,
      ...(shareClasses ? classArchiveOptions(dir, join(cacheDir, 'kafka-classes.jsa')) : []),
      `-Dkafka.logs.dir=${dir}`,
      `-Dlog4j.configuration=file:${join(dir, 'log4j.properties')}`,
      '-cp',
      classpath,
      'kafka.Kafka',
      properties,
    ],
    { logFile, pidFile: join(dir, 'kafka.pid'), cwd: dir },
  );
  await waitUntil(
    async () => {
      if (!processAlive(pid)) {
        throw new ServiceError(
          `Kafka exited while starting on localhost:${port} (see ${join(dir, 'server.log')})`,
        );
      }
      return kafkaAnswers(port);
    },
    120_000,
    `Kafka did not answer on localhost:${port} within 120 s (see ${join(dir, 'server.log')})`,
    200,
  );
}

/** Whether a broker runs from `dir` (its pid file names a live process). */
export function kafkaRunning({ dir }) {
  const pid = readPid(join(dir, 'kafka.pid'));
  return pid !== undefined && processAlive(pid);
}

/**
 * Stops the broker running from `dir`, keeping its data: a controlled shutdown (SIGTERM), or
 * `kill: true` for SIGKILL at once (a crash). False when none was running from there.
 */
export async function stopKafka({ dir, kill = false }) {
  const pid = readPid(join(dir, 'kafka.pid'));
  if (pid === undefined || !processAlive(pid)) return false;
  if (kill) process.kill(pid, 'SIGKILL');
  await stopPid(pid);
  keepClassArchive(dir);
  return true;
}
