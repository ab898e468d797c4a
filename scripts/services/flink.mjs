// Apache Flink 2.3's standalone session cluster, as flink-dist's bin/start-cluster.sh starts one,
// from Maven Central's jars (flink-pom.xml; flink-dist itself is not served there): one
// JobManager (StandaloneSessionClusterEntrypoint) and two TaskManagers (TaskManagerRunner), each
// its own JVM in the background on loopback, with a folder of its own (config.yaml,
// log4j.properties, temporary files) in the services folder. The memory flags are
// BashJavaUtils's, which flink-dist's scripts call too; the settings that make a TaskManager's
// loss short and recovery independent of the cluster's age are
// /work/shared/design/flink-cluster-notes.md's measured ones.
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fetchedJars } from './kafka.mjs';
import {
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
const FLINK_VERSION = '2.3.0';
/** The jar whose presence says the cluster's jars are all there (they are renamed into place at once). */
const RUNTIME_JAR = `flink-runtime-${FLINK_VERSION}.jar`;
const JOB_MANAGER_CLASS = 'org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint';
const TASK_MANAGER_CLASS = 'org.apache.flink.runtime.taskexecutor.TaskManagerRunner';
const BASH_JAVA_UTILS_CLASS = 'org.apache.flink.runtime.util.bash.BashJavaUtils';
const HOST = '127.0.0.1';
export const SLOTS_PER_TASK_MANAGER = 2;
/** How long a start may take before it is given up: a loaded 2-core machine starts three JVMs. */
const START_TIMEOUT_MS = 180_000;

/**
 * `env.java.opts.all` of flink-dist's default config.yaml (kept in flink/jvm-options.txt): what
 * Flink needs opened on Java 17 (without java.util's, a job's submission through REST fails with
 * InaccessibleObjectException).
 */
export const JAVA_OPTS_ALL = readFileSync(join(HERE, '..', '..', 'flink', 'jvm-options.txt'), 'utf8')
  .split('\n')
  .map((line) => line.trim())
  .filter((line) => line !== '' && !line.startsWith('#'));

/** The cluster's jars in `cacheDir`/flink-libs (flink-pom.xml). Resolves to the folder. */
export function flinkLibs(cacheDir) {
  return fetchedJars(cacheDir, {
    folder: 'flink-libs',
    pom: 'flink-pom.xml',
    marker: RUNTIME_JAR,
    what: "Flink's jars",
  });
}

/** 'jobmanager' or a TaskManager's index → its name: jobmanager, taskmanager-0, taskmanager-1… */
export function processName(role) {
  return role === 'jobmanager' ? 'jobmanager' : `taskmanager-${role}`;
}

/** Where a process of the cluster keeps what: its config folder, temporary files, log, stdout, pid. */
export function processPaths({ dir }, role) {
  const name = processName(role);
  const configDir = join(dir, name);
  return {
    configDir,
    tmpDir: join(configDir, 'tmp'),
    log: join(dir, `${name}.log`),
    out: join(dir, `${name}.out`),
    pidFile: join(dir, `${name}.pid`),
  };
}

/** Every port the cluster's processes listen on, with what listens there; they must all differ. */
export function flinkPorts(settings) {
  const ports = [
    ['REST', settings.port],
    ['JobManager RPC', settings.rpcPort],
    ['blob server', settings.blobPort],
    ['JobManager metrics', settings.metricsPort],
  ];
  settings.taskManagers.forEach((tm, index) => {
    ports.push([`TaskManager ${index} RPC`, tm.rpcPort]);
    ports.push([`TaskManager ${index} data`, tm.dataPort]);
    ports.push([`TaskManager ${index} metrics`, tm.metricsPort]);
  });
  const seen = new Map();
  for (const [what, port] of ports) {
    if (seen.has(port))
      throw new ServiceError(`Flink's ${what} port ${port} is also its ${seen.get(port)} port`);
    seen.set(port, what);
  }
  return ports;
}

/**
 * The configuration of the cluster's process `role` ('jobmanager' or a TaskManager's index), as
 * flat config.yaml keys: the cluster's own, and the ports and folders of this process.
 */
export function flinkConfig(settings, role) {
  flinkPorts(settings);
  const { tmpDir } = processPaths(settings, role);
  const config = {
    'env.java.opts.all': JAVA_OPTS_ALL.join(' '),
    'jobmanager.rpc.address': HOST,
    'jobmanager.bind-host': HOST,
    'jobmanager.rpc.port': settings.rpcPort,
    'jobmanager.memory.process.size': '1024m',
    'jobmanager.execution.failover-strategy': 'region',
    'blob.server.port': settings.blobPort,
    'rest.address': HOST,
    'rest.bind-address': HOST,
    'rest.port': settings.port,
    'taskmanager.host': HOST,
    'taskmanager.bind-host': HOST,
    'taskmanager.numberOfTaskSlots': SLOTS_PER_TASK_MANAGER,
    'taskmanager.memory.process.size': '1536m',
    'parallelism.default': 1,
    // A kill -9 is seen at once (connections drop), a frozen TaskManager within 6 s.
    'heartbeat.interval': 1000,
    'heartbeat.timeout': 6000,
    // Without a long start-up time, once the cluster is older than it each restart after a
    // TaskManager's loss fails at once (NoResourceAvailableException) and burns an attempt.
    'resourcemanager.standalone.start-up-time': 86_400_000,
    'slot.request.timeout': 60_000,
    'restart-strategy.type': 'fixed-delay',
    'restart-strategy.fixed-delay.attempts': 1000,
    'restart-strategy.fixed-delay.delay': '2 s',
    'state.backend.type': 'rocksdb',
    // The REST API's job metrics (pipewright flink --cluster's status line) are at most this old;
    // Flink's default, 10 s, left the line at 0 records for a short job's whole run.
    'metrics.fetcher.update-interval': 1000,
    'execution.checkpointing.dir': `file://${join(settings.dir, 'checkpoints')}`,
    'execution.checkpointing.savepoint-dir': `file://${join(settings.dir, 'savepoints')}`,
    // Temporary files (the flink-rpc-akka jar's copy, blobs, RocksDB's library) in the process's folder.
    'io.tmp.dirs': tmpDir,
    'web.tmpdir': tmpDir,
  };
  if (role === 'jobmanager') {
    config['metrics.internal.query-service.port'] = settings.metricsPort;
  } else {
    const tm = settings.taskManagers[role];
    if (tm === undefined) throw new ServiceError(`Flink has no TaskManager ${role}`);
    config['taskmanager.resource-id'] = `taskmanager-${role}`;
    config['taskmanager.rpc.port'] = tm.rpcPort;
    config['taskmanager.data.port'] = tm.dataPort;
    config['metrics.internal.query-service.port'] = tm.metricsPort;
  }
  return config;
}

/** config.yaml's text: one flat key a line, strings in double quotes (YAML reads JSON's). */
export function configYaml(config) {
  const lines = ['# Written by scripts/services/flink.mjs at each start: edits are lost.'];
  for (const [key, value] of Object.entries(config)) {
    lines.push(`${key}: ${typeof value === 'number' ? value : JSON.stringify(String(value))}`);
  }
  return `${lines.join('\n')}\n`;
}

/**
 * BashJavaUtils's output → { jvm, dynamic }: its two result lines, the JVM's memory flags
 * (-Xmx…) and the `-D key=value` pairs the process then takes as arguments (a TaskManager
 * refuses to start without them), as flink-dist's config.sh reads them.
 */
export function memoryArguments(output) {
  const PREFIX = 'BASH_JAVA_UTILS_EXEC_RESULT:';
  const results = output
    .split('\n')
    .filter((line) => line.startsWith(PREFIX))
    .map((line) => line.slice(PREFIX.length).trim());
  if (results.length !== 2) {
    throw new ServiceError(`BashJavaUtils printed ${results.length} result lines, not 2: ${output.trim()}`);
  }
  const words = (line) => line.split(/\s+/).filter(Boolean);
  return { jvm: words(results[0]), dynamic: words(results[1]) };
}

/** The java command's arguments for the process `role`, given its memory arguments. */
export function javaArguments(settings, role, memory, libs, jvmOptions = []) {
  const { configDir, tmpDir, log } = processPaths(settings, role);
  return [
    ...JAVA_OPTS_ALL,
    ...memory.jvm,
    ...jvmOptions,
    `-Djava.io.tmpdir=${tmpDir}`,
    `-Dlog.file=${log}`,
    `-Dlog4j.configurationFile=file:${join(configDir, 'log4j.properties')}`,
    '-cp',
    `${libs}/*`,
    role === 'jobmanager' ? JOB_MANAGER_CLASS : TASK_MANAGER_CLASS,
    '--configDir',
    configDir,
    ...memory.dynamic,
  ];
}

/** Writes the process's config.yaml and log4j.properties, and empties its temporary folder. */
function prepareProcess(settings, role) {
  const { configDir, tmpDir } = processPaths(settings, role);
  // Flink looks for plugins in `plugins` of its working directory, and warns when there is none.
  mkdirSync(join(configDir, 'plugins'), { recursive: true });
  writeFileSync(join(configDir, 'config.yaml'), configYaml(flinkConfig(settings, role)));
  copyFileSync(join(HERE, 'flink-log4j.properties'), join(configDir, 'log4j.properties'));
  // What a JVM killed with -9 left: its 24 MB flink-rpc-akka*.jar copy, blobs, RocksDB's files.
  rmSync(tmpDir, { recursive: true, force: true });
  mkdirSync(tmpDir, { recursive: true });
}

async function memoryOf(settings, role, libs) {
  const { configDir } = processPaths(settings, role);
  const command = role === 'jobmanager' ? 'GET_JM_RESOURCE_PARAMS' : 'GET_TM_RESOURCE_PARAMS';
  const output = await run(
    JAVA,
    ['-Xmx128m', '-cp', `${libs}/*`, BASH_JAVA_UTILS_CLASS, command, '--configDir', configDir],
    `Computing Flink's ${processName(role)} memory (BashJavaUtils)`,
  );
  return memoryArguments(output);
}

function spawnProcess(settings, role, memory, libs, jvmOptions) {
  const { configDir, out, pidFile } = processPaths(settings, role);
  return spawnInBackground(JAVA, javaArguments(settings, role, memory, libs, jvmOptions), {
    logFile: out,
    pidFile,
    cwd: configDir,
  });
}

/**
 * The pid of the process `role` of the cluster in `dir`, when it runs: its pid file names a live
 * process whose command line names this process's config folder (not another that got the pid).
 */
export function flinkPid(settings, role) {
  const { configDir, pidFile } = processPaths(settings, role);
  const pid = readPid(pidFile);
  if (pid === undefined || !processAlive(pid)) return undefined;
  try {
    const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    return args.includes(configDir) ? pid : undefined;
  } catch {
    // Off Linux, or it has just exited.
    return process.platform === 'linux' ? undefined : pid;
  }
}

const roles = (settings) => ['jobmanager', ...settings.taskManagers.map((_, index) => index)];

/** The REST API's /overview at 127.0.0.1:port, or undefined when it does not answer one. */
export async function flinkOverview(port) {
  try {
    const response = await fetch(`http://${HOST}:${port}/overview`, { signal: AbortSignal.timeout(3000) });
    if (!response.ok) return undefined;
    const overview = await response.json();
    return typeof overview?.['slots-total'] === 'number' ? overview : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a Flink JobManager's REST API answers at 127.0.0.1:port. */
export async function flinkAnswers(port) {
  return (await flinkOverview(port)) !== undefined;
}

/**
 * Resolves once the cluster at `port` reports `taskManagers` TaskManagers and `slots` slots;
 * `check` (optional) runs at each poll, to fail early (a process that exited).
 */
export async function waitForFlink(port, { taskManagers, slots }, timeoutMs, what, check = () => {}) {
  let last;
  try {
    await waitUntil(
      async () => {
        check();
        last = await flinkOverview(port);
        return last?.taskmanagers === taskManagers && last?.['slots-total'] === slots;
      },
      timeoutMs,
      what,
      250,
    );
  } catch (error) {
    if (error instanceof ServiceError && error.message === what && last !== undefined) {
      throw new ServiceError(
        `${what} (it reports ${last.taskmanagers} TaskManagers, ${last['slots-total']} slots)`,
      );
    }
    throw error;
  }
}

/**
 * Starts the cluster of `settings` (settings.mjs's flink, or a private one's) and resolves once
 * its REST API reports every TaskManager and slot. Fails, leaving nothing running, when a
 * process of it still runs from its folder, when one exits, or after `timeoutMs`.
 */
export async function startFlink(settings, { jvmOptions = [], timeoutMs = START_TIMEOUT_MS } = {}) {
  requireProgram(JAVA, 'openjdk-17-jre-headless', 'java');
  flinkPorts(settings);
  for (const role of roles(settings)) {
    const pid = flinkPid(settings, role);
    if (pid !== undefined) {
      throw new ServiceError(
        `Flink's ${processName(role)} still runs from ${settings.dir} (pid ${pid}): stop it first`,
      );
    }
  }
  const libs = await flinkLibs(settings.cacheDir);
  mkdirSync(settings.dir, { recursive: true });
  for (const role of roles(settings)) prepareProcess(settings, role);
  // Every TaskManager's memory is the same: BashJavaUtils once for the JobManager, once for them.
  const [jobManagerMemory, taskManagerMemory] = await Promise.all([
    memoryOf(settings, 'jobmanager', libs),
    memoryOf(settings, 0, libs),
  ]);
  const { log } = processPaths(settings, 'jobmanager');
  try {
    spawnProcess(settings, 'jobmanager', jobManagerMemory, libs, jvmOptions);
    for (const [index] of settings.taskManagers.entries()) {
      spawnProcess(settings, index, taskManagerMemory, libs, jvmOptions);
    }
    const count = settings.taskManagers.length;
    await waitForFlink(
      settings.port,
      { taskManagers: count, slots: count * SLOTS_PER_TASK_MANAGER },
      timeoutMs,
      `Flink did not report ${count} TaskManagers on ${HOST}:${settings.port} within ${timeoutMs / 1000} s (see ${log})`,
      () => {
        for (const role of roles(settings)) {
          if (flinkPid(settings, role) === undefined) {
            const paths = processPaths(settings, role);
            throw new ServiceError(
              `Flink's ${processName(role)} exited while starting (see ${paths.log} and ${paths.out})`,
            );
          }
        }
      },
    );
  } catch (error) {
    await stopFlink(settings, { kill: true });
    throw error;
  }
}

/** Kills (SIGKILL) what remains of the process group a background process leads. */
function killGroup(pid) {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Gone already.
  }
}

async function stopProcess(settings, role, kill) {
  const pid = flinkPid(settings, role);
  const { pidFile } = processPaths(settings, role);
  if (pid === undefined) {
    rmSync(pidFile, { force: true });
    return false;
  }
  if (kill) process.kill(pid, 'SIGKILL');
  await stopPid(pid);
  killGroup(pid);
  rmSync(pidFile, { force: true });
  return true;
}

/** Removes the processes' temporary folders (run once none of them runs). */
function clearTemporaryFiles(settings) {
  for (const role of roles(settings)) {
    const { tmpDir } = processPaths(settings, role);
    if (existsSync(tmpDir) && flinkPid(settings, role) === undefined) {
      rmSync(tmpDir, { recursive: true, force: true });
    }
  }
}

/**
 * Stops every process of the cluster running from settings.dir (SIGTERM, SIGKILL after 30 s, or
 * at once with `kill: true`) and clears their temporary files. False when none was running.
 */
export async function stopFlink(settings, { kill = false } = {}) {
  const stopped = await Promise.all(roles(settings).map((role) => stopProcess(settings, role, kill)));
  clearTemporaryFiles(settings);
  return stopped.some(Boolean);
}

/** Kills the TaskManager `index` with SIGKILL (a crash); resolves once it is gone. False when it was not running. */
export async function killTaskManager(settings, index) {
  return stopProcess(settings, index, true);
}

/**
 * Starts the TaskManager `index` again (after killTaskManager) with the cluster's settings;
 * resolves to its pid once it is spawned, not once it has registered (waitForFlink).
 */
export async function startTaskManager(settings, index, { jvmOptions = [] } = {}) {
  if (settings.taskManagers[index] === undefined) throw new ServiceError(`Flink has no TaskManager ${index}`);
  const running = flinkPid(settings, index);
  if (running !== undefined) {
    throw new ServiceError(`Flink's ${processName(index)} already runs (pid ${running})`);
  }
  const libs = await flinkLibs(settings.cacheDir);
  prepareProcess(settings, index);
  return spawnProcess(settings, index, await memoryOf(settings, index, libs), libs, jvmOptions);
}

/** The flink-rpc-akka*.jar copies in the cluster's temporary folders (none once it stopped). */
export function rpcJarCopies(settings) {
  return roles(settings).flatMap((role) => {
    const { tmpDir } = processPaths(settings, role);
    if (!existsSync(tmpDir)) return [];
    return readdirSync(tmpDir)
      .filter((name) => /^flink-rpc-akka.*\.jar$/.test(name))
      .map((name) => join(tmpDir, name));
  });
}
