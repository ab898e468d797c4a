// `pipewright flink JOB`: the job on Apache Flink, in an embedded MiniCluster or on a session
// cluster (flinkClusterRun.ts; flink/PROTOCOL.md, docs/flink.md). Everything that can be refused
// is refused before a JVM starts or a cluster is asked: an invalid job, a kind or edge the runner
// cannot run yet, an untrusted job, a missing input file.
import { writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { ensureFlinkRunner, type FlinkRunnerFiles, flinkRunnerFiles } from '../deploy/flinkBuild.js';
import { startFlinkJob } from '../deploy/flinkJobRun.js';
import { prepareFlinkRun, reachCluster } from '../deploy/flinkSubmission.js';
import { checkInputFiles } from '../deploy/inputFileCheck.js';
import { defaultRunDirs } from '../deploy/runDirs.js';
import type { FlinkPlan } from '../graph/flinkPlan.js';
import { flinkRefusals } from '../graph/flinkSupport.js';
import { inputFilesOf } from '../graph/inputFiles.js';
import { JobError } from '../graph/jobError.js';
import type { Problem } from '../graph/problem.js';
import { hasUriScheme } from '../graph/savepointNames.js';
import { runOnCluster } from './flinkClusterRun.js';
import { readValidJobFile } from './jobFile.js';
import { trustDecision } from './jobTrust.js';
import type { Command } from './usage.js';

export interface FlinkCommandIo {
  say(text: string): void;
  complain(text: string): void;
  /** `file: message (path)` for a problem of the job file. */
  problemLine(problem: Problem): string;
}

export async function flinkCommand(
  command: Extract<Command, { name: 'flink' }>,
  io: FlinkCommandIo,
): Promise<number> {
  const read = readValidJobFile(command.job, io.complain, io.problemLine);
  if (read === undefined) return 1;
  const valid = read.job;
  const refusals = flinkRefusals(valid);
  if (refusals.length > 0) {
    for (const refusal of refusals) io.complain(io.problemLine(refusal));
    return 1;
  }
  const dirs = defaultRunDirs(command.job, valid.name);
  const trust = await trustDecision({
    jobFile: command.job,
    text: read.text,
    job: valid,
    jobDir: dirs.jobDir,
    trust: command.trust,
  });
  if (trust.warning !== undefined) io.complain(trust.warning);
  if ('refusal' in trust) {
    io.complain(trust.refusal);
    return 1;
  }
  const missing = await checkInputFiles(resolve(command.job), inputFilesOf(read.document));
  if (missing.length > 0) {
    for (const warning of missing) io.complain(`${command.job}: ${warning.message} (${warning.path})`);
    return 1;
  }
  const stops = new StopRequests();
  const onSignal = () => stops.add();
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    // First what the job's own params may refuse (an unset `${env:NAME}`), then Maven.
    const { plan, home, joinSinks } = await prepareFlinkRun(valid, dirs, {
      ...(command.cluster === undefined ? {} : { cluster: command.cluster }),
      ...(command.parallelism === undefined ? {} : { parallelism: command.parallelism }),
      // A path of this machine is the user's, relative to where they are; a URI is Flink's.
      ...(command.fromSavepoint === undefined
        ? {}
        : {
            fromSavepoint: hasUriScheme(command.fromSavepoint)
              ? command.fromSavepoint
              : resolve(command.fromSavepoint),
          }),
    });
    // A cluster that does not answer is said before Maven runs.
    const cluster = command.cluster === undefined ? undefined : await reachCluster(command.cluster);
    const files = flinkRunnerFiles();
    await ensureFlinkRunner(files, (text) => {
      if (!command.quiet) io.complain(text);
    });
    if (cluster !== undefined) {
      return await runOnCluster({
        cluster,
        files,
        plan,
        savepointFallback: join(home, 'savepoints'),
        ...(command.savepointDir === undefined ? {} : { savepointDir: resolve(command.savepointDir) }),
        quiet: command.quiet,
        stops,
        say: io.say,
        complain: io.complain,
        joinSinks,
      });
    }
    return await runOnMiniCluster(plan, files, home, stops, joinSinks, command.quiet, io);
  } catch (error) {
    return failedWith(io, error);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

/** The stops the user asks for (Ctrl-C, SIGINT, SIGTERM), counted, each awaitable in turn. */
class StopRequests {
  private count = 0;
  private waiting: ((count: number) => void) | undefined;
  private told = 0;

  add(): void {
    this.count++;
    this.deliver();
  }

  next(): Promise<number> {
    return new Promise((resolve) => {
      this.waiting = resolve;
      this.deliver();
    });
  }

  private deliver(): void {
    if (this.waiting === undefined || this.told === this.count) return;
    const resolve = this.waiting;
    this.waiting = undefined;
    resolve(++this.told);
  }
}

/** The job in a MiniCluster JVM of its own; a stop ends that JVM at once. */
async function runOnMiniCluster(
  plan: FlinkPlan,
  files: FlinkRunnerFiles,
  home: string,
  stops: StopRequests,
  joinSinks: () => Promise<void>,
  quiet: boolean,
  io: FlinkCommandIo,
): Promise<number> {
  const planFile = join(home, 'plan.json');
  await writeFile(planFile, `${JSON.stringify(plan, null, 2)}\n`);
  const logFile = join(home, 'flink.log');
  if (!quiet) io.say(`job "${plan.jobName}" on Flink (an embedded MiniCluster); Flink's log: ${logFile}`);
  const started = Date.now();
  const run = startFlinkJob(files, planFile, logFile);
  let stopped = false;
  void stops.next().then(() => {
    stopped = true;
    run.kill();
  });
  const outcome = await run.done;
  if (stopped) {
    io.complain('stopped: the Flink job was ended at once; no sink file was written');
    return 130;
  }
  if (!outcome.finished || outcome.status !== 0) {
    io.complain(
      outcome.failure ??
        `the Flink runner ended without finishing the job (${outcome.signal ?? `exit ${outcome.status}`}); its log: ${logFile}`,
    );
    return 1;
  }
  await joinSinks();
  if (!quiet)
    io.say(`done: job "${plan.jobName}" on Flink in ${((Date.now() - started) / 1000).toFixed(2)} s`);
  return 0;
}

function failedWith(io: FlinkCommandIo, error: unknown): number {
  if (error instanceof JobError) io.complain(error.message);
  else io.complain(`internal error: ${(error as Error)?.stack ?? String(error)}`);
  return 1;
}
