// What a run writes, and so must have to itself (see runLock.ts): its state folder, its checkpoint
// folder, and the output file of each JSONL sink (whose parts are hidden beside it when there are
// no checkpoints). A run with preview sinks writes no output.
import { resolve } from 'node:path';
import type { Job } from '../graph/schema.js';
import type { LockTarget } from './lockFile.js';

export interface RunPlaces {
  /** Relative output paths resolve against it, as the sinks resolve them. */
  readonly jobDir: string;
  readonly stateDir: string;
  readonly checkpointDir?: string;
  /** Sinks write nothing (the designer's preview). */
  readonly previewSinks?: boolean;
}

export function runLockTargets(job: Job, places: RunPlaces): LockTarget[] {
  const folder = (label: string, path: string): LockTarget => ({
    path: resolve(path),
    kind: 'folder',
    what: `the ${label} folder ${resolve(path)}`,
  });
  const targets = [folder('state', places.stateDir)];
  if (places.checkpointDir !== undefined) targets.push(folder('checkpoint', places.checkpointDir));
  if (places.previewSinks === true) return targets;
  for (const op of job.operators) {
    if (op.kind !== 'sink.jsonl') continue;
    const path = resolve(places.jobDir, op.params.path);
    targets.push({ path, kind: 'file', what: `the output file ${path} of operator "${op.id}"` });
  }
  return targets;
}
