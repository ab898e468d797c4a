// A PostgreSQL, Kafka or Flink cluster of a test's own, on free ports in a temporary folder, for
// tests that stop the server mid-run (outages, a TaskManager's loss): the shared servers of `npm
// run services` are never stopped. The same start and stop code as `npm run services`
// (scripts/services/).
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { classArchivePending } from '../../scripts/services/classArchive.mjs';
import { killTaskManager, startFlink, startTaskManager, stopFlink } from '../../scripts/services/flink.mjs';
import { startKafka, stopKafka } from '../../scripts/services/kafka.mjs';
import { postgresUrl, startPostgres, stopPostgres } from '../../scripts/services/postgres.mjs';
import { freeConsecutivePorts, freePort } from '../../scripts/services/processes.mjs';
import { type FlinkSettings, flinkPortsFrom, servicesSettings } from '../../scripts/services/settings.mjs';

export interface PrivateServer {
  /** Stops the server (its process goes away), keeping its data. `crash`: SIGKILL / immediate shutdown instead of a clean stop. */
  stop(options?: { crash?: boolean }): Promise<void>;
  /** Starts it again on the same port with the same data; resolves once it answers. */
  start(): Promise<void>;
  /** Stops it and deletes its folder. */
  close(): Promise<void>;
}

export interface PrivatePostgres extends PrivateServer {
  /** postgres://pipewright:pipewright@127.0.0.1:<port>/pipewright */
  url: string;
  port: number;
}

export interface PrivateKafka extends PrivateServer {
  /** localhost:<port> */
  brokers: string;
  port: number;
}

function temporaryFolder(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  // mkdtemp makes it 0700; PostgreSQL runs as `postgres` when we are root and must reach it.
  chmodSync(dir, 0o755);
  return dir;
}

/** A PostgreSQL like the shared one (same settings, role and database) on a free port. */
export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const dir = temporaryFolder('pw-pg-');
  const port = await freePort();
  const start = () => startPostgres({ dir, port });
  try {
    await start();
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const stop = async (options?: { crash?: boolean }) => {
    await stopPostgres({ dir, mode: options?.crash ? 'immediate' : 'fast' });
  };
  return {
    url: postgresUrl(port),
    port,
    start,
    stop,
    close: async () => {
      await stop({ crash: true });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Startup over peak speed: a private broker carries a test's few records, so a small heap, C1
 * only, the serial collector and a shared class archive (the JVM is up sooner). A broker that was killed is registered
 * again only once its old session has expired: 2 s here rather than Kafka's 9 s.
 */
const QUICK_JVM = ['-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC'];
const QUICK_PROPERTIES = { 'broker.session.timeout.ms': 2000, 'broker.heartbeat.interval.ms': 250 };

/** A Kafka broker like the shared one (KRaft, one node, same settings) on free ports. */
export async function startPrivateKafka(): Promise<PrivateKafka> {
  const dir = temporaryFolder('pw-kafka-');
  const port = await freePort();
  const controllerPort = await freePort();
  const { cacheDir } = servicesSettings().kafka;
  const start = () =>
    startKafka({
      dir,
      port,
      controllerPort,
      cacheDir,
      heap: '384m',
      jvmOptions: QUICK_JVM,
      extraProperties: QUICK_PROPERTIES,
      shareClasses: true,
    });
  try {
    await start();
  } catch (error) {
    await stopKafka({ dir, kill: true });
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const stop = async (options?: { crash?: boolean }) => {
    await stopKafka({ dir, kill: options?.crash === true });
  };
  return {
    brokers: `localhost:${port}`,
    port,
    start,
    stop,
    close: async () => {
      // A clean stop when this broker is the one to write the class archive for the next ones.
      await stop({ crash: !classArchivePending(dir) });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface PrivateFlink {
  /** The REST API: http://127.0.0.1:<port> */
  url: string;
  port: number;
  settings: FlinkSettings;
  /** Kills TaskManager `index` with SIGKILL; resolves once the process is gone. */
  killTaskManager(index: number): Promise<void>;
  /** Starts TaskManager `index` again; resolves once it is spawned (not registered). */
  startTaskManager(index: number): Promise<void>;
  /** Stops the cluster (every process) and deletes its folder. */
  close(): Promise<void>;
}

/**
 * A Flink cluster like the shared one (a JobManager, two TaskManagers of 2 slots, the same
 * config) on free ports in a folder of its own; resolves once it reports its 4 slots.
 */
export async function startPrivateFlink(): Promise<PrivateFlink> {
  const dir = temporaryFolder('pw-flink-');
  // Ten in a row, REST first: a free port taken alone is free again once let go, and a second
  // search could hand it out among the other nine (a cluster refused "its RPC port is also its
  // REST port" once in the soak tier).
  const port = await freeConsecutivePorts(10);
  const settings: FlinkSettings = {
    dir,
    cacheDir: servicesSettings().flink.cacheDir,
    port,
    ...flinkPortsFrom(port + 1),
  };
  try {
    await startFlink(settings);
  } catch (error) {
    await stopFlink(settings, { kill: true });
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    settings,
    killTaskManager: async (index) => {
      await killTaskManager(settings, index);
    },
    startTaskManager: async (index) => {
      await startTaskManager(settings, index);
    },
    close: async () => {
      await stopFlink(settings, { kill: true });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
