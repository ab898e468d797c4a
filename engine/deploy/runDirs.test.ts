import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { appDataRunDirs, defaultRunDirs, jobFolderName } from './runDirs.js';

describe('jobFolderName', () => {
  it('keeps letters, digits, _, . and - and turns the rest into _', () => {
    expect(jobFolderName('owner-has-items_v1.2')).toBe('owner-has-items_v1.2');
    expect(jobFolderName('a b/c\\d:é')).toBe('a_b_c_d__');
  });

  it('never names the folder itself or its parent', () => {
    expect(jobFolderName('.')).toBe('_');
    expect(jobFolderName('..')).toBe('__');
    expect(jobFolderName('...')).toBe('___');
    expect(jobFolderName('..a')).toBe('..a');
  });
});

describe('run folders', () => {
  it('of a job named ".." stay under .pipewright beside the job file', () => {
    const dirs = defaultRunDirs('/jobs/x.job.json', '..');
    expect(dirs.stateDir).toBe(join('/jobs', '.pipewright', '__', 'state'));
    expect(dirs.checkpointDir).toBe(join('/jobs', '.pipewright', '__', 'checkpoints'));
  });

  it('of a job named ".." in the app data folder stay inside it', () => {
    const dirs = appDataRunDirs('/data/runs')('/jobs/x.job.json', '..');
    expect(dirs.stateDir.startsWith('/data/runs/__-')).toBe(true);
  });
});
