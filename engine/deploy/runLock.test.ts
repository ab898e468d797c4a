// Locks on what a run writes: taken whole or refused naming the holder, stale ones taken over,
// released by their holder or, for a terminated worker thread, by the process that owns it; and
// of many processes racing for one lock (free, stale, or unreadable), exactly one wins.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync, utimesSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { JobError } from '../graph/jobError.js';
import { type LockHolder, type LockTarget, lockFileOf, readLockHolder } from './lockFile.js';
import { RunLockRefused, releaseRunLocks, takeRunLocks } from './runLock.js';

let root = '';
let dir = '';
let case_ = 0;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'pipewright-lock-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});
beforeEach(async () => {
  dir = join(root, `case-${case_++}`);
  await mkdir(dir);
});

const folder = (path: string, label = 'state'): LockTarget => ({
  path,
  kind: 'folder',
  what: `the ${label} folder ${path}`,
});
const file = (path: string): LockTarget => ({ path, kind: 'file', what: `the output file ${path}` });

function holder(pid: number, extra: Partial<LockHolder> = {}): LockHolder {
  return {
    format: 'pipewright.runlock/1',
    pid,
    threadId: 0,
    host: hostname(),
    id: 'feedc0ffee',
    startedAt: '2026-12-01T10:22:41.000Z',
    job: 'other',
    ...extra,
  };
}

async function writeLock(target: LockTarget, content: LockHolder | string): Promise<void> {
  await mkdir(resolve(lockFileOf(target), '..'), { recursive: true });
  await writeFile(lockFileOf(target), typeof content === 'string' ? content : JSON.stringify(content));
}

/** A pid no process has: one that has just exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  await new Promise((done) => child.on('exit', done));
  return child.pid!;
}

/** A process that stays alive until killed. */
function liveProcess(): ChildProcess {
  return spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
}

function refusal(take: () => unknown): RunLockRefused {
  try {
    take();
  } catch (error) {
    expect(error).toBeInstanceOf(RunLockRefused);
    return error as RunLockRefused;
  }
  throw new Error('the lock was not refused');
}

const STARTED = /started \d{4}-\d\d-\d\d \d\d:\d\d:\d\d\)/;

