// PostgreSQL from Debian's package, in a folder of its own: initdb once, then the settings the
// connectors need (logical replication, prepared transactions, many slots), scram passwords over
// TCP so that bad credentials fail, and the role and database the tests use. Run as root, the
// server runs as the `postgres` user (it refuses to run as root), which owns the folder.
import { chownSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isRoot, portAnswers, run, ServiceError } from './processes.mjs';

const PG_ROOT = '/usr/lib/postgresql';
export const PG_USER = 'pipewright';
export const PG_PASSWORD = 'pipewright';
export const PG_DATABASE = 'pipewright';

/** The newest installed major version's bin folder (e.g. /usr/lib/postgresql/15/bin). */
export function postgresBin() {
  const versions = existsSync(PG_ROOT)
    ? readdirSync(PG_ROOT)
        .filter((name) => existsSync(join(PG_ROOT, name, 'bin', 'postgres')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions.length === 0) {
    throw new ServiceError('PostgreSQL is not installed: apt-get install -y postgresql');
  }
  return join(PG_ROOT, versions[0], 'bin');
}

export function postgresUrl(port) {
  return `postgres://${PG_USER}:${PG_PASSWORD}@127.0.0.1:${port}/${PG_DATABASE}`;
}

/** Runs one of PostgreSQL's programs, as `postgres` when we are root. */
function runPg(program, args, what, dir) {
  const file = join(postgresBin(), program);
  if (isRoot) return run('runuser', ['-u', 'postgres', '--', file, ...args], what, { cwd: dir });
  return run(file, args, what, { cwd: dir });
}

/** Gives the folder to `postgres` when we are root (the server reads and writes it as that user). */
function ownFolder(path) {
  if (!isRoot) return;
  const { uid, gid } = postgresIds();
  chownSync(path, uid, gid);
}

let ids;
function postgresIds() {
  if (ids === undefined) {
    const line = readFileSync('/etc/passwd', 'utf8')
      .split('\n')
      .find((entry) => entry.startsWith('postgres:'));
    if (line === undefined)
      throw new ServiceError('PostgreSQL is not installed: apt-get install -y postgresql');
    const fields = line.split(':');
    ids = { uid: Number(fields[2]), gid: Number(fields[3]) };
  }
  return ids;
}

function settings(dir, port) {
  return [
    '# Written by scripts/services/postgres.mjs at every start (the port may change).',
    "listen_addresses = '127.0.0.1'",
    `port = ${port}`,
    `unix_socket_directories = '${dir}'`,
    'wal_level = logical',
    'max_prepared_transactions = 100',
    'max_replication_slots = 40',
    'max_wal_senders = 40',
    // Test data: speed over durability (a crash of the machine loses it, the tests make it again).
    'fsync = off',
    'synchronous_commit = off',
    'full_page_writes = off',
    '',
  ].join('\n');
}

/** Fails in one line when the `postgres` user cannot get to `dir` (a parent folder closed to others). */
async function reachable(dir) {
  try {
    await run('runuser', ['-u', 'postgres', '--', 'test', '-w', dir], 'x');
  } catch {
    throw new ServiceError(
      `PostgreSQL runs as the postgres user, who cannot reach ${dir}: open its parent folders to others (chmod o+x) or choose another PIPEWRIGHT_SERVICES_DIR`,
    );
  }
}

/** The data folder exists and initdb has run in it. */
function initialized(dataDir) {
  return existsSync(join(dataDir, 'PG_VERSION'));
}

async function initdb(dir, dataDir) {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  ownFolder(dataDir);
  await runPg(
    'initdb',
    [
      '-D',
      dataDir,
      '-U',
      'postgres',
      '--auth-local=trust',
      '--auth-host=scram-sha-256',
      '-E',
      'UTF8',
      '--locale=C.UTF-8',
      '--no-sync',
    ],
    'initdb',
    dir,
  );
  const conf = join(dataDir, 'postgresql.conf');
  writeFileSync(conf, `${readFileSync(conf, 'utf8')}\ninclude_if_exists = 'pipewright.conf'\n`);
}

/** Creates the tests' role and database unless they exist (over the Unix socket, as postgres). */
async function ensureRole(dir, port) {
  const psql = (sql) =>
    runPg(
      'psql',
      ['-h', dir, '-p', String(port), '-U', 'postgres', '-d', 'postgres', '-tAc', sql],
      'psql',
      dir,
    );
  const role = await psql(`SELECT 1 FROM pg_roles WHERE rolname = '${PG_USER}'`);
  if (role.trim() !== '1') {
    await psql(`CREATE ROLE ${PG_USER} LOGIN SUPERUSER REPLICATION PASSWORD '${PG_PASSWORD}'`);
  }
  const database = await psql(`SELECT 1 FROM pg_database WHERE datname = '${PG_DATABASE}'`);
  if (database.trim() !== '1') await psql(`CREATE DATABASE ${PG_DATABASE} OWNER ${PG_USER}`);
}

/**
 * Starts PostgreSQL on 127.0.0.1:port with its data in `dir`/data (initdb the first time) and
 * resolves once it accepts connections and the tests' role and database exist.
 */
export async function startPostgres({ dir, port }) {
  postgresBin();
  const dataDir = join(dir, 'data');
  mkdirSync(dir, { recursive: true });
  ownFolder(dir);
  if (isRoot) await reachable(dir);
  if (!initialized(dataDir)) await initdb(dir, dataDir);
  const conf = join(dataDir, 'pipewright.conf');
  writeFileSync(conf, settings(dir, port));
  ownFolder(conf);
  const log = join(dir, 'postgres.log');
  if (!existsSync(log)) writeFileSync(log, '');
  ownFolder(log);
  try {
    await runPg('pg_ctl', ['-D', dataDir, '-l', log, '-w', '-t', '60', 'start'], 'pg_ctl start', dir);
  } catch (error) {
    throw new ServiceError(`PostgreSQL did not start on 127.0.0.1:${port} (see ${log}): ${error.message}`);
  }
  await ensureRole(dir, port);
}

/** Whether a server runs from `dir`/data (its postmaster.pid names a live process). */
export function postgresRunning({ dir }) {
  const pidFile = join(dir, 'data', 'postmaster.pid');
  if (!existsSync(pidFile)) return false;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

/**
 * Stops the server running from `dir` (fast: open sessions are ended), keeping its data;
 * `immediate` is a crash as far as PostgreSQL knows (it recovers from its WAL at the next start).
 * False when none was running from there.
 */
export async function stopPostgres({ dir, mode = 'fast' }) {
  if (!postgresRunning({ dir })) return false;
  await runPg('pg_ctl', ['-D', join(dir, 'data'), '-m', mode, '-w', '-t', '60', 'stop'], 'pg_ctl stop', dir);
  return true;
}

/** Whether PostgreSQL accepts connections at 127.0.0.1:port (pg_isready, within a few seconds). */
export async function postgresAnswers(port) {
  if (!(await portAnswers(port))) return false;
  try {
    await run(
      join(postgresBin(), 'pg_isready'),
      ['-q', '-h', '127.0.0.1', '-p', String(port), '-t', '3'],
      'x',
    );
    return true;
  } catch {
    return false;
  }
}
