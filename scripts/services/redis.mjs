// Redis from Debian's redis-server: 127.0.0.1 only, nothing persisted (the tests make their own
// data), daemonized with a pid file in its folder.
import { mkdirSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { processAlive, readPid, requireProgram, run, stopPid, waitUntil } from './processes.mjs';

const REDIS_SERVER = '/usr/bin/redis-server';

/** Whether a Redis at 127.0.0.1:port answers PING with PONG (within a second). */
export function redisAnswers(port) {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    let reply = '';
    const done = (up) => {
      socket.destroy();
      resolve(up);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      reply += chunk.toString('latin1');
      if (reply.includes('\r\n')) done(reply.startsWith('+PONG'));
    });
  });
}

/** Starts redis-server on `port` with its pid file and log in `dir`; resolves once it answers PING. */
export async function startRedis({ dir, port }) {
  requireProgram(REDIS_SERVER, 'redis-server', 'redis-server');
  mkdirSync(dir, { recursive: true });
  const args = [
    '--bind',
    '127.0.0.1',
    '--port',
    String(port),
    '--save',
    '',
    '--appendonly',
    'no',
    '--daemonize',
    'yes',
    '--pidfile',
    join(dir, 'redis.pid'),
    '--logfile',
    join(dir, 'redis.log'),
    '--dir',
    dir,
  ];
  await run(REDIS_SERVER, args, 'redis-server');
  await waitUntil(
    () => redisAnswers(port),
    15_000,
    `Redis did not answer on 127.0.0.1:${port} within 15 s (see ${join(dir, 'redis.log')})`,
  );
}

/** Stops the Redis whose pid file is in `dir`; false when none was running from there. */
export async function stopRedis({ dir }) {
  const pid = readPid(join(dir, 'redis.pid'));
  if (pid === undefined || !processAlive(pid)) return false;
  await stopPid(pid);
  return true;
}

export function redisUrl(port) {
  return `redis://127.0.0.1:${port}`;
}
