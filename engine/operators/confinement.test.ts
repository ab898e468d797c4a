// An untrusted job's confinement on a real file system: paths judged by where they really lead
// (links followed, dangling ones too), and a confined run refusing as it opens, on every thread,
// before a file is opened or a variable read.
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXECUTORS, runJob } from '../../test/executors.js';
import { fn, makeJob, sink, generator as source } from '../../test/jobBuilders.js';
import { JobError } from '../graph/jobError.js';
import { confinementBreaches, describeBreach } from './confinement.js';

let root: string;
let jobDir: string;
let outside: string;

beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'pipewright-confine-')));
  jobDir = join(root, 'job');
  outside = join(root, 'home');
  await mkdir(join(jobDir, 'data'), { recursive: true });
  await mkdir(outside);
  await writeFile(join(outside, '.bashrc'), 'echo hello\n');
  await writeFile(join(jobDir, 'in.jsonl'), '{"a":1}\n');
  await symlink(join(outside, '.bashrc'), join(jobDir, 'out.jsonl'));
  await symlink(outside, join(jobDir, 'home'));
  await symlink(join(outside, 'not-yet'), join(jobDir, 'dangling.jsonl'));
  await symlink(join(jobDir, 'loop-b'), join(jobDir, 'loop-a'));
  await symlink(join(jobDir, 'loop-a'), join(jobDir, 'loop-b'));
  await symlink(join(jobDir, 'in.jsonl'), join(jobDir, 'data', 'also-in.jsonl'));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const writes = (path: string) => ({ id: 'out', kind: 'sink.jsonl', params: { path } });
const reads = (path: string) => ({ id: 'in', kind: 'source.jsonl', params: { path } });

describe('confinementBreaches', () => {
  it.each([['in.jsonl'], ['data/new/out.jsonl'], ['./data/../in.jsonl'], ['data/also-in.jsonl']])(
    '%s stays inside the folder',
    (path) => {
      expect(confinementBreaches([reads(path), writes(path)], jobDir)).toEqual([]);
    },
  );

  it.each([
    ['../home/.bashrc', '.bashrc'],
    ['out.jsonl', '.bashrc'],
    ['home/.bashrc', '.bashrc'],
    ['home/new.jsonl', 'new.jsonl'],
    ['dangling.jsonl', 'not-yet'],
  ])('%s leads outside, to home/%s', (path, name) => {
    expect(confinementBreaches([writes(path)], jobDir)).toEqual([
      { type: 'file', operator: 'out', param: 'path', path, access: 'write', leadsTo: join(outside, name) },
    ]);
  });

  it('an absolute path, a loop of links, and environment variables', () => {
    const breaches = confinementBreaches(
      [
        reads(join(outside, '.bashrc')),
        writes('loop-a'),
        { id: 'm', kind: 'map', params: { code: "function map(r) { return '${env:HOME}'; }" } },
      ],
      jobDir,
    );
    expect(breaches.map(describeBreach)).toEqual([
      `read ${join(outside, '.bashrc')} outside its folder (operator "in")`,
      'write loop-a (a loop of links) outside its folder (operator "out")',
      'read the environment variable HOME (operator "m")',
    ]);
  });
});

describe.each(EXECUTORS)('a confined run (%s)', (executor) => {
  const gen = source('gen', 'function generate(i) { return { i }; }', 3);
  const edges = [{ id: 'e', from: 'gen', to: 'out', partition: 'rebalance' }];

  it('refuses a sink through a link that leads out, and writes nothing', async () => {
    const job = makeJob('confined', [gen, sink('out', 'out.jsonl')], edges);
    const error = await runJob(executor, job, {
      jobDir,
      stateDir: join(root, `state-${executor}`),
      confined: true,
    }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(JobError);
    expect((error as Error).message).toBe(
      `operator "out": param "path" leads outside the job's folder (to ${join(outside, '.bashrc')}), and a job that is not trusted reads and writes only inside its folder`,
    );
    expect(readFileSync(join(outside, '.bashrc'), 'utf8')).toBe('echo hello\n');
  });

  it('refuses an environment variable before it is read', async () => {
    process.env.PIPEWRIGHT_CONFINE_SECRET = 's3cret';
    try {
      const job = makeJob(
        'confined-env',
        [
          gen,
          fn('m', 'map', "function map(r) { return { s: '${env:PIPEWRIGHT_CONFINE_SECRET}' }; }"),
          sink('out', `env-${executor}.jsonl`),
        ],
        [
          { id: 'a', from: 'gen', to: 'm', partition: 'rebalance' },
          { id: 'b', from: 'm', to: 'out', partition: 'rebalance' },
        ],
      );
      const options = { jobDir, stateDir: join(root, `state-env-${executor}`) };
      await expect(runJob(executor, job, { ...options, confined: true })).rejects.toThrow(
        'operator "m": param "code" names the environment variable PIPEWRIGHT_CONFINE_SECRET, and a job that is not trusted may not read the environment',
      );
      expect(existsSync(join(jobDir, `env-${executor}.jsonl`))).toBe(false);
      // Trusted, the same job reads it.
      await runJob(executor, job, { ...options, confined: false });
      expect(readFileSync(join(jobDir, `env-${executor}.jsonl`), 'utf8')).toContain('s3cret');
    } finally {
      delete process.env.PIPEWRIGHT_CONFINE_SECRET;
    }
  });
});
