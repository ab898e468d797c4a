// The Flink runner's jar and the worker it carries, found beside this checkout; the jar is built
// when it is missing or older than its sources: `mvn package` of flink/ (Flink's jars come from
// Maven Central into ~/.m2 the first time), which copies in dist/flink/flinkWorker.mjs, from
// `npm run build`.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { JobError } from '../graph/jobError.js';
import { acquire, type LockTarget, lockFileOf, newRecord, unlinkQuietly } from './lockFile.js';

/**
 * The options Flink's own distribution gives every JVM on Java 17 (flink/jvm-options.txt, one a
 * line, `#` starting a comment): its serializers reflect into these modules.
 */
export function flinkJvmOptions(root: string): string[] {
  return readFileSync(join(root, 'flink', 'jvm-options.txt'), 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}

export interface FlinkRunnerFiles {
  /** The checkout: the folder holding flink/pom.xml. */
  readonly root: string;
  readonly jar: string;
  /** Flink's own jars for a MiniCluster, `:`-separated, one line. */
  readonly classpathFile: string;
  /** The worker bundle the jar is built with (the plan names the jar's copy, `{worker}`). */
  readonly worker: string;
}

/** The checkout this module runs from: tsc's dist/engine/deploy and the bundle's dist/cli alike. */
export function flinkRunnerFiles(from = dirname(fileURLToPath(import.meta.url))): FlinkRunnerFiles {
  let dir = from;
  while (!existsSync(join(dir, 'flink', 'pom.xml'))) {
    const up = dirname(dir);
    if (up === dir) throw new JobError(`cannot find the Flink runner (flink/pom.xml) above ${from}`);
    dir = up;
  }
  const target = join(dir, 'flink', 'target');
  return {
    root: dir,
    jar: join(target, 'pipewright-flink-runner.jar'),
    classpathFile: join(target, 'classpath.txt'),
    worker: join(dir, 'dist', 'flink', 'flinkWorker.mjs'),
  };
}

/**
 * A digest of flink/pom.xml, flink/src/main and the worker bundle the jar carries
 * (dist/flink/flinkWorker.mjs): the jar is built again when it changes.
 */
export function flinkSourceStamp(root: string): string {
  const hash = createHash('sha256');
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
      a.name < b.name ? -1 : 1,
    )) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) hash.update(path.slice(root.length)).update('\0').update(readFileSync(path));
    }
  };
  hash.update(readFileSync(join(root, 'flink', 'pom.xml')));
  walk(join(root, 'flink', 'src', 'main'));
  hash.update('\0worker\0').update(readFileSync(join(root, 'dist', 'flink', 'flinkWorker.mjs')));
  return hash.digest('hex');
}

function stampFile(files: FlinkRunnerFiles): string {
  return join(dirname(files.jar), 'pipewright-stamp.txt');
}

/** Whether the jar and its classpath are there, built from these sources, with every jar still in ~/.m2. */
export function flinkRunnerCurrent(files: FlinkRunnerFiles): boolean {
  try {
    if (readFileSync(stampFile(files), 'utf8').trim() !== flinkSourceStamp(files.root)) return false;
    if (!existsSync(files.jar)) return false;
    return readFileSync(files.classpathFile, 'utf8')
      .trim()
      .split(':')
      .every((jar) => existsSync(jar));
  } catch {
    return false;
  }
}

/** Runs a program to its end; resolves to its status and the last lines it printed. */
function runQuietly(
  command: string,
  args: readonly string[],
  cwd: string,
): Promise<{ status: number; tail: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const keep = (chunk: Buffer) => {
      out = (out + chunk.toString('utf8')).slice(-20_000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('error', (error) => resolve({ status: -1, tail: error.message }));
    child.on('close', (status) => resolve({ status: status ?? -1, tail: out }));
  });
}

/** The line of Maven's output that says what failed, or its last line. */
function mavenFailure(tail: string): string {
  const lines = tail
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  return lines.find((l) => /\[ERROR\]|error:/.test(l)) ?? lines.at(-1) ?? 'no output';
}

/**
 * Builds the runner jar when it is not current (`say` tells the user: the first build fetches
 * Flink's jars and takes a minute or more). A missing Maven or a failed build is a JobError.
 */
export async function ensureFlinkRunner(files: FlinkRunnerFiles, say: (text: string) => void): Promise<void> {
  if (!existsSync(files.worker)) {
    throw new JobError(`the Flink worker ${files.worker} is not built: run npm run build`);
  }
  if (flinkRunnerCurrent(files)) return;
  await withBuildLock(files, async () => {
    // Another run may have built it while this one waited.
    if (!flinkRunnerCurrent(files)) await buildRunner(files, say);
  });
}

/**
 * One build at a time: two runs starting together (two tests, two terminals) would both run
 * Maven into flink/target, each deleting what the other writes. A lock file beside the jar
 * (deploy/lockFile.ts: a holder that died leaves it stale, and it is taken over).
 */
async function withBuildLock(files: FlinkRunnerFiles, build: () => Promise<void>): Promise<void> {
  const target: LockTarget = {
    path: join(dirname(files.jar), 'build'),
    kind: 'file',
    what: `the Flink runner's build in ${dirname(files.jar)}`,
  };
  mkdirSync(dirname(files.jar), { recursive: true });
  const file = lockFileOf(target);
  while (acquire(file, newRecord(undefined), target, 0) !== undefined) {
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  try {
    await build();
  } finally {
    unlinkQuietly(file);
  }
}

async function buildRunner(files: FlinkRunnerFiles, say: (text: string) => void): Promise<void> {
  say('building the Flink runner with Maven (once; the first build fetches Flink from Maven Central)');
  const stamp = flinkSourceStamp(files.root);
  const built = await runQuietly(
    'mvn',
    ['-q', '-B', '-f', join(files.root, 'flink', 'pom.xml'), 'package', '-DskipTests'],
    files.root,
  );
  if (built.status === -1)
    throw new JobError(`cannot build the Flink runner: Maven (mvn) cannot be started: ${built.tail}`);
  if (built.status !== 0 || !existsSync(files.jar) || !existsSync(files.classpathFile)) {
    throw new JobError(`cannot build the Flink runner: ${mavenFailure(built.tail)}`);
  }
  writeFileSync(stampFile(files), `${stamp}\n`);
}
