// Where a run of a job keeps its state and checkpoints unless told otherwise: `.pipewright/NAME/`
// beside the job file. The CLI and the browser form agree on it, so a run started in one can be
// restored in the other. The desktop app keeps runs in its own data folder instead, one folder
// per job file, so opening a job from a read-only or shared folder leaves nothing beside it.
import { createHash } from 'node:crypto';
import { dirname, join, resolve } from 'node:path';

export interface RunDirs {
  /** The job file's folder: relative paths in params resolve against it. */
  readonly jobDir: string;
  readonly stateDir: string;
  readonly checkpointDir: string;
}

/**
 * A job name as a folder name: anything but letters, digits, `_`, `.` and `-` becomes `_`; and a
 * name of dots only too, since `.` and `..` are the folder itself and its parent (a job named
 * `..` would otherwise keep, and empty, its state beside the job file).
 */
export function jobFolderName(jobName: string): string {
  const name = jobName.replace(/[^A-Za-z0-9_.-]/g, '_');
  return /^\.*$/.test(name) ? name.replace(/\./g, '_') : name;
}

export function defaultRunDirs(jobFile: string, jobName: string): RunDirs {
  const jobDir = dirname(resolve(jobFile));
  const home = join(jobDir, '.pipewright', jobFolderName(jobName));
  return { jobDir, stateDir: join(home, 'state'), checkpointDir: join(home, 'checkpoints') };
}

/** Where a job's runs go, given the job file and the job's name. */
export type RunDirsOf = (jobFile: string, jobName: string) => RunDirs;

/**
 * `RUNS/NAME-HASH/` for the desktop app: HASH (the first 12 hex digits of the SHA-256 of the job
 * file's absolute path) keeps two job files of one name apart, and finds a job's runs again
 * as long as the file stays where it is.
 */
export function appDataRunDirs(runsDir: string): RunDirsOf {
  return (jobFile, jobName) => {
    const path = resolve(jobFile);
    const hash = createHash('sha256').update(path).digest('hex').slice(0, 12);
    const home = join(resolve(runsDir), `${jobFolderName(jobName)}-${hash}`);
    return { jobDir: dirname(path), stateDir: join(home, 'state'), checkpointDir: join(home, 'checkpoints') };
  };
}
