#!/usr/bin/env node
// `npm run services [start|stop|status] [postgres|redis|kafka|flink]...`: the real servers the
// connector tests and the Flink runner's tests talk to (README, "Connector tests and servers").
// Data, logs and pid files in /var/tmp/pipewright-services (PIPEWRIGHT_SERVICES_DIR); ports 5432,
// 6379, 9092/9093, 8081 (Flink's REST API; its other ports 6123-6131) unless PIPEWRIGHT_PG_PORT,
// PIPEWRIGHT_REDIS_PORT, PIPEWRIGHT_KAFKA_PORT, PIPEWRIGHT_KAFKA_CONTROLLER_PORT,
// PIPEWRIGHT_FLINK_PORT, PIPEWRIGHT_FLINK_RPC_PORT say otherwise; Kafka's and Flink's jars in
// PIPEWRIGHT_SERVICES_CACHE_DIR (default: the services folder). A
// server that already answers on its port is left alone, and `stop` stops only what this user
// started with this checkout's script (services/starter.mjs). `npm run services -- kafka topic|produce …` makes a topic and loads a
// JSONL file into it with Kafka's own tools (services/kafkaTools.mjs).
import { join } from 'node:path';
import { flinkAnswers, flinkPid, startFlink, stopFlink } from './services/flink.mjs';
import { kafkaAnswers, startKafka, stopKafka } from './services/kafka.mjs';
import { KAFKA_TOOLS_USAGE, KafkaToolsUsageError, kafkaTool } from './services/kafkaTools.mjs';
import { postgresAnswers, postgresUrl, startPostgres, stopPostgres } from './services/postgres.mjs';
import { processAlive, readPid, ServiceError } from './services/processes.mjs';
import { redisAnswers, redisUrl, startRedis, stopRedis } from './services/redis.mjs';
import { servicesSettings } from './services/settings.mjs';
import { forgetStarter, recordStarter, starterOf } from './services/starter.mjs';

const NAMES = ['postgres', 'redis', 'kafka', 'flink'];
const USAGE = `usage: npm run services [start|stop|status] [${NAMES.join('|')}]...`;

function servers(settings) {
  const { postgres, redis, kafka, flink } = settings;
  return {
    postgres: {
      address: postgresUrl(postgres.port),
      answers: () => postgresAnswers(postgres.port),
      start: () => startPostgres(postgres),
      stop: () => stopPostgres(postgres),
      dir: postgres.dir,
      pid: () => readPid(join(postgres.dir, 'data', 'postmaster.pid')),
      log: join(postgres.dir, 'postgres.log'),
    },
    redis: {
      address: redisUrl(redis.port),
      answers: () => redisAnswers(redis.port),
      start: () => startRedis(redis),
      stop: () => stopRedis(redis),
      dir: redis.dir,
      pid: () => readPid(join(redis.dir, 'redis.pid')),
      log: join(redis.dir, 'redis.log'),
    },
    kafka: {
      address: `localhost:${kafka.port}`,
      answers: () => kafkaAnswers(kafka.port),
      start: () => startKafka(kafka),
      stop: () => stopKafka(kafka),
      dir: kafka.dir,
      pid: () => readPid(join(kafka.dir, 'kafka.pid')),
      log: join(kafka.dir, 'server.log'),
    },
    // A JobManager and two TaskManagers: the JobManager's pid stands for the cluster (the
    // starter's record), and stop stops all three.
    flink: {
      address: `http://127.0.0.1:${flink.port}`,
      answers: () => flinkAnswers(flink.port),
      start: () => startFlink(flink),
      stop: () => stopFlink(flink),
      dir: flink.dir,
      pid: () => flinkPid(flink, 'jobmanager'),
      log: join(flink.dir, 'jobmanager.log'),
    },
  };
}

function parse(args) {
  const commands = ['start', 'stop', 'status'];
  const command = commands.includes(args[0]) ? args[0] : 'start';
  const names = commands.includes(args[0]) ? args.slice(1) : args;
  for (const name of names) {
    if (!NAMES.includes(name)) throw new ServiceError(`unknown server "${name}"; ${USAGE}`);
  }
  return { command, names: names.length > 0 ? names : NAMES };
}

async function start(name, server) {
  if (await server.answers()) return `${name}: already running at ${server.address}`;
  const began = Date.now();
  await server.start();
  const pid = server.pid();
  if (pid !== undefined) recordStarter(server.dir, pid);
  return `${name}: started at ${server.address} (${((Date.now() - began) / 1000).toFixed(1)} s, log ${server.log})`;
}

/** Stops a server only when this user started it from this checkout (services/starter.mjs). */
async function stop(name, server) {
  const pid = server.pid();
  if (pid !== undefined && processAlive(pid)) {
    const starter = starterOf(server.dir, pid);
    if (!starter.mine) return `${name}: ${starter.why}; left alone`;
    await server.stop();
    forgetStarter(server.dir);
    return `${name}: stopped`;
  }
  return (await server.answers())
    ? `${name}: not started by this script (it answers at ${server.address}); left alone`
    : `${name}: not running`;
}

let anyDown = false;

async function status(name, server) {
  if (await server.answers()) return `${name}: answers at ${server.address}`;
  anyDown = true;
  return `${name}: not running (${server.address})`;
}

/** `kafka topic …` and `kafka produce …`: Kafka's own tools against the broker of these settings. */
async function kafkaToolCommand(args) {
  try {
    process.stdout.write(`kafka: ${await kafkaTool(args, servicesSettings().kafka)}\n`);
  } catch (error) {
    const message = error instanceof ServiceError ? error.message : String(error?.message ?? error);
    process.stderr.write(`kafka: ${message}\n`);
    if (error instanceof KafkaToolsUsageError) process.stderr.write(`${KAFKA_TOOLS_USAGE}\n`);
    process.exitCode = 1;
  }
}

async function main() {
  const args = process.argv.slice(2);
  if (args[0] === 'kafka' && ['topic', 'produce'].includes(args[1])) return kafkaToolCommand(args.slice(1));
  const { command, names } = parse(args);
  const all = servers(servicesSettings());
  const action = { start, stop, status }[command];
  let failed = false;
  // One after the other: the JVMs and initdb all want the CPU, and the lines stay in order.
  for (const name of names) {
    try {
      process.stdout.write(`${await action(name, all[name])}\n`);
    } catch (error) {
      failed = true;
      const message = error instanceof ServiceError ? error.message : String(error?.message ?? error);
      process.stderr.write(`${name}: ${message}\n`);
    }
  }
  // As `systemctl status` does: 3 when a server is not running, for scripts that ask.
  if (failed) process.exitCode = 1;
  else if (anyDown) process.exitCode = 3;
}

main().catch((error) => {
  process.stderr.write(
    `${error instanceof ServiceError ? error.message : String(error?.message ?? error)}\n`,
  );
  process.exitCode = 1;
});
