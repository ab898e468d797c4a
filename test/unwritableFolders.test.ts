// Folders the engine cannot write, through the real CLI. At the start of a run (state, output or
// checkpoint folder) that is one line naming the folder, exit 1. A checkpoint folder that stops
// taking files during a run fails those checkpoints, with the reason, and the job goes on to the
// exact output (docs/checkpoints.md, "Metrics").
//
// The tests run as root, which ignores permission bits, so a folder is made unwritable by putting
// something in the way: a file where the folder should be, or a folder where a file should be
// created. The engine words the fault after the folder and the write that failed, not the errno.
import { spawn } from 'node:child_process';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  binPath,
  type CliResult,
  describeRun,
  type JobDocument,
  makeTempDir,
  pathExists,
  readJsonl,
  removeTempDirs,
  runCli,
  writeJob,
} from './cliHarness.js';

afterAll(removeTempDirs);

const RECORDS = 6000;
const KEYS = 10;

/**
 * A generator (paced, so the run lasts about three seconds and takes dozens of checkpoints) ->
 * a keyed count in LevelDB state -> out/out.jsonl with two subtasks.
 */
function countingJob(): JobDocument {
  return {
    format: 'pipewright.job/1',
    name: 'unwritable',
    settings: { checkpointIntervalMs: 50 },
    operators: [
      {
        id: 'gen',
        kind: 'source.generator',
        parallelism: 1,
        params: {
          code: `function generate(i, ctx) {\n  return { k: i % ${KEYS}, i };\n}`,
          count: RECORDS,
          ratePerSec: 2000,
        },
      },
      {
        id: 'count',
        kind: 'process',
        parallelism: 2,
        params: {
          code: [
            'function process(record, ctx) {',
            "  const seen = ctx.state.value('seen');",
            '  const n = (seen.get() ?? 0) + 1;',
            '  seen.set(n);',
            '  ctx.emit({ k: record.k, n });',
            '}',
          ].join('\n'),
        },
      },
      { id: 'out', kind: 'sink.jsonl', parallelism: 2, params: { path: 'out/out.jsonl' } },
    ],
    edges: [
      { id: 'e1', from: 'gen', to: 'count', partition: 'hash', key: 'k' },
      { id: 'e2', from: 'count', to: 'out', partition: 'rebalance' },
    ],
  };
}

/** Every key counted from 1 to its number of records, once each. */
function expectedCounts(): string[] {
  const rows: string[] = [];
  for (let k = 0; k < KEYS; k++) for (let n = 1; n <= RECORDS / KEYS; n++) rows.push(`${k}:${n}`);
  return rows.sort();
}

async function outputCounts(file: string): Promise<string[]> {
  return (await readJsonl<{ k: number; n: number }>(file)).map((r) => `${r.k}:${r.n}`).sort();
}

interface Setup {
  readonly dir: string;
  readonly jobPath: string;
  readonly stateDir: string;
  readonly checkpointDir: string;
  readonly outDir: string;
  readonly metrics: string;
}

async function setUp(): Promise<Setup> {
  const dir = await makeTempDir('pipewright-unwritable-');
  const jobPath = path.join(dir, 'unwritable.job.json');
  await writeJob(jobPath, countingJob());
  return {
    dir,
    jobPath,
    stateDir: path.join(dir, 'state'),
    checkpointDir: path.join(dir, 'checkpoints'),
    outDir: path.join(dir, 'out'),
    metrics: path.join(dir, 'metrics.jsonl'),
  };
}

function run(s: Setup, ...flags: string[]): Promise<CliResult> {
  return runCli(
    [
      'run',
      s.jobPath,
      '--quiet',
      '--state-dir',
      s.stateDir,
      '--checkpoint-dir',
      s.checkpointDir,
      '--metrics',
      s.metrics,
      ...flags,
    ],
    { cwd: s.dir },
  );
}

/**
 * Exit 1 and one line on stderr that names the folder (`role`: which one it is to the user, and its
 * path) and says it could not be written, in words: no errno code, no stack trace.
 */
