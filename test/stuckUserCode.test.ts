// User code that never gives the thread back, or leaves a promise behind, through the real CLI:
// a loop that never ends and a promise that never settles are stopped by SIGINT and SIGTERM,
// naming the operator and the record, with the last checkpoint still restorable; a rejected
// promise nothing handled fails the run, naming both, and nothing else.
import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { binPath, describeRun, makeTempDir, removeTempDirs, runCli } from './cliHarness.js';
import { processJobText, STOP_BOUND_MS, writeProcessJob } from './processJob.js';

afterAll(removeTempDirs);

async function jobDir(
  code: string,
  records: number,
  settings?: Record<string, unknown>,
  parallelism?: number,
): Promise<string> {
  const dir = await makeTempDir('pipewright-stuck-');
  await writeProcessJob(dir, code, records, settings, parallelism);
  return dir;
}

interface SignalledRun {
  readonly code: number | null;
  readonly stderr: string;
  /** From the signal to the exit. */
  readonly stopMs: number;
}

/** Runs the job, sends `signal` once `ready` says so (polled), and waits for the exit. */
function runAndSignal(
  dir: string,
  signal: NodeJS.Signals,
  ready: (stderr: string) => boolean,
): Promise<SignalledRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [binPath, 'run', 'job.json'], {
      cwd: dir,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    let signalledAt: number | undefined;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the run did not end\n${stderr}`));
    }, 30_000);
    const poll = setInterval(() => {
      if (signalledAt === undefined && ready(stderr)) {
        signalledAt = performance.now();
        child.kill(signal);
      }
    }, 20);
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      clearInterval(poll);
      resolve({ code, stderr, stopMs: performance.now() - (signalledAt ?? Number.NaN) });
    });
  });
}

const LOOPS_ON_3 = 'function process(r, ctx) {\n  if (r.id === 3) { while (true) {} }\n  ctx.emit(r);\n}';

describe('a call into user code that never returns', () => {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`is ended by ${signal} within 2 s, naming the operator and the record`, async () => {
      const dir = await jobDir(LOOPS_ON_3, 5);
      const run = await runAndSignal(dir, signal, (stderr) =>
        stderr.includes('without returning (Ctrl-C stops it)'),
      );
      expect(run.stderr).toMatch(
        /operator "p1" has run its code on the record from in\.jsonl:3 for \d\.\d s without returning \(Ctrl-C stops it\)/,
      );
      expect(run.code, run.stderr).toBe(1);
      expect(run.stderr).toContain(`${signal}: stopping cleanly`);
      expect(run.stderr).toMatch(
        /stopped by force: operator "p1" has run its code on the record from in\.jsonl:3 for \d+\.\d s without returning/,
      );
      expect(run.stderr).not.toMatch(/internal error|\n\s+at |file:\/\//);
      expect(run.stopMs).toBeLessThan(STOP_BOUND_MS);
    });
  }

  it('leaves the last completed checkpoint restorable: the restored run writes exactly the clean output', async () => {
    const records = 40_000;
    // Stuck late, so that checkpoints (every 20 ms) completed before.
    const stuckCode = `function process(r, ctx) {\n  if (r.id === ${records - 100}) { while (true) {} }\n  ctx.emit(r);\n}`;
    const dir = await jobDir(stuckCode, records, { checkpointIntervalMs: 20 });
    const run = await runAndSignal(dir, 'SIGINT', (stderr) => stderr.includes('Ctrl-C stops it'));
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toContain(
      `stopped by force: operator "p1" has run its code on the record from in.jsonl:${records - 100}`,
    );

    // The user fixes the code and restarts from the last checkpoint.
    await writeFile(
      path.join(dir, 'job.json'),
      processJobText('function process(r, ctx) { ctx.emit(r); }', { checkpointIntervalMs: 20 }),
    );
    const restored = await runCli(['run', 'job.json', '--restore', 'latest', '--quiet'], { cwd: dir });
    expect(restored.code, describeRun(restored)).toBe(0);
    const ids = (await readFile(path.join(dir, 'out.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { id: number }).id);
    expect(ids).toEqual(Array.from({ length: records }, (_, i) => i + 1));
  });
});

describe('settings.callTimeoutMs', () => {
  it('fails a run one of whose calls runs past it, naming the operator and the record', async () => {
    const dir = await jobDir(LOOPS_ON_3, 5, { callTimeoutMs: 300 });
    const result = await runCli(['run', 'job.json'], { cwd: dir });
    expect(result.code, describeRun(result)).toBe(1);
    expect(result.stderr).toMatch(
      /operator "p1" has run its code on the record from in\.jsonl:3 for \d\.\d s without returning: over the job's call time limit \(settings\.callTimeoutMs 300\)/,
    );
  });

  it('leaves a run whose calls are quicker alone', async () => {
    const dir = await jobDir('function process(r, ctx) { ctx.emit(r); }', 1000, { callTimeoutMs: 300 });
    const result = await runCli(['run', 'job.json', '--quiet'], { cwd: dir });
    expect(result.code, describeRun(result)).toBe(0);
    expect((await readFile(path.join(dir, 'out.jsonl'), 'utf8')).trim().split('\n')).toHaveLength(1000);
  });
});

describe('a promise user code leaves behind', () => {
  it('that never settles fails the run, naming the operator and the record, with exit status 1', async () => {
    const dir = await jobDir(
      'async function process(r, ctx) {\n  if (r.id === 3) await new Promise(() => {});\n  ctx.emit(r);\n}',
      5,
    );
    const result = await runCli(['run', 'job.json'], { cwd: dir });
    expect(result.code, describeRun(result)).toBe(1);
    expect(result.stderr).toContain(
      'operator "p1" failed on the record from in.jsonl:3: its code returned a promise that never settled',
    );
  });

  // The other subtasks of its thread go on meanwhile: the call it left is still the one named.
  for (const [threads, parallelism, subtask] of [
    [1, 2, 0],
    [2, 4, 2],
  ] as const) {
    it(`that never settles while other subtasks on its thread go on (--threads ${threads}, parallelism ${parallelism}) names the operator and the record`, async () => {
      const dir = await jobDir(
        'function process(r, ctx) {\n  if (r.id === 3) return new Promise(() => {});\n  ctx.emit(r);\n}',
        200,
        undefined,
        parallelism,
      );
      const result = await runCli(['run', 'job.json', '--threads', String(threads)], { cwd: dir });
      expect(result.code, describeRun(result)).toBe(1);
      expect(result.stderr).toContain(
        `operator "p1" (subtask ${subtask} of ${parallelism}) failed on the record from in.jsonl:3: its code returned a promise that never settled`,
      );
    });
  }

  it('that never settles is ended by a signal like a loop, as waiting on it', async () => {
    // An endless chain of promises keeps the thread busy, so only the stop can end it.
    const dir = await jobDir(
      'async function process(r, ctx) {\n  if (r.id === 3) { while (true) await new Promise((resolve) => Promise.resolve().then(resolve)); }\n  ctx.emit(r);\n}',
      5,
    );
    const run = await runAndSignal(dir, 'SIGINT', (stderr) => stderr.includes('Ctrl-C stops it'));
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toMatch(
      /stopped by force: operator "p1" has waited \d+\.\d s on a promise its code returned on the record from in\.jsonl:3/,
    );
    expect(run.stopMs).toBeLessThan(STOP_BOUND_MS);
  });

  it('that is rejected and not handled fails the run, naming the operator and the record', async () => {
    const dir = await jobDir(
      'function process(r, ctx) {\n  if (r.id === 3) Promise.resolve().then(() => { throw new Error("lost"); });\n  ctx.emit(r);\n}',
      5,
    );
    const result = await runCli(['run', 'job.json'], { cwd: dir });
    expect(result.code, describeRun(result)).toBe(1);
    expect(result.stderr).toContain(
      'operator "p1" failed on the record from in.jsonl:3: a promise its code made was rejected and nothing handled it: lost',
    );
    expect(result.stderr).not.toMatch(/internal error|\n\s+at |node:internal|file:\/\//);
  });
});
