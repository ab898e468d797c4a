// The designer's Run and Debug of a job the user has not trusted, through the host as a client
// calls it: confined to its folder and its own records, whatever the designer shows (the host
// decides by run.start's `trusted`, which a request must say to be trusted).
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { hostSessionPerTest } from '../../../test/hostSession.js';

const session = hostSessionPerTest('pipewright-confined-');
const { result, failure, ended } = session;
let jobs = '';
let outside = '';
beforeEach(async () => {
  jobs = join(session.dir, 'jobs');
  outside = join(session.dir, 'outside.jsonl');
  await mkdir(jobs);
  await writeFile(join(jobs, 'in.jsonl'), '{"n":1}\n');
});

function job(sinkPath: string, code = 'function map(r) { return r; }') {
  return JSON.stringify({
    format: 'pipewright.job/1',
    name: 'stranger',
    settings: { checkpointIntervalMs: 0 },
    operators: [
      { id: 'in', kind: 'source.jsonl', params: { path: 'in.jsonl' } },
      { id: 'm', kind: 'map', params: { code } },
      { id: 'out', kind: 'sink.jsonl', params: { path: sinkPath } },
    ],
    edges: [
      { id: 'e1', from: 'in', to: 'm', partition: 'forward' },
      { id: 'e2', from: 'm', to: 'out', partition: 'forward' },
    ],
  });
}

describe('a job the request does not say is trusted', () => {
  it.each(['run', 'debug'] as const)('is refused a sink outside its folder (%s)', async (mode) => {
    const message = await failure('run.start', {
      text: job('../outside.jsonl'),
      path: join(jobs, 'stranger.job.json'),
      mode,
      previewSinks: false,
    });
    expect(message).toBe(
      `operator "out": param "path" leads outside the job's folder (to ${outside}), and a job that is not trusted reads and writes only inside its folder`,
    );
    expect(existsSync(outside)).toBe(false);
  });

  it('is refused an environment variable, trusted: false as much as unsaid', async () => {
    process.env.PIPEWRIGHT_CONFINED_RUN_SECRET = 'secret';
    try {
      const message = await failure('run.start', {
        text: job('out.jsonl', "function map(r) { return { s: '${env:PIPEWRIGHT_CONFINED_RUN_SECRET}' }; }"),
        path: join(jobs, 'stranger.job.json'),
        mode: 'run',
        previewSinks: false,
        trusted: false,
      });
      expect(message).toMatch(
        /names the environment variable PIPEWRIGHT_CONFINED_RUN_SECRET, and a job that is not trusted may not read the environment$/,
      );
    } finally {
      delete process.env.PIPEWRIGHT_CONFINED_RUN_SECRET;
    }
  });

  it('runs when it stays in its folder', async () => {
    const info = await result('run.start', {
      text: job('out.jsonl'),
      path: join(jobs, 'stranger.job.json'),
      mode: 'run',
      previewSinks: false,
    });
    expect((await ended(info.runId)).status).toBe('finished');
    expect(await readFile(join(jobs, 'out.jsonl'), 'utf8')).toBe('{"n":1}\n');
  });
});

describe('a job the request says is trusted', () => {
  it('writes where it says', async () => {
    const info = await result('run.start', {
      text: job('../outside.jsonl'),
      path: join(jobs, 'stranger.job.json'),
      mode: 'run',
      previewSinks: false,
      trusted: true,
    });
    expect((await ended(info.runId)).status).toBe('finished');
    expect(await readFile(outside, 'utf8')).toBe('{"n":1}\n');
  });

  it('must say so with a boolean', async () => {
    expect(
      await failure('run.start', {
        text: job('out.jsonl'),
        path: join(jobs, 'stranger.job.json'),
        mode: 'run',
        previewSinks: false,
        trusted: 'yes',
      }),
    ).toBe('run.start: params.trusted must be true or false');
  });
});
