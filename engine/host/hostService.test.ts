// The host's methods against a real temporary folder, called the way a client calls them: as
// protocol messages through answerMessage and serveConnection.
import {
  chmod,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rm,
  stat,
  symlink,
  truncate,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type {
  HostMessage,
  HostMethod,
  MessageChannelLike,
  ParamsOf,
  ResponseMessage,
} from '../protocol/protocol.js';
import { answerMessage, NO_REQUEST_ID, serveConnection } from './hostConnection.js';
import { createHostService, type HostService } from './hostService.js';
import { RECENT_LIMIT, recentListFile } from './recentFiles.js';

const repoExamples = fileURLToPath(new URL('../../assets/examples', import.meta.url));

let dir: string;
let dataDir: string;
let recentChanges: (readonly string[])[];
let host: HostService;
let nextId = 1;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pipewright-host-'));
  dataDir = join(dir, 'data');
  recentChanges = [];
  host = createHostService({
    transport: 'websocket',
    version: '9.8.7',
    dataDir,
    examplesDir: repoExamples,
    initialFile: join(dir, 'start.job.json'),
    startDir: join(dir, 'started-here'),
    onRecentChanged: (list) => recentChanges.push(list),
  });
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function call<M extends HostMethod>(method: M, params: ParamsOf<M>): Promise<ResponseMessage> {
  const id = nextId++;
  const response = await answerMessage(host, { type: 'request', id, method, params });
  expect(response.id).toBe(id);
  return response;
}

async function result<M extends HostMethod>(method: M, params: ParamsOf<M>): Promise<unknown> {
  const response = await call(method, params);
  expect(response.error).toBeUndefined();
  return response.result;
}

async function failure<M extends HostMethod>(method: M, params: ParamsOf<M>): Promise<string> {
  const response = await call(method, params);
  expect(response.result).toBeUndefined();
  return response.error?.message ?? '';
}

describe('host.info', () => {
  it('says which transport, version and file system it serves, and where it was started', async () => {
    expect(await result('host.info', {})).toEqual({
      version: '9.8.7',
      transport: 'websocket',
      homeDir: expect.any(String),
      startDir: join(dir, 'started-here'),
      sep,
      initialFile: join(dir, 'start.job.json'),
    });
  });
});

describe('file.read and file.write', () => {
  it('saves a file and reads it back', async () => {
    const path = join(dir, 'a.job.json');
    expect(await result('file.write', { path, text: '{"name":"é"}\n' })).toEqual({ path });
    expect(await result('file.read', { path })).toEqual({ path, text: '{"name":"é"}\n' });
  });

  it('replaces a file whole and leaves no temporary file beside it', async () => {
    const path = join(dir, 'b.job.json');
    await writeFile(path, 'old contents that are longer than the new ones');
    await chmod(path, 0o640);
    await result('file.write', { path, text: 'new' });
    expect(await readFile(path, 'utf8')).toBe('new');
    expect((await stat(path)).mode & 0o777).toBe(0o640);
    expect(await readdir(dir)).toEqual(['b.job.json']);
  });

  it('saves through a symbolic link to the file it points at', async () => {
    const target = join(dir, 'target.json');
    const link = join(dir, 'link.json');
    await writeFile(target, 'old');
    await symlink(target, link);
    await result('file.write', { path: link, text: 'new' });
    expect(await readFile(target, 'utf8')).toBe('new');
    expect((await readdir(dir)).sort()).toEqual(['link.json', 'target.json']);
  });

  it('names the path and the reason when it cannot read', async () => {
    const missing = join(dir, 'missing.job.json');
    expect(await failure('file.read', { path: missing })).toBe(
      `Cannot open ${missing}: no such file or folder`,
    );
    expect(await failure('file.read', { path: dir })).toBe(`Cannot open ${dir}: it is a folder`);
  });

  it('refuses a file too large to go back over the protocol before reading it, in one line', async () => {
    const path = join(dir, 'huge.job.json');
    await writeFile(path, '');
    // Sparse: the size is all that is looked at.
    await truncate(path, 200 * 1024 * 1024);
    expect(await failure('file.read', { path })).toBe(
      `Cannot open ${path}: it is 200 MiB, and the designer opens job files of up to 32 MiB`,
    );
    await truncate(path, 32 * 1024 * 1024);
    expect(((await result('file.read', { path })) as { text: string }).text).toHaveLength(32 * 1024 * 1024);
  });

  it('names the path and the reason when it cannot save, and leaves nothing behind', async () => {
    const inMissingFolder = join(dir, 'nowhere', 'x.json');
    expect(await failure('file.write', { path: inMissingFolder, text: 'x' })).toBe(
      `Cannot save ${inMissingFolder}: the folder ${join(dir, 'nowhere')} does not exist`,
    );
    await mkdir(join(dir, 'folder'));
    expect(await failure('file.write', { path: join(dir, 'folder'), text: 'x' })).toBe(
      `Cannot save ${join(dir, 'folder')}: it is a folder`,
    );
    expect(await readdir(dir)).toEqual(['folder']);
  });

  it('refuses relative paths, which would depend on where the host started', async () => {
    expect(await failure('file.read', { path: 'a.job.json' })).toBe(
      'Cannot open a.job.json: the path must be absolute',
    );
    expect(await failure('file.write', { path: 'a.job.json', text: '' })).toBe(
      'Cannot save a.job.json: the path must be absolute',
    );
  });
});

describe('file.list', () => {
  it('lists folders first, then files, by name as people sort them, without hidden entries', async () => {
    for (const folder of ['b', 'a10', 'a2', '.git']) await mkdir(join(dir, folder));
    for (const file of ['z.json', 'c10.txt', 'c9.txt', '.hidden']) await writeFile(join(dir, file), '');
    await symlink(join(dir, 'b'), join(dir, 'linked'));
    await symlink(join(dir, 'gone'), join(dir, 'dangling'));
    const listing = (await result('file.list', { dir })) as {
      dir: string;
      parent?: string;
      entries: { name: string; path: string; kind: string }[];
    };
    expect(listing.dir).toBe(dir);
    expect(listing.parent).toBe(tmpdir());
    expect(listing.entries.map((entry) => `${entry.kind}:${entry.name}`)).toEqual([
      'dir:a2',
      'dir:a10',
      'dir:b',
      'dir:linked',
      'file:c9.txt',
      'file:c10.txt',
      'file:z.json',
    ]);
    expect(listing.entries[0]?.path).toBe(join(dir, 'a2'));
  });

  it('has no parent at the root of the file system', async () => {
    const root = (await result('file.list', { dir: sep })) as { parent?: string };
    expect(root.parent).toBeUndefined();
  });

  it('names the folder it cannot list', async () => {
    const missing = join(dir, 'missing');
    expect(await failure('file.list', { dir: missing })).toBe(
      `Cannot list ${missing}: no such file or folder`,
    );
    const file = join(dir, 'file.txt');
    await writeFile(file, '');
    expect(await failure('file.list', { dir: file })).toBe(`Cannot list ${file}: it is not a folder`);
  });
});

describe('recent files', () => {
  beforeEach(async () => {
    await mkdir(dataDir, { recursive: true });
  });

  it('starts empty, moves a reopened file to the front and keeps the list in the data folder', async () => {
    expect(await result('recent.list', {})).toEqual([]);
    const [a, b] = [join(dir, 'a.job.json'), join(dir, 'b.job.json')];
    expect(await result('recent.add', { path: a })).toEqual([a]);
    expect(await result('recent.add', { path: b })).toEqual([b, a]);
    expect(await result('recent.add', { path: a })).toEqual([a, b]);
    expect(JSON.parse(await readFile(recentListFile(dataDir), 'utf8'))).toEqual([a, b]);
    expect(recentChanges).toEqual([[a], [b, a], [a, b]]);
  });

  it(`keeps the ${RECENT_LIMIT} newest`, async () => {
    const paths = Array.from({ length: RECENT_LIMIT + 3 }, (_, i) => join(dir, `f${i}.job.json`));
    for (const path of paths) await result('recent.add', { path });
    expect(await result('recent.list', {})).toEqual(paths.slice(3).reverse());
  });

  it('loses no addition when several arrive at once', async () => {
    const paths = ['x', 'y', 'z'].map((name) => join(dir, `${name}.job.json`));
    await Promise.all(paths.map((path) => result('recent.add', { path })));
    expect(((await result('recent.list', {})) as string[]).sort()).toEqual([...paths].sort());
  });

  it('treats a damaged list as empty and rewrites it', async () => {
    await writeFile(recentListFile(dataDir), '{not json');
    expect(await result('recent.list', {})).toEqual([]);
    const path = join(dir, 'a.job.json');
    expect(await result('recent.add', { path })).toEqual([path]);
  });

  it('creates the data folder when it does not exist yet', async () => {
    await rm(dataDir, { recursive: true });
    const path = join(dir, 'a.job.json');
    expect(await result('recent.add', { path })).toEqual([path]);
    expect(JSON.parse(await readFile(recentListFile(dataDir), 'utf8'))).toEqual([path]);
  });

  it('refuses a relative path', async () => {
    expect(await failure('recent.add', { path: 'a.job.json' })).toBe(
      'Cannot add a.job.json to the recent files: the path must be absolute',
    );
  });
});

describe('templates.list', () => {
  it('offers each example folder with its job name and description', async () => {
    const templates = (await result('templates.list', {})) as {
      name: string;
      title: string;
      description: string;
      path: string;
    }[];
    expect(templates.map((template) => template.name)).toEqual([
      'bar-state',
      'ledger',
      'owner-has-items',
      'owner-has-items-tx',
      'word-count',
    ]);
    const wordCount = templates.find((template) => template.name === 'word-count');
    const job = JSON.parse(await readFile(join(repoExamples, 'word-count', 'word-count.job.json'), 'utf8'));
    expect(wordCount).toEqual({
      name: 'word-count',
      title: job.name,
      description: job.description,
      path: join(repoExamples, 'word-count', 'word-count.job.json'),
    });
    expect(wordCount?.description.length).toBeGreaterThan(0);
  });

  it('skips folders without a job file and names a template it cannot read', async () => {
    const examples = join(dir, 'examples');
    await mkdir(join(examples, 'empty'), { recursive: true });
    await mkdir(join(examples, 'broken'));
    await writeFile(join(examples, 'broken', 'broken.job.json'), '{');
    const local = createHostService({
      transport: 'messageport',
      version: '1',
      dataDir,
      examplesDir: examples,
    });
    const response = await answerMessage(local, {
      type: 'request',
      id: 1,
      method: 'templates.list',
      params: {},
    });
    expect(response.error?.message).toMatch(
      new RegExp(
        `^Cannot read the template ${join(examples, 'broken', 'broken.job.json').replace(/[\\.]/g, '\\$&')}: `,
      ),
    );
    await rm(join(examples, 'broken'), { recursive: true });
    expect(
      (await answerMessage(local, { type: 'request', id: 2, method: 'templates.list', params: {} })).result,
    ).toEqual([]);
  });
});

describe('messages that are not valid requests', () => {
  it('answers each with an error, echoing the id when there is one', async () => {
    expect(await answerMessage(host, 'hello')).toEqual({
      type: 'response',
      id: NO_REQUEST_ID,
      error: { message: 'Invalid message: not a JSON object' },
    });
    expect(await answerMessage(host, { type: 'request', id: 7, method: 'file.delete', params: {} })).toEqual({
      type: 'response',
      id: 7,
      error: { message: 'Unknown method: file.delete' },
    });
    expect(await answerMessage(host, { type: 'request', id: 8, method: 'file.read', params: null })).toEqual({
      type: 'response',
      id: 8,
      error: { message: 'Invalid request to file.read: params must be an object' },
    });
    expect(
      await answerMessage(host, { type: 'request', id: 9, method: 'file.read', params: { path: 42 } }),
    ).toEqual({
      type: 'response',
      id: 9,
      error: { message: 'file.read: params.path must be a string' },
    });
    expect(
      await answerMessage(host, { type: 'request', id: 1.5, method: 'host.info', params: {} }),
    ).toMatchObject({
      id: NO_REQUEST_ID,
      error: { message: 'Invalid request: id must be an integer' },
    });
  });
});

describe('serveConnection', () => {
  function fakeChannel() {
    const sent: HostMessage[] = [];
    let deliver: (message: unknown) => void = () => undefined;
    let close: (reason: string) => void = () => undefined;
    const channel: MessageChannelLike<unknown, HostMessage> = {
      send: (message) => sent.push(message),
      onMessage(listener) {
        deliver = listener;
        return () => {
          deliver = () => undefined;
        };
      },
      onClose(listener) {
        close = listener;
        return () => undefined;
      },
    };
    return {
      channel,
      sent,
      deliver: (message: unknown) => deliver(message),
      close: (why: string) => close(why),
    };
  }

  it('answers every message, forwards events, and stops at close', async () => {
    const client = fakeChannel();
    serveConnection(client.channel, host);
    client.deliver({ type: 'request', id: 1, method: 'recent.list', params: {} });
    client.deliver({ nonsense: true });
    host.emit('file.openRequested', { path: '/x.job.json' });
    await expect.poll(() => client.sent.length).toBe(3);
    expect(client.sent).toContainEqual({
      type: 'event',
      event: 'file.openRequested',
      data: { path: '/x.job.json' },
    });
    expect(client.sent).toContainEqual({ type: 'response', id: 1, result: [] });
    expect(client.sent).toContainEqual({
      type: 'response',
      id: NO_REQUEST_ID,
      error: { message: 'Invalid message: type must be "request"' },
    });
    client.close('gone');
    host.emit('file.openRequested', { path: '/y.job.json' });
    client.deliver({ type: 'request', id: 2, method: 'recent.list', params: {} });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(client.sent).toHaveLength(3);
  });
});
