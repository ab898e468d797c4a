// Two runs of one job on one folder at once: the second is refused, naming the run that holds the
// folder, whether it comes from the CLI, the browser form or the desktop app; the first's output is
// exactly what a run alone writes. A lock left by a run that was killed is taken over. These run
// the compiled CLI: rebuild dist first (npx tsc -p tsconfig.build.json).
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { finish, killHard, type RunningCli, startCli, waitUntil } from './checkpointHelpers.js';
import { describeRun } from './cliHarness.js';
import { hostSessionPerTest } from './hostSession.js';

const session = hostSessionPerTest('pipewright-concurrent-');

/**
 * At 1,000 records a second, a first run of 10 s: after its first checkpoint the test makes its
 * attempts while it still runs. 3,000 (3 s) was too short on a machine at load 8: the first run
 * had ended, and released its folders, before the host's third attempt (a desktop run) was made.
 */
const RECORDS = 10_000;
const KEYS = 7;

/** Long enough (about 3 s, paced) for a second run to start while the first runs, with checkpoints. */
function countingJob() {
  return {
    format: 'pipewright.job/1',
    name: 'counting',
    settings: { checkpointIntervalMs: 100, stateBackend: 'level' },
    operators: [
      {
        id: 'numbers',
        kind: 'source.generator',
        parallelism: 1,
        params: {
          code: `function generate(i) {\n  return { i, key: "k" + (i % ${KEYS}) };\n}`,
          count: RECORDS,
          ratePerSec: 1000,
        },
      },
      {
        id: 'count',
        kind: 'process',
        parallelism: 2,
        params: {
          code: 'function process(r, ctx) {\n  const n = (ctx.state.value("n").get() ?? 0) + 1;\n  ctx.state.value("n").set(n);\n  ctx.emit({ i: r.i, key: r.key, n });\n}',
        },
      },
      { id: 'out', kind: 'sink.jsonl', parallelism: 1, params: { path: 'out/counts.jsonl' } },
    ],
    edges: [
      { id: 'e1', from: 'numbers', to: 'count', partition: 'hash', key: 'key' },
      { id: 'e2', from: 'count', to: 'out', partition: 'rebalance' },
    ],
  };
}

/** What a run of countingJob alone writes, as sorted lines: record i is the (i / KEYS + 1)th of its key. */
function expectedLines(): string[] {
  const lines: string[] = [];
  for (let i = 0; i < RECORDS; i++)
    lines.push(JSON.stringify({ i, key: `k${i % KEYS}`, n: Math.floor(i / KEYS) + 1 }));
  return lines.sort();
}

async function outputLines(dir: string): Promise<string[]> {
  return (await readFile(join(dir, 'out', 'counts.jsonl'), 'utf8'))
    .split('\n')
    .filter((l) => l !== '')
    .sort();
}

async function writeJobFile(dir: string): Promise<string> {
  const path = join(dir, 'counting.job.json');
  await writeFile(path, `${JSON.stringify(countingJob(), null, 2)}\n`);
  return path;
}

const folders = (dir: string) => {
  const home = join(dir, '.pipewright', 'counting');
  return { state: join(home, 'state'), checkpoints: join(home, 'checkpoints') };
};

/** Starts the CLI and waits until its first checkpoint is complete: then it surely holds its folders. */
async function startHolding(dir: string, jobPath: string, extra: string[] = []): Promise<RunningCli> {
  const run = startCli(['run', jobPath, '--quiet', ...extra], dir);
  const checkpointed = await waitUntil(() => existsSync(join(folders(dir).checkpoints, 'chk-1.json')), {
    run,
    timeoutMs: 20_000,
  });
  if (!checkpointed) {
    const result = await killHard(run);
    throw new Error(`the first run took no checkpoint\n${describeRun(result)}`);
  }
  return run;
}

/** Runs `body` with the first run, which is killed if the test fails before it has ended. */
async function withFirstRun(dir: string, jobPath: string, body: (first: RunningCli) => Promise<void>) {
  const first = await startHolding(dir, jobPath);
  try {
    await body(first);
  } finally {
    await killHard(first);
  }
}

const startedAt = /started \d{4}-\d\d-\d\d \d\d:\d\d:\d\d\)/;

