// Helpers for the checkpoint tests: start the real CLI as a child process that can be killed,
// look into a checkpoint directory the way a restore would (which checkpoints are complete,
// which data files belong to one still being written), read the checkpoint lines of --metrics,
// compare outputs as multisets of lines, and crash a run again and again with `kill -9`,
// restoring it with `--restore latest` until it finishes.
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'vitest';
import type { CheckpointEvent } from '../engine/checkpoint/checkpointCoordinator.js';
import { ChildWatch } from './childWork.js';
import { binPath, type CliResult, describeRun, repoRoot } from './cliHarness.js';

/** The CLI under test; PIPEWRIGHT_BIN runs the tests against another build (e.g. a patched copy). */
export const cliBin = process.env.PIPEWRIGHT_BIN ?? binPath;

// ------------------------------------------------------------------------------------ randomness

/** mulberry32: a small seeded PRNG, so a failing run can be repeated with its seed. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A PRNG of its own for each test, from the run's seed and the test's label, so that one
 * test's kill times do not depend on another's.
 */
export function randomFor(seed: number, label: string): () => number {
  let hash = 2166136261;
  for (let i = 0; i < label.length; i++) hash = Math.imul(hash ^ label.charCodeAt(i), 16777619);
  return seededRandom((seed ^ hash) >>> 0);
}

/** A number in [low, high). */
export const between = (random: () => number, low: number, high: number) => low + random() * (high - low);

/** The seed of this test file's kill times: fixed in `npm test`, random in the soak tier (test/tier.ts). */
export { testSeed } from './tier.js';

// ----------------------------------------------------------------------------------- child runs

export interface RunningCli {
  readonly child: ChildProcess;
  /** Its budget of work (test/childWork.ts): over it, the child is killed. */
  readonly watch: ChildWatch;
  /** Date.now() just before the process was spawned. */
  readonly startedAt: number;
  /** Resolves when the process has exited (whatever the cause); never rejects. */
  readonly done: Promise<CliResult>;
  readonly exited: () => boolean;
  readonly stderr: () => string;
}

/** Starts `node bin/pipewright.js ...args` without waiting for it. */
export function startCli(args: readonly string[], cwd: string = repoRoot): RunningCli {
  return startNode([cliBin, ...args], cwd);
}

/** What a started run may use until finish() gives it a budget of its own. */
const START_BUDGET = { cpuMs: 300_000 };

