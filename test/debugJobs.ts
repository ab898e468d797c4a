// Helpers for the debugger's tests (engine/debug/*.test.ts): the job builders of jobBuilders.ts,
// temporary job folders, debug sessions over them, and a plain run of the same job
// (what `pipewright run` does) to compare with.
import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DebugSession, type DebugSessionOptions } from '../engine/debug/debugSession.js';
import { JobRun } from '../engine/deploy/jobRun.js';
import type { Job } from '../engine/graph/schema.js';
import { validateJob } from '../engine/graph/validation/validateJob.js';
import type { JobMetrics } from '../engine/metrics/jobMetrics.js';
import type { StepView } from '../engine/protocol/runProtocol.js';

export { type EdgeInput, fn, generator, makeJob, type OperatorInput, sink } from './jobBuilders.js';

/** A fresh folder (under the OS's temp folder) holding `files`. */
export async function jobFolder(files: Record<string, string> = {}): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'pipewright-debug-'));
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
  return dir;
}

const EXAMPLES = join(import.meta.dirname, '..', 'assets', 'examples');

/** The input files of an example of assets/examples (its .jsonl files beside the job), by name. */
export async function exampleInputs(name: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const entry of await readdir(join(EXAMPLES, name), { withFileTypes: true })) {
    if (entry.isFile() && entry.name.endsWith('.jsonl')) {
      files[entry.name] = await readFile(join(EXAMPLES, name, entry.name), 'utf8');
    }
  }
  return files;
}

/**
 * An example's job with `settings` laid over its own (checked valid), in a fresh folder holding
 * copies of its inputs, so that what it writes stays out of assets/.
 */
export async function exampleJob(
  name: string,
  settings: Record<string, unknown> = {},
): Promise<{ job: Job; dir: string }> {
  const text = await readFile(join(EXAMPLES, name, `${name}.job.json`), 'utf8');
  const parsed = JSON.parse(text) as { settings?: Record<string, unknown> };
  const { job, problems } = validateJob({ ...parsed, settings: { ...parsed.settings, ...settings } });
  if (job === undefined) throw new Error(`example ${name}: ${problems.map((p) => p.message).join('; ')}`);
  return { job, dir: await jobFolder(await exampleInputs(name)) };
}

export function debugSession(
  job: Job,
  dir: string,
  options: Partial<Omit<DebugSessionOptions, 'job' | 'jobDir' | 'stateDir'>> = {},
): Promise<DebugSession> {
  return DebugSession.open({
    job,
    jobDir: dir,
    stateDir: join(dir, 'debug-state'),
    checkpointDir: join(dir, 'debug-checkpoints'),
    previewSinks: true,
    ...options,
  });
}

/** Steps until the job ends; every view, in order. */
export async function stepToEnd(session: DebugSession, limit = 1_000_000): Promise<StepView[]> {
  const views: StepView[] = [];
  for (let view = await session.step(); view !== undefined; view = await session.step()) {
    views.push(view);
    if (views.length > limit) throw new Error(`more than ${limit} steps`);
  }
  return views;
}

/** The counters a step leaves behind: records in and out, queues, state sizes, timers, watermarks. */
export function counters(metrics: JobMetrics): unknown {
  return metrics.operators.map((o) => o.subtasks);
}

/** Steps forward `count` times; each view and the counters after it. */
export async function forward(
  session: DebugSession,
  count: number,
): Promise<{ views: StepView[]; after: unknown[] }> {
  const views: StepView[] = [];
  const after: unknown[] = [];
  for (let i = 0; i < count; i++) {
    const view = await session.step();
    if (view === undefined) break;
    views.push(view);
    after.push(counters(session.metrics()));
  }
  return { views, after };
}

/** The job as `pipewright run` runs it (JobRun.open + run, state and checkpoints in their own folders). */
export async function plainRun(job: Job, dir: string): Promise<void> {
  const run = await JobRun.open(job, {
    jobDir: dir,
    stateDir: join(dir, 'run-state'),
    checkpointDir: join(dir, 'run-checkpoints'),
  });
  await run.run();
}

export async function readLines(path: string): Promise<string[]> {
  return (await readFile(path, 'utf8')).split('\n').filter((line) => line.length > 0);
}
