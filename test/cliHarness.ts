// Helpers for tests that run the real `pipewright` CLI as a child process, the way a user
// (or CI) would: copy an example into a fresh temporary directory, run the CLI there,
// and read what it wrote.
import { spawn } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ChildWatch } from './childWork.js';

export const repoRoot = fileURLToPath(new URL('..', import.meta.url));
export const binPath = path.join(repoRoot, 'bin', 'pipewright.js');
export const examplesDir = path.join(repoRoot, 'assets', 'examples');

export interface CliResult {
  /** Exit code, or null when the process was ended by a signal. */
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface RunOptions {
  readonly cwd?: string;
  /**
   * The CPU time the run may use (test/childWork.ts: its work, whatever the clock says); over it,
   * or with no CPU used for a long while, it is killed and the promise rejects.
   */
  readonly timeoutMs?: number;
  /** How long the run may use no CPU at all before it is taken as stuck (childWork.ts's default otherwise). */
  readonly idleMs?: number;
  readonly env?: NodeJS.ProcessEnv;
}

/** Runs `node bin/pipewright.js ...args` and collects its output; never rejects on a non-zero exit. */
export function runCli(args: readonly string[], options: RunOptions = {}): Promise<CliResult> {
  const { cwd = repoRoot, timeoutMs = 60_000, idleMs, env = process.env } = options;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [binPath, ...args], {
      cwd,
      env,
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
    const watch = new ChildWatch(child, { cpuMs: timeoutMs, ...(idleMs === undefined ? {} : { idleMs }) });
    child.on('error', (error) => {
      watch.stop();
      reject(error);
    });
    child.on('close', (code, signal) => {
      watch.stop();
      if (watch.exceeded === undefined) resolve({ code, signal, stdout, stderr });
      else
        reject(
          new Error(
            `pipewright ${args.join(' ')} ${watch.exceeded} (killed)\nstdout:\n${stdout}\nstderr:\n${stderr}`,
          ),
        );
    });
  });
}

/** A one-line summary of a run for assertion messages. */
export function describeRun(result: CliResult): string {
  return `exit ${result.code ?? result.signal}\n--- stdout ---\n${result.stdout}\n--- stderr ---\n${result.stderr}`;
}

const tempDirs: string[] = [];

/** A fresh directory under the OS temp dir; removed by `removeTempDirs()`. */
export async function makeTempDir(prefix = 'pipewright-test-'): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), prefix));
  tempDirs.push(dir);
  return dir;
}

/** Removes every directory made by `makeTempDir()` in this test file (call it in `afterAll`). */
export async function removeTempDirs(): Promise<void> {
  const dirs = tempDirs.splice(0);
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
}

export interface ExampleCopy {
  /** The temporary directory holding the copy. */
  readonly dir: string;
  /** The copied `NAME.job.json`. */
  readonly jobPath: string;
}

/** Copies `assets/examples/NAME/` (without any `out/` or `.pipewright/` left from a local run) into a temp dir. */
export async function copyExample(name: string): Promise<ExampleCopy> {
  const dir = await makeTempDir(`pipewright-${name}-`);
  const source = path.join(examplesDir, name);
  await cp(source, dir, {
    recursive: true,
    filter: (src) => {
      const rel = path.relative(source, src);
      const first = rel.split(path.sep)[0];
      return first !== 'out' && first !== '.pipewright';
    },
  });
  return { dir, jobPath: path.join(dir, `${name}.job.json`) };
}

/** Reads a JSON Lines file: one JSON value per non-empty line. */
export async function readJsonl<T = unknown>(file: string): Promise<T[]> {
  const text = await readFile(file, 'utf8');
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line, index) => {
      try {
        return JSON.parse(line) as T;
      } catch (error) {
        throw new Error(`${file}:${index + 1} is not JSON: ${String(error)}`);
      }
    });
}

export async function writeJsonl(file: string, rows: readonly unknown[]): Promise<void> {
  await writeFile(file, rows.map((row) => `${JSON.stringify(row)}\n`).join(''));
}

/** A job file as plain JSON; tests change it and write it back with `writeJob`. */
// biome-ignore lint/suspicious/noExplicitAny: tests poke at arbitrary parts of a job document.
export type JobDocument = Record<string, any>;

export async function readJob(file: string): Promise<JobDocument> {
  return JSON.parse(await readFile(file, 'utf8')) as JobDocument;
}

export async function writeJob(file: string, job: JobDocument): Promise<void> {
  await writeFile(file, `${JSON.stringify(job, null, 2)}\n`);
}

export async function pathExists(file: string): Promise<boolean> {
  try {
    await stat(file);
    return true;
  } catch {
    return false;
  }
}

/** An input event of the owner-has-items example (and of the bigger inputs tests generate like it). */
export interface OwnerEvent {
  seq: number;
  type: 'add' | 'move';
  owner: string;
  item: string;
  from?: string;
  to?: string;
}
