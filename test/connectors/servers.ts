// Where the connector tests find their servers (started by `npm run services`; Flink's cluster
// serves the Flink runner's tests too), and whether they may skip. Outside CI a test file whose
// server does not answer skips (globalSetup prints one line saying which and how to start them);
// with PIPEWRIGHT_REQUIRE_SERVICES=1 (.ci/run sets it) a missing server fails the file instead.
import { connect } from 'node:net';
import { describe, it } from 'vitest';

export type ServerName = 'kafka' | 'postgres' | 'redis' | 'flink';

export const KAFKA_BROKERS = process.env.PIPEWRIGHT_KAFKA_BROKERS ?? 'localhost:9092';
export const PG_URL =
  process.env.PIPEWRIGHT_PG_URL ?? 'postgres://pipewright:pipewright@127.0.0.1:5432/pipewright';
export const REDIS_URL = process.env.PIPEWRIGHT_REDIS_URL ?? 'redis://127.0.0.1:6379';
/** The REST API of the Flink cluster's JobManager. */
export const FLINK_URL = process.env.PIPEWRIGHT_FLINK_URL ?? 'http://127.0.0.1:8081';

export const SERVICES_REQUIRED = process.env.PIPEWRIGHT_REQUIRE_SERVICES === '1';

/** host:port of a server, from its URL or broker list. */
export function serverAddress(name: ServerName): { host: string; port: number } {
  const text = {
    kafka: `kafka://${KAFKA_BROKERS.split(',')[0]}`,
    postgres: PG_URL,
    redis: REDIS_URL,
    flink: FLINK_URL,
  }[name];
  const url = new URL(text);
  const port = Number(url.port || { kafka: 9092, postgres: 5432, redis: 6379, flink: 80 }[name]);
  return { host: url.hostname, port };
}

/** Whether something accepts connections at the server's port (within a second). */
export function serverAnswers(name: ServerName): Promise<boolean> {
  const { host, port } = serverAddress(name);
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (up: boolean) => {
      socket.destroy();
      resolve(up);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/**
 * `describe` for tests that need `name`'s server: skipped when it does not answer, unless the
 * services are required, when the file fails saying which server is missing.
 */
export async function describeWithServer(name: ServerName, title: string, body: () => void): Promise<void> {
  return describeWithServers([name], title, body);
}

/** describeWithServer for tests that need several servers: skipped (or failing) when any is missing. */
export async function describeWithServers(
  names: readonly ServerName[],
  title: string,
  body: () => void,
): Promise<void> {
  const answers = await Promise.all(names.map(serverAnswers));
  const missing = names.filter((_, i) => !answers[i]);
  if (missing.length > 0 && SERVICES_REQUIRED) {
    describe(title, () => {
      for (const name of missing) {
        it(`needs ${name} at ${serverAddress(name).host}:${serverAddress(name).port}`, () => {
          throw new Error(
            `${name} does not answer at ${serverAddress(name).host}:${serverAddress(name).port}, and PIPEWRIGHT_REQUIRE_SERVICES=1: start it with \`npm run services start\``,
          );
        });
      }
    });
    return;
  }
  describe.skipIf(missing.length > 0)(title, body);
}