describe('taking and releasing', () => {
  it('takes a lock whole, with the holder in it, and releases it with the folders it made', () => {
    const state = join(dir, '.pipewright', 'job', 'state');
    const out = join(dir, 'out', 'counts.jsonl');
    const locks = takeRunLocks([folder(state), file(out)], { job: 'job' });
    expect(locks.files).toEqual([join(state, '.pipewright.lock'), join(dir, 'out', '.counts.jsonl.lock')]);
    const held = readLockHolder(folder(state))!;
    expect(held).toMatchObject({ pid: process.pid, threadId: 0, host: hostname(), job: 'job' });
    expect(held.id).toMatch(/^[0-9a-f]{16}$/);
    expect(Math.abs(Date.parse(held.startedAt) - Date.now())).toBeLessThan(60_000);
    // Another lock of this process has an id of its own.
    expect(readLockHolder(file(out))!.id).not.toBe(held.id);

    locks.release();
    expect(existsSync(join(dir, '.pipewright'))).toBe(false);
    expect(existsSync(join(dir, 'out'))).toBe(false);
    locks.release();
  });

  it('keeps a folder it made once something else is in it, and one that was there before', async () => {
    const state = join(dir, 'state');
    await mkdir(join(dir, 'out'));
    const locks = takeRunLocks([folder(state), file(join(dir, 'out', 'a.jsonl'))]);
    await writeFile(join(state, 'kept'), '');
    locks.release();
    expect((await readdir(state)).sort()).toEqual(['kept']);
    expect(await readdir(join(dir, 'out'))).toEqual([]);
  });

  it('refuses a second taker in this process, naming the holder, the folder and when it started', () => {
    const state = join(dir, 'state');
    const first = takeRunLocks([folder(state)], { job: 'counting' });
    const refused = refusal(() => takeRunLocks([folder(state)], { job: 'counting' }));
    expect(refused).toBeInstanceOf(JobError);
    expect(refused.message).toMatch(
      new RegExp(
        `^the state folder ${state} is in use by another run of job "counting" \\(pid ${process.pid}, started \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\\); stop that run first$`,
      ),
    );
    expect(refused.holder.id).toBe(readLockHolder(folder(state))!.id);
    first.release();
    takeRunLocks([folder(state)]).release();
  });

  it('refuses a holder that is another live process, and takes its lock over once it has died', async () => {
    const state = join(dir, 'state');
    const other = liveProcess();
    try {
      await writeLock(folder(state), holder(other.pid!));
      const refused = refusal(() => takeRunLocks([folder(state)]));
      expect(refused.message).toContain(`is in use by another run of job "other" (pid ${other.pid}, `);
      expect(refused.message).toMatch(STARTED);
    } finally {
      other.kill('SIGKILL');
      await new Promise((done) => other.on('exit', done));
    }
    const locks = takeRunLocks([folder(state)]);
    expect(readLockHolder(folder(state))!.pid).toBe(process.pid);
    locks.release();
  });

  it('never takes over a lock of another host (its process cannot be asked)', async () => {
    const state = join(dir, 'state');
    await writeLock(folder(state), holder(await deadPid(), { host: 'elsewhere' }));
    expect(refusal(() => takeRunLocks([folder(state)])).message).toMatch(
      /in use by another run of job "other" \(pid \d+ on host elsewhere, started /,
    );
  });

  it('takes over a stale lock: a dead process, or a file that is not a lock and is not new', async () => {
    const state = join(dir, 'state');
    await writeLock(folder(state), holder(await deadPid()));
    const locks = takeRunLocks([folder(state)]);
    expect(readLockHolder(folder(state))!.pid).toBe(process.pid);
    locks.release();

    await writeLock(folder(state), '\0\0\0\0');
    const old = new Date(Date.now() - 60_000);
    utimesSync(lockFileOf(folder(state)), old, old);
    const again = takeRunLocks([folder(state)]);
    expect(readLockHolder(folder(state))!.pid).toBe(process.pid);
    again.release();
    expect(await readdir(state)).toEqual([]);
  });

  it('does not take over an unreadable lock that may still be being written', async () => {
    const state = join(dir, 'state');
    await writeLock(folder(state), '');
    expect(() => takeRunLocks([folder(state)])).toThrow(
      `the state folder ${state} is locked by ${lockFileOf(folder(state))}, which cannot be read; if no run uses the folder, delete that file`,
    );
    expect(readFileSync(lockFileOf(folder(state)), 'utf8')).toBe('');
  });

  it('takes every lock or none: a refusal releases those taken before it', async () => {
    const state = join(dir, 'state');
    const out = join(dir, 'out', 'counts.jsonl');
    const other = takeRunLocks([file(out)]);
    refusal(() => takeRunLocks([folder(state), folder(join(dir, 'checkpoints'), 'checkpoint'), file(out)]));
    expect(existsSync(state)).toBe(false);
    expect(existsSync(join(dir, 'checkpoints'))).toBe(false);
    other.release();
  });

  it('takes one lock for two targets in one folder', () => {
    const same = join(dir, 'run');
    const locks = takeRunLocks([folder(same), folder(same, 'checkpoint')]);
    expect(locks.files).toEqual([join(same, '.pipewright.lock')]);
    locks.release();
  });

  it('says in one line which folder cannot be written and why', async () => {
    await writeFile(join(dir, 'blocker'), '');
    const state = join(dir, 'blocker', 'state');
    expect(() => takeRunLocks([folder(state)])).toThrow(
      new JobError(
        `cannot lock the state folder ${state}: cannot create ${state} (a part of its path is a file)`,
      ),
    );
  });

  it('never deletes a lock another run has taken since', async () => {
    const state = join(dir, 'state');
    const locks = takeRunLocks([folder(state)]);
    await writeLock(folder(state), holder(process.pid, { id: '0123abcd' }));
    locks.release();
    expect(readLockHolder(folder(state))!.id).toBe('0123abcd');
  });
});

describe('a host releasing the locks of a worker thread it terminated', () => {
  it('deletes the locks and claims of that thread only, and of this process only', async () => {
    const a = folder(join(dir, 'a'));
    const b = folder(join(dir, 'b'));
    const c = folder(join(dir, 'c'));
    const other = liveProcess();
    try {
      await writeLock(a, holder(process.pid, { threadId: 7 }));
      await writeFile(`${lockFileOf(a)}.takeover-abc`, JSON.stringify(holder(process.pid, { threadId: 7 })));
      await writeLock(b, holder(process.pid, { threadId: 8 }));
      await writeLock(c, holder(other.pid!, { threadId: 7 }));
      expect(releaseRunLocks([a, b, c], { threadId: 7 }).sort()).toEqual(
        [lockFileOf(a), `${lockFileOf(a)}.takeover-abc`].sort(),
      );
      expect(existsSync(lockFileOf(b))).toBe(true);
      expect(existsSync(lockFileOf(c))).toBe(true);
      expect(releaseRunLocks([b])).toEqual([lockFileOf(b)]);
    } finally {
      other.kill('SIGKILL');
    }
  });

  it('frees what a terminated worker held, which no other run could take over', async () => {
    const built = builtModule();
    const state = folder(join(dir, 'state'));
    const worker = new Worker(
      `const { parentPort, workerData } = require('node:worker_threads');
      import(workerData.module).then((lock) => {
        lock.takeRunLocks([workerData.target], { job: 'stuck' });
        parentPort.postMessage('taken');
        for (;;) {}
      });`,
      { eval: true, workerData: { module: pathToFileURL(built).href, target: state } },
    );
    await new Promise((done) => worker.once('message', done));
    const threadId = worker.threadId;
    await worker.terminate();
    expect(readLockHolder(state)).toMatchObject({ pid: process.pid, threadId, job: 'stuck' });
    // Its pid is this process's, alive: nobody takes it over.
    refusal(() => takeRunLocks([state]));
    expect(releaseRunLocks([state], { threadId })).toEqual([lockFileOf(state)]);
    takeRunLocks([state]).release();
  });
});

/** The compiled module, for other processes and threads (which cannot load TypeScript). */
function builtModule(): string {
  const dist = resolve(import.meta.dirname, '..', '..', 'dist', 'engine', 'deploy');
  // runLock.js loads lockFile.js beside it: both must be as new as their sources.
  for (const name of ['runLock', 'lockFile']) {
    const source = resolve(import.meta.dirname, `${name}.ts`);
    const built = resolve(dist, `${name}.js`);
    if (!existsSync(built) || statSync(built).mtimeMs < statSync(source).mtimeMs) {
      throw new Error(
        `${built} is missing or older than ${name}.ts: run npx tsc -p tsconfig.build.json first`,
      );
    }
  }
  return resolve(dist, 'runLock.js');
}

// Each taker: wait for the go file, which says when round 0 starts; start each round at the same
// moment as the others (spinning for the last millisecond), try its lock, and report which rounds
// it won. The rounds' locks start free, stale (a dead pid) or unreadable and old.
const TAKER = `
const { existsSync, readFileSync } = require('node:fs');
const { join } = require('node:path');
const [moduleUrl, dir, rounds, everyMs] = process.argv.slice(1);
const pause = new Int32Array(new SharedArrayBuffer(4));
import(moduleUrl).then((lock) => {
  process.stdout.write('ready\\n');
  const go = join(dir, 'go');
  while (!existsSync(go)) Atomics.wait(pause, 0, 0, 1);
  const start = Number(readFileSync(go, 'utf8'));
  const won = [];
  for (let r = 0; r < Number(rounds); r++) {
    const at = start + r * Number(everyMs);
    while (at - Date.now() > 2) Atomics.wait(pause, 0, 0, 1);
    while (Date.now() < at) {}
    const path = join(dir, 'round-' + r);
    try {
      lock.takeRunLocks([{ path, kind: 'folder', what: path }]);
      won.push(r);
    } catch (error) {
      if (error.name !== 'RunLockRefused') throw error;
    }
  }
  process.stdout.write(JSON.stringify(won) + '\\n');
  // Holding on until every taker is done: a taker that exits leaves stale locks to take over.
  process.stdin.resume();
  process.stdin.on('end', () => process.exit(0));
});
`;

describe('many processes taking one lock at once', () => {
  it('lets exactly one win each round, whether the lock was free, stale or unreadable', async () => {
    const built = builtModule();
    const TAKERS = 4;
    const ROUNDS = 150;
    const EVERY_MS = 10;
    const dead = await deadPid();
    for (let r = 0; r < ROUNDS; r++) {
      const target = folder(join(dir, `round-${r}`));
      if (r % 3 === 1) await writeLock(target, holder(dead, { id: `dead${r}` }));
      if (r % 3 === 2) {
        await writeLock(target, 'not a lock');
        const old = new Date(Date.now() - 60_000);
        utimesSync(lockFileOf(target), old, old);
      }
    }
    const takers = Array.from({ length: TAKERS }, () => {
      const child = spawn(
        process.execPath,
        ['-e', TAKER, pathToFileURL(built).href, dir, String(ROUNDS), String(EVERY_MS)],
        {
          stdio: ['pipe', 'pipe', 'pipe'],
        },
      );
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        stdout += chunk;
      });
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        stderr += chunk;
      });
      const lines = async (n: number) => {
        while (stdout.split('\n').length <= n) {
          if (child.exitCode !== null) throw new Error(`a taker exited early: ${stderr}`);
          await new Promise((done) => setTimeout(done, 5));
        }
        return stdout.split('\n');
      };
      return { child, lines };
    });
    try {
      for (const taker of takers) await taker.lines(1);
      await writeFile(join(dir, 'go'), String(Date.now() + 100));
      const won = await Promise.all(takers.map(async (t) => JSON.parse((await t.lines(2))[1]!) as number[]));
      for (let r = 0; r < ROUNDS; r++) {
        const winners = takers.filter((_, i) => won[i]!.includes(r));
        expect(winners.length, `round ${r}: ${winners.length} winners`).toBe(1);
        expect(readLockHolder(folder(join(dir, `round-${r}`)))!.pid).toBe(winners[0]!.child.pid);
        // Nothing is left beside the lock: no drafts, no take-over claims.
        expect(await readdir(join(dir, `round-${r}`))).toEqual(['.pipewright.lock']);
      }
    } finally {
      for (const { child } of takers) child.stdin.end();
      await Promise.all(takers.map(({ child }) => new Promise((done) => child.on('exit', done))));
    }
  });
});
