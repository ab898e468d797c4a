// A template's input files copied beside the job it is saved as (job.copyInputs), against real
// folders: the files under their relative names, the user's own files kept, names that would
// leave either folder refused, and nothing half-copied left behind.
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { answerMessage } from './hostConnection.js';
import { createHostService } from './hostService.js';
import { copyInputFiles } from './inputFileCopy.js';

let dir: string;
let template: string;
let saved: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pipewright-copy-'));
  await mkdir(join(dir, 'template', 'data'), { recursive: true });
  await mkdir(join(dir, 'mine'));
  template = join(dir, 'template', 't.job.json');
  saved = join(dir, 'mine', 'copy.job.json');
  await writeFile(join(dir, 'template', 'lines.jsonl'), '{"a":1}\n');
  await writeFile(join(dir, 'template', 'data', 'more.jsonl'), '{"b":2}\n');
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('copyInputFiles', () => {
  it('copies each file under its relative name, making folders, and keeps a file already there', async () => {
    await writeFile(join(dir, 'mine', 'lines.jsonl'), 'my own\n');
    const answer = await copyInputFiles(template, saved, ['lines.jsonl', 'data/more.jsonl', 'absent.jsonl']);
    expect(answer).toEqual({ copied: ['data/more.jsonl'], kept: ['lines.jsonl'] });
    expect(await readFile(join(dir, 'mine', 'lines.jsonl'), 'utf8')).toBe('my own\n');
    expect(await readFile(join(dir, 'mine', 'data', 'more.jsonl'), 'utf8')).toBe('{"b":2}\n');
    // No temporary copy left beside them.
    expect((await readdir(join(dir, 'mine'))).sort()).toEqual(['data', 'lines.jsonl']);
    expect(await readdir(join(dir, 'mine', 'data'))).toEqual(['more.jsonl']);
  });

  it('saved in the template’s own folder, the files are already there', async () => {
    expect(await copyInputFiles(template, join(dir, 'template', 'other.job.json'), ['lines.jsonl'])).toEqual({
      copied: [],
      kept: ['lines.jsonl'],
    });
  });

  it('refuses a name that leaves the folder, or an absolute one, copying nothing of it', async () => {
    for (const name of ['../t.job.json', '/etc/hostname', 'data/../../x']) {
      await expect(copyInputFiles(template, saved, [name])).rejects.toThrow(
        `Cannot copy ${name}: only files inside the job's folder are copied`,
      );
    }
    expect(await readdir(join(dir, 'mine'))).toEqual([]);
  });

  it('names both paths and the reason when the copy cannot be made', async () => {
    await writeFile(join(dir, 'mine', 'data'), 'a file where the folder would go');
    await expect(copyInputFiles(template, saved, ['data/more.jsonl'])).rejects.toThrow(
      `Cannot copy ${join(dir, 'template', 'data', 'more.jsonl')} to ${join(dir, 'mine', 'data', 'more.jsonl')}: `,
    );
  });
});

describe('job.copyInputs, as a client calls it', () => {
  it('answers what it copied and kept, and refuses params of another shape', async () => {
    const host = createHostService({
      transport: 'websocket',
      version: '0.0.0',
      dataDir: join(dir, 'data'),
      examplesDir: join(dir, 'template'),
    });
    try {
      const copied = await answerMessage(host, {
        type: 'request',
        id: 1,
        method: 'job.copyInputs',
        params: { from: template, to: saved, files: ['lines.jsonl'] },
      });
      expect(copied).toEqual({ type: 'response', id: 1, result: { copied: ['lines.jsonl'], kept: [] } });
      const refused = await answerMessage(host, {
        type: 'request',
        id: 2,
        method: 'job.copyInputs',
        params: { from: template, to: saved, files: [7] } as never,
      });
      expect(refused.error?.message).toBe(
        'job.copyInputs: params.files must be an array of at most 10000 strings',
      );
    } finally {
      await host.close();
    }
  });
});
