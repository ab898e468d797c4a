// Restores checked in this process, on the deterministic executor: a run fails at a chosen step,
// as a subtask failing there would make it (every operator aborted, nothing uncommitted
// published), and the next attempt resumes from the newest complete checkpoint, as
// `pipewright run --restore latest` does, until one runs to its end. A step is one slice of
// run()'s (a run that is not a debug run steps in run()'s own slices and order: records are in
// flight everywhere, round loops too). Checkpoints are taken every so many steps, never by the
// clock (as a debug run takes them), so a plan gives the same checkpoints and the same failure
// points on every run, on an idle machine or a loaded one: a failing plan is replayed exactly. Each process still gets one real `kill -9` per feature
// (checkpointHelpers' crashAndRestore): what a dying process leaves behind is only seen there.
import path from 'node:path';
import { expect } from 'vitest';
import type { CheckpointMetadata } from '../engine/checkpoint/checkpointMetadata.js';
import { findCheckpoint } from '../engine/checkpoint/findCheckpoint.js';
import { JobRun } from '../engine/deploy/jobRun.js';
import type { Job } from '../engine/graph/schema.js';
import { validateJob } from '../engine/graph/validation/validateJob.js';
import type { JobDocument } from './cliHarness.js';

export interface StepFailurePlan {
  /** The folder of the job file: relative paths in params resolve against it. */
  readonly jobDir: string;
  /** The job of each attempt (0 is the first run; a restore may change its parallelism). */
  readonly job: (attempt: number) => JobDocument;
  /** A checkpoint is asked for every this many steps. */
  readonly checkpointEverySteps: number;
  /**
   * One entry per failing attempt: the step (counted from that attempt's start) at which it
   * fails; the attempt after the last one runs to the end.
   */
  readonly failAtSteps: readonly number[];
}

export interface StepAttempt {
  readonly attempt: number;
  /** The checkpoint it resumed from, or 'fresh'. */
  readonly restoredFrom: number | 'fresh';
  readonly steps: number;
  /** Whether it failed at its planned step (false: the job ended before it got there, or it is the last). */
  readonly failed: boolean;
  /** Checkpoints completed before it ended. */
  readonly completed: readonly number[];
  /** The step (of this attempt) at which each of them completed. */
  readonly completedAt: readonly number[];
}

/** Where `pipewright run` keeps a job's state and checkpoints by default, so it can go on from these runs. */
export const stateDirOf = (jobDir: string, job: string) => path.join(jobDir, '.pipewright', job, 'state');
export const checkpointDirOf = (jobDir: string, job: string) =>
  path.join(jobDir, '.pipewright', job, 'checkpoints');

function validated(document: JobDocument): Job {
  const { job, problems } = validateJob(document);
  expect(problems, 'the job of a step-failure plan').toEqual([]);
  return job!;
}

/**
 * Steps a run, asking for a checkpoint every `every` steps, until `failAt` or its end. Not when
 * the steps since the last ask were all snapshots: once only checkpoints are left to do (sources
 * ended, loop heads waiting for quiet), a checkpoint of `every` snapshot steps or more would
 * start the next one, and the run would never end.
 */
async function stepRun(run: JobRun, every: number, failAt: number | undefined, counter: { steps: number }) {
  let workSinceAsked = true;
  for (;;) {
    const steps = counter.steps;
    if (failAt !== undefined && steps >= failAt) return { steps, ended: false };
    if (steps > 0 && steps % every === 0 && workSinceAsked) {
      await run.requestCheckpoint();
      workSinceAsked = false;
    }
    const unit = await run.step();
    if (unit === undefined) return { steps, ended: true };
    if (unit.kind !== 'snapshot') workSinceAsked = true;
    counter.steps++;
  }
}

