// Where `npm run services` keeps its servers' data and which ports they listen on: the shared
// defaults the connector tests expect, or other ones from the environment (to try the script
// beside servers that already run, and for the script's own tests).
import { join } from 'node:path';

/** Outside the work tree, so that neither git nor biome nor vitest ever walk the servers' data. */
export const DEFAULT_SERVICES_DIR = '/var/tmp/pipewright-services';

function port(name, fallback) {
  const text = process.env[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value <= 0 || value > 65535) {
    throw new Error(`${name} must be a port number, not "${text}"`);
  }
  return value;
}

/**
 * The Flink cluster's ports besides REST: nine from `first` on, one per listening socket (the
 * JobManager's RPC, blob server and metrics; each TaskManager's RPC, data and metrics).
 */
export function flinkPortsFrom(first) {
  if (first + 8 > 65535)
    throw new Error(`PIPEWRIGHT_FLINK_RPC_PORT leaves no room for 9 ports from ${first}`);
  return {
    rpcPort: first,
    blobPort: first + 1,
    metricsPort: first + 2,
    taskManagers: [0, 1].map((index) => ({
      rpcPort: first + 3 + 3 * index,
      dataPort: first + 4 + 3 * index,
      metricsPort: first + 5 + 3 * index,
    })),
  };
}

export function servicesSettings() {
  const dir = process.env.PIPEWRIGHT_SERVICES_DIR || DEFAULT_SERVICES_DIR;
  return {
    dir,
    postgres: { dir: join(dir, 'postgres'), port: port('PIPEWRIGHT_PG_PORT', 5432) },
    redis: { dir: join(dir, 'redis'), port: port('PIPEWRIGHT_REDIS_PORT', 6379) },
    kafka: {
      dir: join(dir, 'kafka'),
      // Kafka's jars (43 MB) are kept here: tests that use a folder of their own share the fetched ones.
      cacheDir: process.env.PIPEWRIGHT_SERVICES_CACHE_DIR || dir,
      port: port('PIPEWRIGHT_KAFKA_PORT', 9092),
      controllerPort: port('PIPEWRIGHT_KAFKA_CONTROLLER_PORT', 9093),
    },
    flink: {
      dir: join(dir, 'flink'),
      // Flink's jars (135 MB), shared as Kafka's are.
      cacheDir: process.env.PIPEWRIGHT_SERVICES_CACHE_DIR || dir,
      // The REST API (and web UI); the other ports follow PIPEWRIGHT_FLINK_RPC_PORT.
      port: port('PIPEWRIGHT_FLINK_PORT', 8081),
      ...flinkPortsFrom(port('PIPEWRIGHT_FLINK_RPC_PORT', 6123)),
    },
  };
}
