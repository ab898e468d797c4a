// Soak (each server started and stopped, Kafka's JVM several times): `npm run services` and the
// private servers of the outage tests, on ports and folders of their own: the shared servers
// (5432, 6379, 9092, 8081) are never touched. The line npm test prints when connector tests skip:
// skippedNotice.test.ts.
import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Admin } from '@platformatic/kafka';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freeConsecutivePorts, freePort } from '../../scripts/services/processes.mjs';
import { servicesSettings } from '../../scripts/services/settings.mjs';
import { startPrivateKafka, startPrivatePostgres } from './privateServers.js';
import { SERVICES_REQUIRED } from './servers.js';

const installed =
  existsSync('/usr/bin/redis-server') &&
  existsSync('/usr/lib/postgresql') &&
  existsSync('/usr/bin/java') &&
  existsSync('/usr/bin/mvn');

async function pgValue(url: string, sql: string): Promise<unknown> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  await client.connect();
  try {
    return (await client.query(sql)).rows[0]?.value;
  } finally {
    await client.end();
  }
}

async function topics(brokers: string): Promise<string[]> {
  const admin = new Admin({ clientId: 'services-test', bootstrapBrokers: [brokers] });
  try {
    return await admin.listTopics();
  } finally {
    await admin.close();
  }
}

// Without the programs (a machine that never ran `npm run services`) there is nothing to test;
// CI installs them and requires them.
describe.skipIf(!installed && !SERVICES_REQUIRED)('servers of the connector tests', () => {
  it('a private PostgreSQL keeps its data across stop and start, and close deletes it', async () => {
    const server = await startPrivatePostgres();
    try {
      await pgValue(server.url, 'CREATE TABLE kept AS SELECT 42 AS n');
      expect(await pgValue(server.url, "SELECT current_setting('wal_level') AS value")).toBe('logical');
      await server.stop();
      await expect(pgValue(server.url, 'SELECT 1 AS value')).rejects.toThrow(/ECONNREFUSED/);
      await server.start();
      expect(await pgValue(server.url, 'SELECT n AS value FROM kept')).toBe(42);
      await server.stop({ crash: true });
      await server.start();
      expect(await pgValue(server.url, 'SELECT n AS value FROM kept')).toBe(42);
      const wrong = server.url.replace('pipewright:pipewright@', 'pipewright:wrong@');
      await expect(pgValue(wrong, 'SELECT 1 AS value')).rejects.toThrow(/password authentication failed/);
    } finally {
      await server.close();
    }
    await expect(pgValue(server.url, 'SELECT 1 AS value')).rejects.toThrow(/ECONNREFUSED/);
  });

  it('a private Kafka keeps its topics across stop and start', async () => {
    const server = await startPrivateKafka();
    try {
      const admin = new Admin({ clientId: 'services-test', bootstrapBrokers: [server.brokers] });
      await admin.createTopics({ topics: ['kept'], partitions: 1, replicas: 1 });
      await admin.close();
      await server.stop({ crash: true });
      await expect(topics(server.brokers)).rejects.toThrow();
      await server.start();
      expect(await topics(server.brokers)).toContain('kept');
      await server.stop();
      await server.start();
      expect(await topics(server.brokers)).toContain('kept');
    } finally {
      await server.close();
    }
  });

  describe('npm run services', () => {
    let dir = '';
    let env: NodeJS.ProcessEnv = process.env;
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'pw-services-'));
      // PostgreSQL runs as `postgres` under root and must reach its folder in here.
      chmodSync(dir, 0o755);
    });
    afterAll(async () => {
      await services('stop').catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    });

    function services(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
      return new Promise((resolve) => {
        execFile('node', ['scripts/services.mjs', ...args], { env }, (error, stdout, stderr) => {
          resolve({ code: error === null ? 0 : Number(error.code), stdout, stderr });
        });
      });
    }

    it('starts, reports, leaves a running server alone and stops PostgreSQL, Redis, Kafka and Flink', async () => {
      env = {
        ...process.env,
        PIPEWRIGHT_SERVICES_DIR: dir,
        // The Kafka and Flink jars the shared services fetched (or fetch now, once).
        PIPEWRIGHT_SERVICES_CACHE_DIR: servicesSettings().kafka.cacheDir,
        PIPEWRIGHT_PG_PORT: String(await freePort()),
        PIPEWRIGHT_REDIS_PORT: String(await freePort()),
        PIPEWRIGHT_KAFKA_PORT: String(await freePort()),
        PIPEWRIGHT_KAFKA_CONTROLLER_PORT: String(await freePort()),
        // Ten in a row, REST first, so that no search hands one of them out twice.
        ...(await freeConsecutivePorts(10).then((first) => ({
          PIPEWRIGHT_FLINK_PORT: String(first),
          PIPEWRIGHT_FLINK_RPC_PORT: String(first + 1),
        }))),
      };
      const flinkUrl = `http://127.0.0.1:${env.PIPEWRIGHT_FLINK_PORT}`;
      const pgUrl = `postgres://pipewright:pipewright@127.0.0.1:${env.PIPEWRIGHT_PG_PORT}/pipewright`;

      const down = await services('status');
      expect(down.code).toBe(3);
      expect(down.stdout).toContain(`redis: not running (redis://127.0.0.1:${env.PIPEWRIGHT_REDIS_PORT})`);

      const started = await services('start');
      expect(started.stderr).toBe('');
      expect(started.code).toBe(0);
      expect(started.stdout).toContain(`postgres: started at ${pgUrl}`);
      expect(started.stdout).toContain(`redis: started at redis://127.0.0.1:${env.PIPEWRIGHT_REDIS_PORT}`);
      expect(started.stdout).toContain(`kafka: started at localhost:${env.PIPEWRIGHT_KAFKA_PORT}`);
      expect(started.stdout).toContain(`flink: started at ${flinkUrl}`);
      expect(await pgValue(pgUrl, "SELECT current_setting('max_prepared_transactions') AS value")).toBe(
        '100',
      );

      const again = await services('start', 'redis');
      expect(again.stdout.trim()).toBe(
        `redis: already running at redis://127.0.0.1:${env.PIPEWRIGHT_REDIS_PORT}`,
      );

      const up = await services('status');
      expect(up.code).toBe(0);
      expect(up.stdout.trim().split('\n')).toEqual([
        `postgres: answers at ${pgUrl}`,
        `redis: answers at redis://127.0.0.1:${env.PIPEWRIGHT_REDIS_PORT}`,
        `kafka: answers at localhost:${env.PIPEWRIGHT_KAFKA_PORT}`,
        `flink: answers at ${flinkUrl}`,
      ]);

      const stopped = await services('stop');
      expect(stopped.stdout.trim().split('\n')).toEqual([
        'postgres: stopped',
        'redis: stopped',
        'kafka: stopped',
        'flink: stopped',
      ]);
      expect((await services('status')).stdout).not.toContain('answers');
    });

    it('says in one line what is wrong with its arguments', async () => {
      const result = await services('start', 'mysql');
      expect(result.code).toBe(1);
      expect(result.stderr.trim()).toBe(
        'unknown server "mysql"; usage: npm run services [start|stop|status] [postgres|redis|kafka|flink]...',
      );
    });
  });
});
