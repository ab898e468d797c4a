// The wording of a folder that could not be written: the folder, where in it, and why in words,
// whether the error came from Node (an errno code) or from LevelDB (the C library's text).
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { JobError } from '../graph/jobError.js';
import { cannotWrite, checkWritable, isFileFault } from './fileFault.js';
import { LevelKvStore } from './levelKvStore.js';

const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

async function freshDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'pipewright-fault-'));
  dirs.push(dir);
  return dir;
}

function errno(code: string, path?: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: something, open '${path}'`), { code, path });
}

describe('cannotWrite', () => {
  it('says why in words, and where inside the folder', () => {
    const cases: [string, string][] = [
      ['EACCES', 'permission denied'],
      ['EPERM', 'permission denied'],
      ['EROFS', 'read-only file system'],
      ['ENOSPC', 'no space left on device'],
      ['EISDIR', 'a folder is in the way'],
    ];
    for (const [code, words] of cases) {
      const error = cannotWrite('checkpoint', '/x/chk', errno(code, '/x/chk/data/a-0/changes-3.kv'));
      expect(error).toBeInstanceOf(JobError);
      expect(error.message).toBe(
        `cannot write the checkpoint folder /x/chk (${words}: data/a-0/changes-3.kv)`,
      );
    }
  });

  it('names the file a write on an open handle was writing, and the operator whose output it is', () => {
    const error = cannotWrite('output', '/x/out', errno('ENOSPC'), {
      operator: 'out',
      file: '/x/out/.o.part',
    });
    expect(error.message).toBe(
      'operator "out": cannot write the output folder /x/out (no space left on device: .o.part)',
    );
    expect((error as JobError).operatorId).toBe('out');
  });

  it('finds the file in the way of a folder', async () => {
    const dir = await freshDir();
    await writeFile(join(dir, 'state'), 'not a folder');
    const error = cannotWrite('state', join(dir, 'state'), errno('ENOTDIR', join(dir, 'state', 'subtasks')));
    expect(error.message).toBe(
      `cannot write the state folder ${join(dir, 'state')} (${join(dir, 'state')} is a file, not a folder)`,
    );
  });

  it("reads LevelDB's words", () => {
    const level = Object.assign(new Error('Database failed to open'), {
      code: 'LEVEL_DATABASE_NOT_OPEN',
      cause: Object.assign(new Error('IO error: /x/state/subtasks/a-0/LOCK: Read-only file system'), {
        code: 'LEVEL_IO_ERROR',
      }),
    });
    expect(isFileFault(level)).toBe(true);
    expect(cannotWrite('state', '/x/state', level).message).toBe(
      'cannot write the state folder /x/state (read-only file system: subtasks/a-0/LOCK)',
    );
  });

  it('says a folder another store holds open is in use, where the engine once called it a bug', async () => {
    const folder = join(await freshDir(), 'a-0');
    const holder = await LevelKvStore.open(folder, 1 << 20);
    try {
      const refused = await LevelKvStore.open(folder, 1 << 20).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(JobError);
      expect((refused as Error).message).toBe(
        `cannot write the state folder ${folder} (in use by another run or a reader of its state: LOCK)`,
      );
    } finally {
      await holder.close();
    }
  });

  it('hands back an error that is not the file system refusing, and a JobError as it is', () => {
    const bug = new TypeError('x is undefined');
    expect(cannotWrite('state', '/x', bug)).toBe(bug);
    expect(isFileFault(bug)).toBe(false);
    const said = new JobError('already said');
    expect(cannotWrite('state', '/x', said)).toBe(said);
  });
});

describe('checkWritable', () => {
  it('passes a folder that does not exist yet under one that is writable, and creates nothing', async () => {
    const dir = await freshDir();
    await expect(checkWritable('output', join(dir, 'a', 'b'))).resolves.toBeUndefined();
    expect(existsSync(join(dir, 'a'))).toBe(false);
  });

  it('refuses a folder under a file, naming the file', async () => {
    const dir = await freshDir();
    await writeFile(join(dir, 'out'), 'not a folder');
    await expect(checkWritable('output', join(dir, 'out', 'deeper'), { operator: 'sink' })).rejects.toThrow(
      `operator "sink": cannot write the output folder ${join(dir, 'out', 'deeper')} (${join(dir, 'out')} is a file, not a folder)`,
    );
  });
});

describe('LevelKvStore.open', () => {
  it('says which state folder it could not write', async () => {
    const dir = await freshDir();
    await writeFile(join(dir, 'subtasks'), 'not a folder');
    const location = join(dir, 'subtasks', 'count-0');
    await expect(LevelKvStore.open(location, 1 << 20)).rejects.toThrow(
      `cannot write the state folder ${location} (${join(dir, 'subtasks')} is a file, not a folder)`,
    );
  });
});
