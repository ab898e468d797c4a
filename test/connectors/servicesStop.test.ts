// `npm run services stop` stops only what this user started from this checkout (issue 25, item
// 28): not a server another checkout of the project started from the same services folder, nor
// one started without the script's record (as servers started before it kept one). With a Redis
// of the test's own (folder and port of its own; a Redis starts in milliseconds): the shared
// servers on 5432, 6379 and 9092 are never touched.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, cp, mkdir, symlink } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, isRoot, portAnswers } from '../../scripts/services/processes.mjs';
import { startRedis, stopRedis } from '../../scripts/services/redis.mjs';
import { ChildWatch } from '../childWork.js';
import { makeTempDir, removeTempDirs, repoRoot } from '../cliHarness.js';
import { SERVICES_REQUIRED } from './servers.js';

const installed = existsSync('/usr/bin/redis-server');

interface Result {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

const servicesDirs: string[] = [];
afterAll(async () => {
  // Whatever a failed test left running in its own folder.
  for (const dir of servicesDirs) await stopRedis({ dir: path.join(dir, 'redis') });
  await removeTempDirs();
});

/** `npm run services ARGS` of the checkout at `checkout`, on the test's folder and port. */
function services(checkout: string, env: NodeJS.ProcessEnv, ...args: string[]): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      process.execPath,
      [path.join(checkout, 'scripts', 'services.mjs'), ...args],
      { cwd: checkout, env },
      (error, stdout, stderr) => {
        watch.stop();
        if (watch.exceeded !== undefined) reject(new Error(`services ${args.join(' ')} ${watch.exceeded}`));
        else resolve({ code: error === null ? 0 : Number(error.code ?? 1), stdout, stderr });
      },
    );
    const watch = new ChildWatch(child, { cpuMs: 20_000 });
  });
}

/** Another checkout of the project: its own scripts/, the same installed packages. */
async function otherCheckout(): Promise<string> {
  const checkout = await makeTempDir('pipewright-other-checkout-');
  await cp(path.join(repoRoot, 'scripts'), path.join(checkout, 'scripts'), { recursive: true });
  await cp(path.join(repoRoot, 'package.json'), path.join(checkout, 'package.json'));
  // The Flink cluster's JVM options, which the services script reads as it loads.
  await cp(path.join(repoRoot, 'flink', 'jvm-options.txt'), path.join(checkout, 'flink', 'jvm-options.txt'));
  await symlink(path.join(repoRoot, 'node_modules'), path.join(checkout, 'node_modules'));
  return checkout;
}

async function ownServices(): Promise<{ env: NodeJS.ProcessEnv; dir: string; port: number }> {
  const dir = await makeTempDir('pipewright-services-');
  servicesDirs.push(dir);
  await mkdir(dir, { recursive: true });
  const port = await freePort();
  const env = { ...process.env, PIPEWRIGHT_SERVICES_DIR: dir, PIPEWRIGHT_REDIS_PORT: String(port) };
  return { env, dir, port };
}

describe.skipIf(!installed && !SERVICES_REQUIRED)('npm run services stop', () => {
  it("leaves alone a server another checkout started, which that checkout's stop stops", async () => {
    const { env, port } = await ownServices();
    const other = await otherCheckout();
    const started = await services(other, env, 'start', 'redis');
    expect(started.stdout, started.stderr).toMatch(/^redis: started at /);

    const mine = await services(repoRoot, env, 'stop', 'redis');
    expect(mine.code, mine.stderr).toBe(0);
    expect(mine.stdout).toMatch(
      new RegExp(
        `^redis: started from ${other} by \\S+ \\(pid \\d+\\), not from this checkout; left alone\\n$`,
      ),
    );
    expect(await portAnswers(port)).toBe(true);

    const theirs = await services(other, env, 'stop', 'redis');
    expect(theirs.stdout).toBe('redis: stopped\n');
    expect(await portAnswers(port)).toBe(false);
  });

  // Another user is `nobody`, which only root can become (the machines the suite runs on are root's).
  it.runIf(isRoot)('leaves alone a server another user started from this checkout', async () => {
    const { env, dir, port } = await ownServices();
    await chmod(dir, 0o777);
    const asNobody = await new Promise<Result>((resolve) => {
      execFile(
        'runuser',
        [
          '-u',
          'nobody',
          '--',
          'env',
          `PIPEWRIGHT_SERVICES_DIR=${dir}`,
          `PIPEWRIGHT_REDIS_PORT=${port}`,
          process.execPath,
          path.join(repoRoot, 'scripts', 'services.mjs'),
          'start',
          'redis',
        ],
        { cwd: '/' },
        (error, stdout, stderr) => resolve({ code: error === null ? 0 : 1, stdout, stderr }),
      );
    });
    expect(asNobody.stdout, asNobody.stderr).toMatch(/^redis: started at /);
    const mine = await services(repoRoot, env, 'stop', 'redis');
    expect(mine.stdout).toMatch(/^redis: started by nobody \(pid \d+\), not by root; left alone\n$/);
    expect(await portAnswers(port)).toBe(true);
  });

  it('leaves alone a server started without its record, and stops one it started itself', async () => {
    const { env, dir, port } = await ownServices();
    // As the shared servers were started before the script kept a record: by other means.
    await startRedis({ dir: path.join(dir, 'redis'), port });
    const unknown = await services(repoRoot, env, 'stop', 'redis');
    expect(unknown.stdout).toMatch(
      /^redis: pid \d+ runs from \S+, but nothing says this checkout started it; left alone\n$/,
    );
    expect(await portAnswers(port)).toBe(true);
    await stopRedis({ dir: path.join(dir, 'redis') });

    const started = await services(repoRoot, env, 'start', 'redis');
    expect(started.stdout, started.stderr).toMatch(/^redis: started at /);
    const stopped = await services(repoRoot, env, 'stop', 'redis');
    expect(stopped.stdout).toBe('redis: stopped\n');
    expect(await portAnswers(port)).toBe(false);
  });
});
