// What every run on Flink does before the job starts, whoever asks (`pipewright flink`, the
// designer's Run on Flink…): the job's params resolved as the local engine resolves them, its
// plan for the runner (flink/PROTOCOL.md), its folder beside the local runs' emptied of what a
// run before left, and, on a session cluster, the runner jar uploaded once per build and the
// job submitted from it.
import { createHash } from 'node:crypto';
import { mkdir, readFile, rm, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { type FlinkPlan, flinkPlan, flinkWorkerCommand } from '../graph/flinkPlan.js';
import { JobError } from '../graph/jobError.js';
import type { Job } from '../graph/schema.js';
import { resolveEnvParams } from '../operators/envParams.js';
import { defaultName } from '../operators/postgres/source/postgresSource.js';
import type { FlinkRunnerFiles } from './flinkBuild.js';
import { FlinkRest } from './flinkRest.js';
import { continueSinkFile, flinkSinkDir, joinSinkParts } from './flinkSinkParts.js';
import { checkFlinkSinkTables } from './flinkTableCheck.js';
import type { RunDirs } from './runDirs.js';

/** The runner's main class in its jar. */
const RUNNER_CLASS = 'dev.pipewright.flink.Runner';

export interface FlinkRunSetup {
  readonly plan: FlinkPlan;
  /** `.pipewright/NAME/flink/`, beside the local engine's state and checkpoints. */
  readonly home: string;
  /** Joins the sinks' committed parts into their files (the job has finished or stopped). */
  joinSinks(): Promise<void>;
}

/**
 * The plan of `valid` (a job already checked: valid, runnable on Flink, trusted), its folder
 * emptied. Throws the one line of a `${env:NAME}` that is not set, or of a sink's table that
 * is not as the sink needs it (flinkTableCheck.ts).
 */
export async function prepareFlinkRun(
  valid: Job,
  dirs: RunDirs,
  options: { readonly cluster?: string; readonly parallelism?: number; readonly fromSavepoint?: string },
): Promise<FlinkRunSetup> {
  const savepoint = options.fromSavepoint;
  if (savepoint !== undefined) await checkSavepoint(savepoint);
  // `${env:NAME}` in params, as the local engine resolves them just before an operator opens.
  const job = {
    ...valid,
    operators: valid.operators.map((o) => ({
      ...o,
      params: withDefaultNames(o, dirs.jobDir, valid.name, resolveEnvParams(o.params, o.id)),
    })),
  } as Job;
  await checkFlinkSinkTables(job);
  const home = join(dirname(dirs.stateDir), 'flink');
  const plan = flinkPlan(job, {
    resolvePath: (path) => resolve(dirs.jobDir, path),
    sinkDir: flinkSinkDir,
    workerCommand: flinkWorkerCommand(options.cluster !== undefined, process.execPath),
    ...(options.parallelism === undefined ? {} : { parallelism: options.parallelism }),
    // On a cluster, the cluster's own checkpoint folder (this one may not be the cluster's to see).
    ...(options.cluster === undefined ? { checkpointDir: join(home, 'checkpoints') } : {}),
    ...(savepoint === undefined ? {} : { savepoint }),
  });
  if (savepoint === undefined) {
    // A run before this one may have left parts (a killed run): they are not this run's output.
    await rm(home, { recursive: true, force: true });
    for (const dir of Object.values(plan.sinkDirs)) await rm(dir, { recursive: true, force: true });
  } else {
    // It continues a stopped run: its savepoints (maybe the one it starts from) stay, and each
    // sink's file goes on from what that run wrote.
    for (const operator of plan.operators) {
      if (operator.kind !== 'sink.jsonl') continue;
      await continueSinkFile(plan.sinkDirs[operator.id]!, (operator.params as { path: string }).path);
    }
  }
  await mkdir(home, { recursive: true });
  return {
    plan,
    home,
    joinSinks: async () => {
      for (const operator of plan.operators) {
        if (operator.kind !== 'sink.jsonl') continue;
        await joinSinkParts(plan.sinkDirs[operator.id]!, (operator.params as { path: string }).path);
      }
    },
  };
}

/**
 * A savepoint on this machine (a path, or a `file:` URI as Flink names one) must be there; one
 * elsewhere (`s3://`, `hdfs://`) is the cluster's to find.
 */
async function checkSavepoint(savepoint: string): Promise<void> {
  let local: string | undefined;
  if (savepoint.startsWith('file:')) local = savepoint.replace(/^file:(\/\/)?/, '');
  else if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(savepoint)) local = savepoint;
  if (local === undefined) return;
  try {
    await stat(local);
  } catch {
    throw new JobError(`--from-savepoint: there is no savepoint at ${savepoint}`);
  }
}

/**
 * source.postgres's slot and publication as the local run names them when the job does not
 * (postgresSource.ts defaultName: the job's folder is part of the name, and the runner does not
 * know it), so a job reads through the same slot on either engine.
 */
function withDefaultNames(
  operator: Job['operators'][number],
  jobDir: string,
  jobName: string,
  params: Readonly<Record<string, unknown>>,
): Readonly<Record<string, unknown>> {
  if (operator.kind !== 'source.postgres') return params;
  const name = defaultName(jobDir, jobName, operator.id);
  return { ...params, slot: params.slot ?? name, publication: params.publication ?? name };
}

/** The jar's name on the cluster: a build's digest in it, so a new build is uploaded again. */
async function jarName(files: FlinkRunnerFiles): Promise<string> {
  const digest = createHash('sha256')
    .update(await readFile(files.jar))
    .digest('hex')
    .slice(0, 12);
  return `pipewright-flink-runner-${digest}.jar`;
}

/** A session cluster that answered, and its Flink version. */
export interface FlinkCluster {
  readonly address: string;
  readonly rest: FlinkRest;
  readonly version: string;
}

/** Asks the cluster at `address` what it runs (before anything is built); refuses one not on Flink 2. */
export async function reachCluster(address: string): Promise<FlinkCluster> {
  const rest = new FlinkRest(address);
  const version = await rest.version();
  if (!version.startsWith('2.')) {
    throw new JobError(`the Flink cluster at ${address} runs Flink ${version}; the runner needs Flink 2`);
  }
  return { address, rest, version };
}

/** Submits the plan's job to the cluster (the runner jar uploaded first if it lacks this build); its id. */
export async function submitToCluster(
  cluster: FlinkCluster,
  files: FlinkRunnerFiles,
  plan: FlinkPlan,
): Promise<string> {
  const jarId = await cluster.rest.jar(files.jar, await jarName(files));
  const planText = Buffer.from(JSON.stringify(plan)).toString('base64');
  return cluster.rest.run(jarId, RUNNER_CLASS, ['--plan-base64', planText]);
}