function expectOneLineNaming(result: CliResult, role: RegExp, folder: string): void {
  const lines = result.stderr.split('\n').filter((line) => line.trim() !== '');
  expect(result.code, describeRun(result)).toBe(1);
  expect(lines, describeRun(result)).toHaveLength(1);
  expect(lines[0]).toMatch(role);
  expect(lines[0]).toContain(folder);
  expect(lines[0]).toMatch(/\bcannot\b/);
  expect(lines[0]).not.toMatch(/internal error|\.js:\d+|\bat .*\(/);
  // Paths left out: a temporary folder's random name can look like an errno code (…-ESXXDV).
  expect(lines[0]!.replace(/\/[^\s"]*/g, '<path>')).not.toMatch(/\bE[A-Z]{3,}\b/);
}

interface CheckpointEvent {
  readonly id: number;
  readonly status: 'completed' | 'failed';
  readonly reason?: string;
}

async function checkpointEvents(metrics: string): Promise<CheckpointEvent[]> {
  if (!(await pathExists(metrics))) return [];
  const lines = (await readFile(metrics, 'utf8')).split('\n').filter((l) => l.includes('"checkpoint"'));
  // The last line may be being written.
  return lines.flatMap((line) => {
    try {
      return [JSON.parse(line) as CheckpointEvent];
    } catch {
      return [];
    }
  });
}

/** Folders where the files these checkpoints would create go: each such write then fails. */
async function blockCheckpointFiles(s: Setup, ids: Iterable<number>): Promise<string[]> {
  const blockers: string[] = [];
  for (const id of ids) {
    blockers.push(path.join(s.checkpointDir, `chk-${id}.json.tmp`));
    for (const subtask of [0, 1]) {
      const data = path.join(s.checkpointDir, 'data', `out-${subtask}`);
      blockers.push(path.join(data, `part-${id}.jsonl`), path.join(data, `part-${id}.adopted.jsonl`));
      const state = path.join(s.checkpointDir, 'data', `count-${subtask}`);
      blockers.push(path.join(state, `changes-${id}.kv`), path.join(state, `base-${id}.kv`));
    }
  }
  await Promise.all(blockers.map((b) => mkdir(b, { recursive: true })));
  return blockers;
}

async function partsBesideOutput(s: Setup): Promise<string[]> {
  return (await readdir(s.outDir)).filter((name) => name.includes('.part-'));
}

describe('a folder that cannot be written at the start of a run', () => {
  it('the state folder: one line naming it, exit 1', async () => {
    const s = await setUp();
    await writeFile(s.stateDir, 'a file where the state folder should be\n');
    expectOneLineNaming(await run(s), /\bstate folder\b/, s.stateDir);
  });

  it('the output folder: one line naming it, exit 1, and nothing written', async () => {
    const s = await setUp();
    await writeFile(s.outDir, 'a file where the output folder should be\n');
    expectOneLineNaming(await run(s), /\boutput\b/, s.outDir);
    expect(await readFile(s.outDir, 'utf8')).toBe('a file where the output folder should be\n');
  });

  it('the output folder without checkpoints: one line naming it, exit 1', async () => {
    const s = await setUp();
    await writeFile(s.outDir, 'a file where the output folder should be\n');
    const job = countingJob();
    job.settings.checkpointIntervalMs = 0;
    await writeJob(s.jobPath, job);
    expectOneLineNaming(await run(s), /\boutput\b/, s.outDir);
  });

  it('the checkpoint folder: one line naming it, exit 1', async () => {
    const s = await setUp();
    await writeFile(s.checkpointDir, 'a file where the checkpoint folder should be\n');
    expectOneLineNaming(await run(s), /\bcheckpoint folder\b/, s.checkpointDir);
  });

  it('the checkpoint folder that takes no data files: one line naming it, exit 1', async () => {
    const s = await setUp();
    await mkdir(s.checkpointDir);
    await writeFile(path.join(s.checkpointDir, 'data'), 'a file where the data folder should be\n');
    const result = await run(s);
    expectOneLineNaming(result, /\bcheckpoint folder\b/, s.checkpointDir);
    expect(result.stderr).toContain(path.join(s.checkpointDir, 'data'));
  });
});

describe('a checkpoint folder that stops taking files during a run', () => {
  it('fails those checkpoints with the reason; the job goes on to the exact output', async () => {
    const s = await setUp();
    // Checkpoint 1 can be written; after it, no metadata, no sink part, no state file.
    await blockCheckpointFiles(
      s,
      Array.from({ length: 999 }, (_, i) => i + 2),
    );
    // And a part an earlier run, killed, left beside the output: no checkpoint names it.
    await mkdir(s.outDir);
    await writeFile(path.join(s.outDir, '.out.jsonl.part-1-7.inprogress'), '{"k":0,"n":999}\n');
    const result = await run(s);
    expect(result.code, describeRun(result)).toBe(0);
    expect(result.stderr).toBe('');
    expect(await outputCounts(path.join(s.outDir, 'out.jsonl'))).toEqual(expectedCounts());
    // The parts that went beside the output were published at the end and are gone, the old one too.
    expect(await partsBesideOutput(s)).toEqual([]);

    const events = await checkpointEvents(s.metrics);
    expect(events.find((e) => e.id === 1)?.status).toBe('completed');
    const failed = events.filter((e) => e.status === 'failed');
    expect(failed.length, JSON.stringify(events)).toBeGreaterThan(0);
    expect(events.filter((e) => e.id > 1 && e.status === 'completed')).toEqual([]);
    for (const event of failed)
      expect(event.reason).toContain(`cannot write the checkpoint folder ${s.checkpointDir} (`);
  });

  it('does not hold a stop back: SIGINT ends the run cleanly, every record read counted once', async () => {
    const s = await setUp();
    await blockCheckpointFiles(
      s,
      Array.from({ length: 999 }, (_, i) => i + 2),
    );
    const child = spawn(
      process.execPath,
      [
        binPath,
        'run',
        s.jobPath,

        '--state-dir',
        s.stateDir,
        '--checkpoint-dir',
        s.checkpointDir,
        '--metrics',
        s.metrics,
      ],
      { cwd: s.dir, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    // Once a checkpoint has failed, the stop's own cannot be written either.
    const deadline = Date.now() + 20_000;
    while (!(await pathExists(s.metrics)) || !(await readFile(s.metrics, 'utf8')).includes('"failed"')) {
      if (Date.now() > deadline) throw new Error('no checkpoint failed');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    child.kill('SIGINT');
    const code = await Promise.race([
      exited,
      new Promise((resolve) => setTimeout(() => resolve('hung'), 20_000)),
    ]);
    if (code === 'hung') child.kill('SIGKILL');
    expect(code, stdout).toBe(0);
    expect(stdout).toMatch(/^stopped: /);
    // A prefix of each key's count: every record read was counted exactly once.
    const counts = (await readJsonl<{ k: number; n: number }>(path.join(s.outDir, 'out.jsonl'))).sort(
      (a, b) => a.k - b.k || a.n - b.n,
    );
    expect(counts.length).toBeLessThan(RECORDS);
    for (let k = 0; k < KEYS; k++) {
      const ns = counts.filter((c) => c.k === k).map((c) => c.n);
      expect(ns).toEqual(Array.from({ length: ns.length }, (_, i) => i + 1));
    }
  });

  it('its data folder replaced by a file mid-run (the parts in it gone): one line naming the folder, exit 1', async () => {
    const s = await setUp();
    const running = run(s);
    const data = path.join(s.checkpointDir, 'data');
    for (let polls = 0; !(await pathExists(path.join(s.checkpointDir, 'chk-2.json'))); polls++) {
      if (polls > 1000) throw new Error('no second checkpoint');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // The folder goes, with the part each sink subtask was writing in it, and a file takes its place.
    await rename(data, path.join(s.dir, 'data-taken-away'));
    await writeFile(data, 'a file where the data folder was\n');
    const result = await running;
    expectOneLineNaming(result, /\bcheckpoint folder\b/, s.checkpointDir);
    expect(result.stderr).toContain(`${data} is a file, not a folder`);
  });

  it('takes checkpoints again once it does, and the last one restores', async () => {
    const s = await setUp();
    const blockers = await blockCheckpointFiles(
      s,
      Array.from({ length: 999 }, (_, i) => i + 2),
    );
    const running = run(s);
    // Let the folder take files again once a checkpoint has failed (the run lasts seconds more).
    let events: CheckpointEvent[] = [];
    for (let polls = 0; !events.some((e) => e.status === 'failed') && polls < 1000; polls++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      events = await checkpointEvents(s.metrics);
    }
    await Promise.all(blockers.map((b) => rm(b, { recursive: true, force: true })));
    const result = await running;
    expect(result.code, describeRun(result)).toBe(0);
    expect(await outputCounts(path.join(s.outDir, 'out.jsonl'))).toEqual(expectedCounts());
    expect(await partsBesideOutput(s)).toEqual([]);

    events = await checkpointEvents(s.metrics);
    const firstFailed = events.find((e) => e.status === 'failed')!;
    expect(firstFailed.reason).toContain(`cannot write the checkpoint folder ${s.checkpointDir} (`);
    const later = events.filter((e) => e.id > firstFailed.id && e.status === 'completed');
    expect(later.length, JSON.stringify(events)).toBeGreaterThan(0);

    // The parts written beside the output while the folder refused them are in it now.
    const last = later.at(-1)!.id;
    const metadata = JSON.parse(await readFile(path.join(s.checkpointDir, `chk-${last}.json`), 'utf8')) as {
      sinks: { files?: { path: string }[] }[];
      subtasks: { committable?: { files?: { path: string }[] } }[];
    };
    const named = [
      ...metadata.sinks.flatMap((sink) => (sink.files ?? []).map((p) => p.path)),
      ...metadata.subtasks.flatMap((sub) => (sub.committable?.files ?? []).map((p) => p.path)),
    ];
    for (const file of named) {
      expect(path.isAbsolute(file), file).toBe(false);
      expect(await pathExists(path.join(s.checkpointDir, file)), file).toBe(true);
    }

    const restored = await run(s, '--restore', 'latest');
    expect(restored.code, describeRun(restored)).toBe(0);
    expect(await outputCounts(path.join(s.outDir, 'out.jsonl'))).toEqual(expectedCounts());
  });
});
