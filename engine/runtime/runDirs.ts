// Where a run of a job keeps its state and checkpoints unless told otherwise: `.pipewright/NAME/`
// beside the job file. The CLI and the designer agree on it, so a run started in one can be
// restored in the other.
import { dirname, join, resolve } from 'node:path';

export interface RunDirs {
  /** The job file's folder: relative paths in params resolve against it. */
  readonly jobDir: string;
  readonly stateDir: string;
  readonly checkpointDir: string;
}

/** A job name as a folder name: anything but letters, digits, `_`, `.` and `-` becomes `_`. */
export function jobFolderName(jobName: string): string {
  return jobName.replace(/[^A-Za-z0-9_.-]/g, '_');
}

export function defaultRunDirs(jobFile: string, jobName: string): RunDirs {
  const jobDir = dirname(resolve(jobFile));
  const home = join(jobDir, '.pipewright', jobFolderName(jobName));
  return { jobDir, stateDir: join(home, 'state'), checkpointDir: join(home, 'checkpoints') };
}
