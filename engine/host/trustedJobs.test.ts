// trust.check and trust.grant as the designer calls them: a job file is trusted as the text the
// user trusted (or saved), an edit by someone else is not, a folder in trusted.json trusts all
// under it, and a record keeps what the user wrote there by hand.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentHash } from '../deploy/trustList.js';
import { answerMessage } from './hostConnection.js';
import { createHostService, type HostService } from './hostService.js';

let dir: string;
let host: HostService;
let id = 0;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pipewright-trusted-'));
  host = createHostService({
    transport: 'websocket',
    version: '0.0.0',
    dataDir: join(dir, 'data'),
    examplesDir: fileURLToPath(new URL('../../assets/examples', import.meta.url)),
  });
});
afterAll(async () => {
  await host.close();
  await rm(dir, { recursive: true, force: true });
});

async function call(method: 'trust.check' | 'trust.grant', params: Record<string, unknown>) {
  const answer = await answerMessage(host, { type: 'request', id: ++id, method, params } as never);
  if (answer.error !== undefined) throw new Error(answer.error.message);
  return answer.result;
}

const listFile = () => join(dir, 'data', 'trusted.json');

describe('the trusted jobs', () => {
  const job = () => join(dir, 'jobs', 'a', 'x.job.json');

  it('trust a job file as the text trusted, and ask again once it changed', async () => {
    expect(await call('trust.check', { path: job(), text: 'v1' })).toEqual({ trusted: false });
    expect(await call('trust.grant', { path: job(), text: 'v1' })).toEqual({});
    expect(await call('trust.check', { path: job(), text: 'v1' })).toEqual({ trusted: true });
    expect(await call('trust.check', { path: job(), text: 'v1 edited' })).toEqual({ trusted: false });
    expect(await call('trust.check', { path: join(dir, 'jobs', 'b.job.json'), text: 'v1' })).toEqual({
      trusted: false,
    });
    // Trusted again as saved: the newer text replaces the older.
    await call('trust.grant', { path: job(), text: 'v2' });
    expect(await call('trust.check', { path: job(), text: 'v1' })).toEqual({ trusted: false });
    expect(JSON.parse(await readFile(listFile(), 'utf8'))).toEqual({ jobs: { [job()]: contentHash('v2') } });
  });

  it('trust every job under a folder the user listed, and keep that list when recording', async () => {
    const folder = join(dir, 'mine');
    await writeFile(listFile(), JSON.stringify({ folders: [folder], note: 'mine' }));
    expect(await call('trust.check', { path: join(folder, 'deep', 'y.job.json'), text: 'any' })).toEqual({
      trusted: true,
    });
    expect(await call('trust.check', { path: join(`${folder}2`, 'y.job.json'), text: 'any' })).toEqual({
      trusted: false,
    });
    await call('trust.grant', { path: job(), text: 'v3' });
    expect(JSON.parse(await readFile(listFile(), 'utf8'))).toEqual({
      folders: [folder],
      note: 'mine',
      jobs: { [job()]: contentHash('v3') },
    });
  });

  it('trust nothing by a damaged list, and do not write over it', async () => {
    await mkdir(join(dir, 'data'), { recursive: true });
    await writeFile(listFile(), '{"folders": [');
    expect(await call('trust.check', { path: job(), text: 'v3' })).toEqual({ trusted: false });
    await expect(call('trust.grant', { path: job(), text: 'v3' })).rejects.toThrow(
      /^Cannot trust .*x\.job\.json: .*trusted\.json cannot be read \(.*\); mend or remove it$/,
    );
    expect(await readFile(listFile(), 'utf8')).toBe('{"folders": [');
  });

  it('refuse a relative path', async () => {
    await expect(call('trust.grant', { path: 'x.job.json', text: '' })).rejects.toThrow(
      'Cannot trust x.job.json: the path must be absolute',
    );
    await expect(call('trust.check', { path: 1, text: '' })).rejects.toThrow(
      'trust.check: params.path must be a string',
    );
  });
});