/** Runs the plan: each attempt fails at its step and the next restores the latest checkpoint. */
export async function failAndRestore(plan: StepFailurePlan): Promise<StepAttempt[]> {
  const attempts: StepAttempt[] = [];
  for (let attempt = 0; ; attempt++) {
    const job = validated(plan.job(attempt));
    const stateDir = stateDirOf(plan.jobDir, job.name);
    const checkpointDir = checkpointDirOf(plan.jobDir, job.name);
    let restore: CheckpointMetadata | undefined;
    if (attempt > 0) ({ checkpoint: restore } = await findCheckpoint(checkpointDir, 'latest', () => {}));
    const completed: number[] = [];
    const completedAt: number[] = [];
    const counter = { steps: 0 };
    const run = await JobRun.open(job, {
      jobDir: plan.jobDir,
      stateDir,
      checkpointDir,
      ...(restore === undefined ? {} : { restore }),
      onCheckpoint: (event) => {
        if (event.status !== 'completed') return;
        completed.push(event.id);
        completedAt.push(counter.steps);
      },
    });
    const failAt = plan.failAtSteps[attempt];
    let outcome: { steps: number; ended: boolean };
    try {
      outcome = await stepRun(run, plan.checkpointEverySteps, failAt, counter);
      if (outcome.ended) await run.completeSteps();
    } finally {
      // A failure's clean-up: operators aborted, snapshots in flight discarded, stores closed.
      await run.close();
    }
    attempts.push({
      attempt,
      restoredFrom: restore?.id ?? 'fresh',
      steps: outcome.steps,
      failed: !outcome.ended,
      completed,
      completedAt,
    });
    if (outcome.ended) return attempts;
  }
}

/** The attempts, one line each, for assertion messages. */
export function describeStepAttempts(attempts: readonly StepAttempt[]): string {
  return attempts
    .map(
      (a) =>
        `  #${a.attempt}: from ${a.restoredFrom}, ${a.steps} steps, checkpoints [${a.completed.map((id, i) => `${id} at ${a.completedAt[i]}`).join(', ')}], ${a.failed ? 'failed' : 'ended'}`,
    )
    .join('\n');
}

/**
 * Every attempt but the last failed where planned, the last ran to its end, and every restore
 * resumed from a checkpoint (none started afresh).
 */
export function expectFailedAndRestored(attempts: readonly StepAttempt[], failures: number): void {
  const context = describeStepAttempts(attempts);
  expect(
    attempts.map((a) => a.failed),
    context,
  ).toEqual([...Array.from({ length: failures }, () => true), false]);
  for (const a of attempts.slice(1)) expect(a.restoredFrom, context).toEqual(expect.any(Number));
}

/**
 * Steps at which `count` attempts fail: each after at least two checkpoints of its own and within
 * a fifth of a whole run (`wholeSteps`), so that every attempt fails, and every restore resumes
 * from a checkpoint. A job whose first checkpoint takes long to complete (a barrier waiting for
 * an input that is not read yet) says when a whole run completed it, `firstCompletedAt`: the
 * first attempt fails after it, within a fifth of what a whole run has left after it; the others
 * (which resume past it) within a fifth of that too.
 */
export function failurePoints(
  random: () => number,
  count: number,
  wholeSteps: number,
  checkpointEverySteps: number,
  firstCompletedAt = 0,
): number[] {
  const low = Math.max(Math.floor(0.05 * wholeSteps), 2 * checkpointEverySteps + 1);
  const left = wholeSteps - firstCompletedAt;
  const high = firstCompletedAt === 0 ? Math.floor(0.2 * wholeSteps) : Math.floor(0.2 * left);
  expect(
    high,
    `a whole run of ${wholeSteps} steps (${left} after its first checkpoint) is too short for failures past two checkpoints`,
  ).toBeGreaterThan(low);
  const firstLow = Math.max(low, firstCompletedAt + 1);
  const firstHigh = Math.max(high, firstCompletedAt + high);
  return Array.from({ length: count }, (_, i) =>
    i === 0
      ? firstLow + Math.floor(random() * (firstHigh - firstLow))
      : low + Math.floor(random() * (high - low)),
  );
}

/** The steps of a whole run of `job` without failures (in a scratch folder). */
export async function wholeRunSteps(
  jobDir: string,
  job: JobDocument,
  checkpointEverySteps: number,
): Promise<number> {
  return (await wholeRun(jobDir, job, checkpointEverySteps)).steps;
}

/** A whole run of `job` without failures (in `jobDir`): its steps and when its checkpoints completed. */
export async function wholeRun(
  jobDir: string,
  job: JobDocument,
  checkpointEverySteps: number,
): Promise<StepAttempt> {
  const [run] = await failAndRestore({ jobDir, job: () => job, checkpointEverySteps, failAtSteps: [] });
  return run!;
}
