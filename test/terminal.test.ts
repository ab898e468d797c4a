// `pipewright run` on a terminal (a pseudo-terminal, through util-linux `script`), started the two
// ways the README gives: Ctrl-C stops the run cleanly and the launcher exits 0, npx included (it
// runs the CLI under `sh -c` in the terminal's process group); what the CLI says during the run
// stays on the screen, above the progress table that is redrawn in place.
import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { binPath, makeTempDir, removeTempDirs, repoRoot } from './cliHarness.js';
import { TerminalRun } from './terminalRun.js';

afterAll(removeTempDirs);

/** A generator at 200 records/s: long enough to press Ctrl-C in, bounded in case it is not heard. */
const GENERATOR_JOB = {
  format: 'pipewright.job/1',
  name: 'ticks',
  settings: { checkpointIntervalMs: 200 },
  operators: [
    {
      id: 'ticks',
      kind: 'source.generator',
      params: { code: 'function generate(i, ctx) {\n  return { i };\n}', ratePerSec: 200, count: 6000 },
    },
    { id: 'out', kind: 'sink.jsonl', params: { path: 'out.jsonl' } },
  ],
  edges: [{ id: 'e1', from: 'ticks', to: 'out', partition: 'forward' }],
};

async function jobDir(job: object): Promise<string> {
  const dir = await makeTempDir('pipewright-terminal-');
  await writeFile(path.join(dir, 'job.json'), JSON.stringify(job));
  return dir;
}

let npmCache: string | undefined;

/**
 * npx as a user runs it in the checkout, with an npm cache of its own: npx installs the checkout
 * into the cache (a link) on first use, and without `prepare` (a whole build) it does not need.
 */
async function npxEnv(): Promise<NodeJS.ProcessEnv> {
  npmCache ??= await makeTempDir('pipewright-npm-cache-');
  return {
    ...process.env,
    npm_config_cache: npmCache,
    npm_config_ignore_scripts: 'true',
    npm_config_offline: 'true',
    npm_config_update_notifier: 'false',
    npm_config_yes: 'true',
  };
}

function tableDrawn(output: string): boolean {
  return output.includes('in/s') && output.includes('ticks ×1');
}

function shows(run: TerminalRun, pattern: RegExp): boolean {
  return run.screen().some((line) => pattern.test(line));
}

describe('Ctrl-C on a terminal', () => {
  it('under `node bin/pipewright.js`: stops cleanly, exit 0, the stop line stays above the table', async () => {
    const dir = await jobDir(GENERATOR_JOB);
    const run = new TerminalRun(`node ${binPath} run job.json`, { cwd: dir });
    await run.until(tableDrawn, 'the progress table');
    run.type('\x03');
    const { status } = await run.exited;
    expect(status, run.describe()).toBe(0);
    expect(shows(run, /^pipewright: \S+: stopping cleanly \(again to stop at once\)$/), run.describe()).toBe(
      true,
    );
    expect(shows(run, /^stopped: job "ticks", \d+ records from the sources/), run.describe()).toBe(true);
  });

  it('under `npx pipewright`: npx exits 0 once the run has stopped cleanly', async () => {
    const dir = await jobDir(GENERATOR_JOB);
    const run = new TerminalRun(`npx pipewright run ${path.join(dir, 'job.json')}`, {
      cwd: repoRoot,
      env: await npxEnv(),
    });
    await run.until(tableDrawn, 'the progress table');
    run.type('\x03');
    const { status } = await run.exited;
    expect(status, run.describe()).toBe(0);
    expect(shows(run, /^pipewright: Ctrl-C: stopping cleanly/), run.describe()).toBe(true);
    // Printed before npx exited: the prompt would come after it, not over it.
    expect(shows(run, /^stopped: job "ticks"/), run.describe()).toBe(true);
  });

  it('twice stops at once, with exit 130', async () => {
    const dir = await jobDir(GENERATOR_JOB);
    const run = new TerminalRun(`node ${binPath} run job.json`, { cwd: dir });
    await run.until(tableDrawn, 'the progress table');
    run.type('\x03\x03');
    const { status } = await run.exited;
    expect(status, run.describe()).toBe(130);
    expect(shows(run, /^pipewright: Ctrl-C again: stopping at once$/), run.describe()).toBe(true);
  });
});

describe('a call stuck in user code, on a terminal', () => {
  it('is named in a line the progress table does not draw over, and Ctrl-C ends it', async () => {
    // Stuck 1.5 s in, once the table is on the screen (it shows the thread's last sample).
    const job = {
      ...GENERATOR_JOB,
      name: 'stuck',
      operators: [
        GENERATOR_JOB.operators[0],
        {
          id: 'p1',
          kind: 'process',
          params: {
            code: 'function process(r, ctx) {\n  if (r.i === 300) { while (true) {} }\n  ctx.emit(r);\n}',
          },
        },
        GENERATOR_JOB.operators[1],
      ],
      edges: [
        { id: 'e1', from: 'ticks', to: 'p1', partition: 'forward' },
        { id: 'e2', from: 'p1', to: 'out', partition: 'forward' },
      ],
    };
    const dir = await jobDir(job);
    const run = new TerminalRun(`node ${binPath} run job.json`, { cwd: dir });
    const NOTICE = 'without returning (Ctrl-C stops it)';
    // The line, then two redraws of the table after it (each starts with the job's header).
    await run.until((output) => {
      const at = output.indexOf(NOTICE);
      return at >= 0 && output.slice(at).split('job "stuck"').length > 3;
    }, 'the stuck call is named and the table redrawn twice');
    const longCall =
      /^pipewright: operator "p1" has run its code on the record from generator "ticks" record 300 for \d\.\d s without/;
    expect(shows(run, longCall), run.describe()).toBe(true);
    run.type('\x03');
    const { status } = await run.exited;
    expect(status, run.describe()).toBe(1);
    expect(shows(run, longCall), run.describe()).toBe(true);
    expect(shows(run, /^pipewright: Ctrl-C: stopping cleanly/), run.describe()).toBe(true);
    expect(shows(run, /^pipewright: stopped by force: operator "p1"/), run.describe()).toBe(true);
  });
});

describe('a signal sent to npx', () => {
  it('stops the run cleanly too, though npx itself exits at once', async () => {
    const dir = await jobDir(GENERATOR_JOB);
    const metrics = path.join(dir, 'metrics.jsonl');
    // No terminal: npm forwards the signal to the shell it runs the CLI in, which dies of it.
    const child = spawn('npx', ['pipewright', 'run', path.join(dir, 'job.json'), '--metrics', metrics], {
      cwd: repoRoot,
      env: await npxEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    // The CLI holds the pipes until it ends, whenever npx exits.
    const closed = new Promise<void>((resolve) => child.stdout.on('close', resolve));
    const started = async (): Promise<void> => {
      for (;;) {
        const text = await readFile(metrics, 'utf8').catch(() => '');
        if (text.includes('"recordsOut"')) return;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    await started();
    child.kill('SIGTERM');
    await closed;
    expect(stderr).toMatch(/the npm process that started this run has ended: stopping cleanly/);
    expect(stdout).toMatch(/^stopped: job "ticks"/m);
  }, 60_000);
});