describe('two runs of one job folder', () => {
  it('refuses a second CLI run, naming the first, and the first writes exactly what it would alone', async () => {
    const dir = session.dir;
    const jobPath = await writeJobFile(dir);
    await withFirstRun(dir, jobPath, async (first) => {
      const second = await finish(startCli(['run', jobPath, '--quiet'], dir), 30_000, 'the second run');
      expect(second.code, describeRun(second)).toBe(1);
      const lines = second.stderr.trim().split('\n');
      expect(lines, describeRun(second)).toHaveLength(1);
      expect(lines[0]).toContain(
        `pipewright: the state folder ${folders(dir).state} is in use by another run of job "counting" (pid ${first.child.pid}, `,
      );
      expect(lines[0]).toMatch(startedAt);
      expect(lines[0]).toMatch(/; stop that run first$/);

      const result = await finish(first, 30_000, 'the first run');
      expect(result.code, describeRun(result)).toBe(0);
      expect(await outputLines(dir)).toEqual(expectedLines());
      // Every lock went with the run.
      expect(existsSync(join(folders(dir).state, '.pipewright.lock'))).toBe(false);
      expect(existsSync(join(folders(dir).checkpoints, '.pipewright.lock'))).toBe(false);
      expect(existsSync(join(dir, 'out', '.counts.jsonl.lock'))).toBe(false);
    });
  });

  it('refuses a second run that shares only the output file', async () => {
    const dir = session.dir;
    const jobPath = await writeJobFile(dir);
    await withFirstRun(dir, jobPath, async (first) => {
      const second = await finish(
        startCli(
          ['run', jobPath, '--quiet', '--state-dir', join(dir, 's2'), '--checkpoint-dir', join(dir, 'c2')],
          dir,
        ),
        30_000,
        'the second run',
      );
      expect(second.code, describeRun(second)).toBe(1);
      expect(second.stderr).toContain(
        `pipewright: the output file ${join(dir, 'out', 'counts.jsonl')} of operator "out" is in use by another run of job "counting" (pid ${first.child.pid}, `,
      );
      // The refused run left nothing of its own.
      expect(existsSync(join(dir, 's2'))).toBe(false);
      expect(existsSync(join(dir, 'c2'))).toBe(false);
      const result = await finish(first, 30_000, 'the first run');
      expect(result.code, describeRun(result)).toBe(0);
      expect(await outputLines(dir)).toEqual(expectedLines());
    });
  });

  it('takes over the lock of a run that was killed, and restores from its last checkpoint', async () => {
    const dir = session.dir;
    const jobPath = await writeJobFile(dir);
    const first = await startHolding(dir, jobPath);
    await killHard(first);
    // The killed run could not release its lock: it is stale now.
    expect(await readFile(join(folders(dir).state, '.pipewright.lock'), 'utf8')).toContain(
      `"pid":${first.child.pid},`,
    );
    const again = await finish(
      startCli(['run', jobPath, '--quiet', '--restore', 'latest'], dir),
      30_000,
      'the restore',
    );
    expect(again.code, describeRun(again)).toBe(0);
    expect(await outputLines(dir)).toEqual(expectedLines());
    expect(existsSync(join(folders(dir).state, '.pipewright.lock'))).toBe(false);
  });

  it('refuses a browser-form run of a folder the CLI holds, and a desktop run of its output file', async () => {
    const dir = session.dir;
    const jobPath = await writeJobFile(dir);
    await withFirstRun(dir, jobPath, async (first) => {
      const text = JSON.stringify(countingJob());

      const browser = await session.failure('run.start', {
        text,
        path: jobPath,
        mode: 'run',
        previewSinks: false,
      });
      expect(browser).toContain(
        `the state folder ${folders(dir).state} is in use by another run of job "counting" (pid ${first.child.pid}, `,
      );
      expect(browser).toMatch(startedAt);
      const debug = await session.failure('run.start', {
        text,
        path: jobPath,
        mode: 'debug',
        previewSinks: false,
      });
      expect(debug).toContain(`is in use by another run of job "counting" (pid ${first.child.pid}, `);

      // The desktop app keeps state and checkpoints in its own folder; the output file is shared.
      await session.reopen({ runsDir: join(dir, 'runs') });
      const desktop = await session.failure('run.start', {
        text,
        path: jobPath,
        mode: 'run',
        previewSinks: false,
      });
      expect(desktop).toContain(
        `the output file ${join(dir, 'out', 'counts.jsonl')} of operator "out" is in use by another run of job "counting" (pid ${first.child.pid}, `,
      );

      const result = await finish(first, 30_000, 'the first run');
      expect(result.code, describeRun(result)).toBe(0);
      expect(await outputLines(dir)).toEqual(expectedLines());

      // Once the CLI is done, the folder is free for the browser form.
      await session.reopen();
      const info = await session.result('run.start', {
        text,
        path: jobPath,
        mode: 'run',
        previewSinks: false,
      });
      await session.until('the browser-form run to end', () =>
        session.eventsOf('run.status', info.runId).some((s) => s.status === 'finished'),
      );
      expect(await outputLines(dir)).toEqual(expectedLines());
    });
  });
});
