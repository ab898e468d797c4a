import { describe, expect, it } from 'vitest';
import { jobFolderPath } from './jobFolderPath.js';

describe('jobFolderPath', () => {
  const job = '/home/u/jobs/a/x.job.json';
  it.each([
    ['out.jsonl', '/home/u/jobs/a/out.jsonl', true],
    ['./data/../out.jsonl', '/home/u/jobs/a/out.jsonl', true],
    ['.', '/home/u/jobs/a', true],
    ['..foo', '/home/u/jobs/a/..foo', true],
    ['/home/u/jobs/a/in.jsonl', '/home/u/jobs/a/in.jsonl', true],
    ['../../../../home/u/.bashrc', '/home/u/.bashrc', false],
    ['data/../../b/out.jsonl', '/home/u/jobs/b/out.jsonl', false],
    ['/home/u/.bashrc', '/home/u/.bashrc', false],
    ['/home/u/jobs/ab/x', '/home/u/jobs/ab/x', false],
    ['../../../../../../../../etc/passwd', '/etc/passwd', false],
    ['~/.bashrc', '/home/u/jobs/a/~/.bashrc', true],
  ])('%s leads to %s (inside: %s)', (path, resolved, inside) => {
    expect(jobFolderPath(job, path)).toEqual({ resolved, inside });
  });

  it('reads Windows paths when the job file is on Windows', () => {
    const win = 'C:\\Users\\u\\jobs\\x.job.json';
    expect(jobFolderPath(win, 'out.jsonl')).toEqual({
      resolved: 'C:\\Users\\u\\jobs\\out.jsonl',
      inside: true,
    });
    expect(jobFolderPath(win, 'c:/users/U/JOBS/in.jsonl').inside).toBe(true);
    expect(jobFolderPath(win, '..\\secret.txt')).toEqual({
      resolved: 'C:\\Users\\u\\secret.txt',
      inside: false,
    });
    expect(jobFolderPath(win, 'D:\\x.jsonl').inside).toBe(false);
    expect(jobFolderPath(win, '\\Windows\\win.ini')).toEqual({
      resolved: 'C:\\Windows\\win.ini',
      inside: false,
    });
    expect(jobFolderPath(win, '\\\\server\\share\\x').inside).toBe(false);
  });
});