/** Starts `node ...args` without waiting for it, collecting what it prints. */
export function startNode(args: readonly string[], cwd: string): RunningCli {
  const startedAt = Date.now();
  const child = spawn(process.execPath, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  const watch = new ChildWatch(child, START_BUDGET);
  let stdout = '';
  let stderr = '';
  let exited = false;
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const done = new Promise<CliResult>((resolve) => {
    child.on('error', (error) => {
      exited = true;
      resolve({ code: null, signal: null, stdout, stderr: `${stderr}\nspawn error: ${String(error)}` });
    });
    child.on('close', (code, signal) => {
      exited = true;
      resolve({ code, signal, stdout, stderr });
    });
  });
  return { child, watch, startedAt, done, exited: () => exited, stderr: () => stderr };
}

/**
 * Waits for a started run, killing it (and failing) when it uses more than `cpuMs` of CPU time,
 * or none for a long while (test/childWork.ts: a budget of work, not of wall-clock time).
 */
export async function finish(run: RunningCli, cpuMs: number, what: string): Promise<CliResult> {
  run.watch.setBudget({ cpuMs });
  const result = await run.done;
  if (run.watch.exceeded !== undefined) {
    throw new Error(`${what} ${run.watch.exceeded} (killed)\n${describeResult(result)}`);
  }
  return result;
}

/** Runs the CLI to its end, within `cpuMs` of CPU time. */
export function runToEnd(args: readonly string[], cwd: string, cpuMs = 90_000): Promise<CliResult> {
  return finish(startCli(args, cwd), cpuMs, `pipewright ${args.join(' ')}`);
}

/** The harness's summary of a run, for assertion messages. */
export const describeResult = describeRun;

/** Kills with SIGKILL and waits until the process is gone. */
export async function killHard(run: RunningCli): Promise<CliResult> {
  if (!run.exited()) run.child.kill('SIGKILL');
  return run.done;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Polls `condition` (which may ask a server or read a file) until it holds; false when the run
 * exited or time ran out first. With a `run`, time is the run's: `timeoutMs` of the CPU time it
 * uses from now on (a loaded machine slows the run and the wait alike); without one, the clock's.
 */
export async function waitUntil(
  condition: () => boolean | Promise<boolean>,
  options: { readonly run?: RunningCli; readonly timeoutMs: number; readonly everyMs?: number },
): Promise<boolean> {
  const run = options.run;
  const spent = run === undefined ? () => Date.now() : () => run.watch.cpuMs();
  const deadline = spent() + options.timeoutMs;
  for (;;) {
    if (await condition()) return true;
    if (run?.exited() || spent() > deadline) return false;
    await sleep(options.everyMs ?? 5);
  }
}

// --------------------------------------------------------------------------- checkpoint folders

const METADATA = /^chk-(\d+)\.json$/;
const METADATA_TMP = /^chk-(\d+)\.json\.tmp$/;
/** State bases and changelogs, feedback logs: written at or after a barrier, never before. */
const SNAPSHOT_FILE = /^(base|changes|feedback)-(\d+)\.(kv|jsonl)$/;

export interface DataFile {
  /** Relative to the checkpoint directory, as metadata names it. */
  readonly path: string;
  readonly id: number;
  readonly mtimeMs: number;
  readonly size: number;
}

export interface CheckpointDirState {
  /** Ids with a metadata file, newest first. */
  readonly completed: number[];
  /** Ids whose metadata is being written (`chk-<id>.json.tmp`). */
  readonly metadataBeingWritten: { id: number; mtimeMs: number }[];
  /** State and feedback files of checkpoints newer than every completed one. */
  readonly orphans: DataFile[];
}

function listDir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function statOrUndefined(file: string): { mtimeMs: number; size: number } | undefined {
  try {
    return statSync(file);
  } catch {
    return undefined;
  }
}

/** What a checkpoint directory holds right now (synchronous, so it can be polled tightly). */
export function inspectCheckpointDir(dir: string): CheckpointDirState {
  const names = listDir(dir);
  const completed = names
    .map((name) => METADATA.exec(name)?.[1])
    .filter((id): id is string => id !== undefined)
    .map(Number)
    .sort((a, b) => b - a);
  const newest = completed[0] ?? 0;
  const metadataBeingWritten: { id: number; mtimeMs: number }[] = [];
  for (const name of names) {
    const id = METADATA_TMP.exec(name)?.[1];
    const info = id === undefined ? undefined : statOrUndefined(path.join(dir, name));
    if (info !== undefined) metadataBeingWritten.push({ id: Number(id), mtimeMs: info.mtimeMs });
  }
  const orphans: DataFile[] = [];
  for (const folder of listDir(path.join(dir, 'data'))) {
    for (const name of listDir(path.join(dir, 'data', folder))) {
      const match = SNAPSHOT_FILE.exec(name);
      if (match === null || Number(match[2]) <= newest) continue;
      const relative = path.join('data', folder, name);
      const info = statOrUndefined(path.join(dir, relative));
      if (info !== undefined)
        orphans.push({ path: relative, id: Number(match[2]), mtimeMs: info.mtimeMs, size: info.size });
    }
  }
  return { completed, metadataBeingWritten, orphans };
}

/**
 * Checkpoints that a run started at `since` was writing: files of a checkpoint that has no
 * metadata (yet), made or changed by that run. Sink parts do not count: the part of the next
 * checkpoint is always open. (A changes file can also get its first block before its barrier, but
 * only after about 1 MiB or 16384 records of changes, which the jobs of these tests never reach
 * between two checkpoints.)
 */
/**
 * Holds the run still (SIGSTOP) while a checkpoint of its own is being written, so that the kill
 * which follows lands inside the write: a write of a few ms could otherwise end between seeing
 * it and the kill. A write that ended before the run stopped lets it go on to the next one.
 * Gives up (the run going on) when none is seen within the run's next 10 s of CPU.
 */
async function stopWhileWriting(run: RunningCli, checkpointDir: string): Promise<void> {
  const writing = () =>
    checkpointsBeingWritten(inspectCheckpointDir(checkpointDir), run.startedAt).length > 0;
  for (;;) {
    if (!(await waitUntil(writing, { run, timeoutMs: 10_000, everyMs: 1 })) || run.exited()) return;
    run.child.kill('SIGSTOP');
    if (writing()) return;
    run.child.kill('SIGCONT');
  }
}

export function checkpointsBeingWritten(state: CheckpointDirState, since: number): number[] {
  const ids = new Set<number>();
  for (const file of state.orphans) if (file.mtimeMs >= since) ids.add(file.id);
  for (const tmp of state.metadataBeingWritten) if (tmp.mtimeMs >= since) ids.add(tmp.id);
  return [...ids].sort((a, b) => a - b);
}

// biome-ignore lint/suspicious/noExplicitAny: checkpoint metadata is read as plain JSON here.
export type CheckpointMetadataJson = Record<string, any>;

export function readMetadata(dir: string, id: number): CheckpointMetadataJson {
  return JSON.parse(readFileSync(path.join(dir, `chk-${id}.json`), 'utf8')) as CheckpointMetadataJson;
}

/** Every data file a checkpoint names (state, feedback logs, sink parts), without repeats. */
export function referencedFiles(metadata: CheckpointMetadataJson): { path: string; bytes: number }[] {
  const refs = new Map<string, { path: string; bytes: number }>();
  const add = (ref: { path: string; bytes: number } | undefined) => {
    if (ref !== undefined) refs.set(ref.path, { path: ref.path, bytes: ref.bytes });
  };
  for (const s of metadata.subtasks as CheckpointMetadataJson[]) {
    add(s.state?.base);
    for (const ref of s.state?.changes ?? []) add(ref);
    add(s.feedback);
    for (const split of s.splits ?? []) for (const ref of split.files ?? []) add(ref);
    for (const ref of s.committable?.files ?? []) add(ref);
  }
  for (const sink of metadata.sinks as CheckpointMetadataJson[]) for (const ref of sink.files ?? []) add(ref);
  return [...refs.values()];
}

// ------------------------------------------------------------------------------- metrics lines

/** A `--metrics` line of one checkpoint, as the engine writes it. */
export type CheckpointLine = CheckpointEvent;

/** The checkpoint lines of a --metrics file (a missing file has none; a torn last line is skipped). */
export function checkpointLines(metricsFile: string): CheckpointLine[] {
  let text: string;
  try {
    text = readFileSync(metricsFile, 'utf8');
  } catch {
    return [];
  }
  const lines: CheckpointLine[] = [];
  for (const line of text.split('\n')) {
    if (!line.includes('"type":"checkpoint"')) continue;
    try {
      lines.push(JSON.parse(line) as CheckpointLine);
    } catch {
      // Being appended right now.
    }
  }
  return lines;
}

// -------------------------------------------------------------------------------- output files

/** The lines of a JSONL output file (a missing file has none). */
export async function outputLines(file: string): Promise<string[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  return text.split('\n').filter((line) => line !== '');
}

function counts(lines: readonly string[]): Map<string, number> {
  const result = new Map<string, number>();
  for (const line of lines) result.set(line, (result.get(line) ?? 0) + 1);
  return result;
}

/** What `actual` has beyond `expected` and lacks of it, as multisets of lines. */
export function multisetDifference(
  actual: readonly string[],
  expected: readonly string[],
): { missing: string[]; extra: string[] } {
  const left = counts(expected);
  const extra: string[] = [];
  for (const line of actual) {
    const n = left.get(line) ?? 0;
    if (n > 0) left.set(line, n - 1);
    else extra.push(line);
  }
  const missing = [...left].flatMap(([line, n]) => Array.from({ length: n }, () => line));
  return { missing, extra };
}

/** A short account of how two outputs differ, for assertion messages ('' when they are equal). */
export function describeDifference(actual: readonly string[], expected: readonly string[]): string {
  const { missing, extra } = multisetDifference(actual, expected);
  if (missing.length === 0 && extra.length === 0) return '';
  const sample = (lines: string[]) =>
    lines
      .slice(0, 5)
      .map((line) => `    ${line}`)
      .join('\n');
  return [
    `${actual.length} lines, expected ${expected.length}: ${missing.length} missing, ${extra.length} extra (duplicated or wrong)`,
    ...(missing.length > 0 ? ['  missing, e.g.:', sample(missing)] : []),
    ...(extra.length > 0 ? ['  extra, e.g.:', sample(extra)] : []),
  ].join('\n');
}

// ------------------------------------------------------------------------------ crash and restore

export interface KillPlan {
  /** Milliseconds after the start of the process. */
  readonly delayMs: number;
  /** First wait until this run has completed a checkpoint of its own (then the delay counts from there). */
  readonly afterCheckpoint?: boolean;
  /**
   * With afterCheckpoint: a checkpoint of its own that holds this (given its metadata), e.g.
   * records logged round a loop. What the restore resumed from is the caller's to check: a newer
   * checkpoint may complete between the look and the kill.
   */
  readonly checkpointHolds?: (metadata: CheckpointMetadataJson) => boolean;
  /** After the delay, wait until a checkpoint is being written and kill right then. */
  readonly duringCheckpoint?: boolean;
}

export interface Attempt {
  readonly attempt: number;
  readonly args: readonly string[];
  readonly plan: KillPlan | undefined;
  /** Newest completed checkpoint before the attempt started, if any. */
  readonly newestBefore: number | undefined;
  /** What the run said it resumed from. */
  readonly restoredFrom: number | 'fresh' | undefined;
  readonly killed: boolean;
  /** Checkpoints of this run that had data files but no metadata when it was killed. */
  readonly killedWhileWriting: number[];
  readonly result: CliResult;
}

/**
 * Kill plans: the first kill comes soon after the run's first checkpoint (so a restore has
 * something to resume from), the others at random delays in [low, high] x the clean run's
 * duration after the start; the kills listed in `duringCheckpoint` then also wait until a
 * checkpoint is being written.
 */
export function killPlans(
  random: () => number,
  count: number,
  baselineMs: number,
  low: number,
  high: number,
  duringCheckpoint: readonly number[] = [2],
): KillPlan[] {
  return Array.from({ length: count }, (_, i) => ({
    delayMs:
      i === 0 ? between(random, 0, 0.1 * baselineMs) : between(random, low * baselineMs, high * baselineMs),
    afterCheckpoint: i === 0,
    duringCheckpoint: duringCheckpoint.includes(i),
  }));
}

/** The last attempt ran to its end, at least `minKills` were killed, and some restore resumed from a checkpoint. */
export function expectRestoredToEnd(attempts: readonly Attempt[], minKills: number, context: string): void {
  const last = attempts[attempts.length - 1]!;
  expect(last.result.code, `${context}\nthe last run:\n${describeResult(last.result)}`).toBe(0);
  expect(attempts.filter((a) => a.killed).length, context).toBeGreaterThanOrEqual(minKills);
  // Some restore really resumed from a checkpoint, not from a fresh start.
  expect(
    attempts.some((a) => typeof a.restoredFrom === 'number'),
    context,
  ).toBe(true);
}

export interface CrashOptions {
  readonly jobPath: string;
  readonly cwd: string;
  readonly checkpointDir: string;
  /** One per kill, in order; after the last kill the run goes on to its end. */
  readonly kills: readonly KillPlan[];
  /** Called before every attempt (e.g. to change the job's parallelism). */
  readonly beforeAttempt?: (attempt: number) => Promise<void>;
  /**
   * Starts an attempt's process, restoring the latest checkpoint when `restore` (default:
   * `pipewright run JOB [--restore latest]`); for a runner of its own that says what it restores
   * as the CLI does ("restoring checkpoint N", "starting fresh").
   */
  readonly start?: (restore: boolean) => RunningCli;
  readonly timeoutMs?: number;
}

export function describeAttempts(attempts: readonly Attempt[]): string {
  return attempts
    .map((a) => {
      const plan =
        a.plan === undefined
          ? 'to the end'
          : `kill at ${Math.round(a.plan.delayMs)} ms${a.plan.afterCheckpoint ? ` after its first checkpoint${a.plan.checkpointHolds ? ' that holds what it asks' : ''}` : ''}${a.plan.duringCheckpoint ? ', during a checkpoint' : ''}`;
      const outcome = a.killed
        ? `killed${a.killedWhileWriting.length > 0 ? ` while writing checkpoint ${a.killedWhileWriting.join(', ')}` : ''}`
        : `exit ${a.result.code ?? a.result.signal}`;
      const from = a.restoredFrom === undefined ? '' : `, resumed from ${a.restoredFrom}`;
      return `  #${a.attempt} (${plan}): newest checkpoint before ${a.newestBefore ?? 'none'}${from}; ${outcome}`;
    })
    .join('\n');
}

function restoredFrom(stderr: string): number | 'fresh' | undefined {
  const restored = /restoring checkpoint (\d+)/.exec(stderr);
  if (restored) return Number(restored[1]);
  return /starting fresh/.test(stderr) ? 'fresh' : undefined;
}

/**
 * Runs the job, kills it with SIGKILL as `kills` says, restores it with `--restore latest`, and
 * so on until a run ends by itself. A run that fails (non-zero exit without being killed) ends
 * the sequence too: the caller asserts on the last result.
 */
export async function crashAndRestore(options: CrashOptions): Promise<Attempt[]> {
  const attempts: Attempt[] = [];
  const timeoutMs = options.timeoutMs ?? 90_000;
  for (let attempt = 0; ; attempt++) {
    await options.beforeAttempt?.(attempt);
    // The jobs crashed here read inputs written once for a whole file, outside their folders.
    const args = ['run', options.jobPath, '--trust', ...(attempt > 0 ? ['--restore', 'latest'] : [])];
    const plan = options.kills[attempt];
    const newestBefore = inspectCheckpointDir(options.checkpointDir).completed[0];
    const run = options.start === undefined ? startCli(args, options.cwd) : options.start(attempt > 0);
    let killed = false;
    let killedWhileWriting: number[] = [];
    if (plan !== undefined) {
      let from = run.startedAt;
      if (plan.afterCheckpoint) {
        const holds = plan.checkpointHolds;
        await waitUntil(
          () => {
            const newest = inspectCheckpointDir(options.checkpointDir).completed[0];
            if (newest === undefined || newest === newestBefore) return false;
            return holds === undefined || holds(readMetadata(options.checkpointDir, newest));
          },
          { run, timeoutMs },
        );
        from = Date.now();
      }
      await waitUntil(() => Date.now() >= from + plan.delayMs, { run, timeoutMs, everyMs: 2 });
      if (plan.duringCheckpoint) await stopWhileWriting(run, options.checkpointDir);
      if (!run.exited()) {
        await killHard(run);
        killed = true;
        // The process is gone: what the folder holds now is what it held at the kill.
        killedWhileWriting = checkpointsBeingWritten(
          inspectCheckpointDir(options.checkpointDir),
          run.startedAt,
        );
      }
    }
    const result = await finish(run, timeoutMs, `attempt ${attempt}: pipewright ${args.join(' ')}`);
    killed = killed && result.signal === 'SIGKILL';
    attempts.push({
      attempt,
      args,
      plan,
      newestBefore,
      restoredFrom: restoredFrom(result.stderr),
      killed,
      killedWhileWriting,
      result,
    });
    if (!killed) return attempts;
  }
}
