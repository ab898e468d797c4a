// What the servers' start and stop have in common: running a command and failing with its
// output in one line, starting a server in the background with its pid in a file, waiting until
// it answers, stopping it by its pid, and finding free ports for private instances.
import { execFile, spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';

export class ServiceError extends Error {}

export const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

/** Runs a command to its end; throws a ServiceError with `what` and the command's last output line. */
export function run(file, args, what, options = {}) {
  return new Promise((resolve, reject) => {
    execFile(file, args, { maxBuffer: 16 * 1024 * 1024, ...options }, (error, stdout, stderr) => {
      if (error === null) {
        resolve(stdout);
        return;
      }
      // The line that says what went wrong, not the chatter after it.
      const output = `${stderr}\n${stdout}`.trim().split('\n').filter(Boolean);
      const cause =
        output.findLast((line) => /error|fatal|denied|cannot|could not/i.test(line)) ?? output.at(-1);
      reject(new ServiceError(`${what} failed: ${(cause ?? error.message).trim()}`));
    });
  });
}

/**
 * Starts `file` in the background, detached from this process (it outlives `npm run services`),
 * its output appended to `logFile` and its pid written to `pidFile`.
 */
export function spawnInBackground(file, args, { logFile, pidFile, cwd }) {
  const log = openSync(logFile, 'a');
  try {
    const child = spawn(file, args, { cwd, detached: true, stdio: ['ignore', log, log] });
    child.unref();
    writeFileSync(pidFile, `${child.pid}\n`);
    return child.pid;
  } finally {
    closeSync(log);
  }
}

export function readPid(pidFile) {
  if (!existsSync(pidFile)) return undefined;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

export function processAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` until it returns true; throws a ServiceError saying `what` after `timeoutMs`. */
export async function waitUntil(check, timeoutMs, what, intervalMs = 100) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new ServiceError(what);
    await sleep(intervalMs);
  }
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves once the process is gone. */
export async function stopPid(pid, graceMs = 30_000) {
  if (!processAlive(pid)) return;
  process.kill(pid, 'SIGTERM');
  try {
    await waitUntil(() => !processAlive(pid), graceMs, 'still running', 50);
  } catch {
    process.kill(pid, 'SIGKILL');
    await waitUntil(() => !processAlive(pid), 5_000, `process ${pid} does not die`, 50);
  }
}

/** Whether something accepts TCP connections at host:port (within a second). */
export function portAnswers(port, host = '127.0.0.1') {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (up) => {
      socket.destroy();
      resolve(up);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** A port nobody listens on now (the kernel's pick), for a private server. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function portFree(port) {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** The first of `count` consecutive ports nobody listens on now, for a private Flink cluster. */
export async function freeConsecutivePorts(count) {
  for (let attempt = 0; attempt < 50; attempt++) {
    const first = await freePort();
    if (first + count - 1 > 65535) continue;
    let free = true;
    for (let port = first + 1; free && port < first + count; port++) free = await portFree(port);
    if (free) return first;
  }
  throw new ServiceError(`found no ${count} consecutive free ports`);
}

/** Fails in one line when a Debian package's program is missing. */
export function requireProgram(path, packageName, what) {
  if (!existsSync(path)) {
    throw new ServiceError(`${what} is not installed: apt-get install -y ${packageName}`);
  }
}
