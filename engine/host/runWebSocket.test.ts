// A run through the browser form's real WebSocket: the request and its response, and the run's
// events as JSON frames to the client, as the designer in a browser gets them.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { EventMessage, HostMessage, ResponseMessage, RunInfo, StatePage } from '../protocol/protocol.js';
import { HOST_PATH, startWebServer, type WebServer } from './webServer.js';

let dir: string;
let server: WebServer;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pipewright-run-ws-'));
  const rendererDir = join(dir, 'renderer');
  await mkdir(rendererDir);
  await writeFile(join(rendererDir, 'index.html'), '<!doctype html><title>designer</title>\n');
  server = await startWebServer({ rendererDir, dataDir: join(dir, 'data'), examplesDir: dir });
});

afterAll(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

const job = {
  format: 'pipewright.job/1',
  name: 'socket',
  settings: { checkpointIntervalMs: 50 },
  operators: [
    {
      id: 'gen',
      kind: 'source.generator',
      parallelism: 1,
      params: { code: 'function generate(i) { return { k: "k" + (i % 10) }; }', ratePerSec: 10_000 },
    },
    {
      id: 'count',
      kind: 'process',
      parallelism: 2,
      params: {
        code: 'function process(r, ctx) { const s = ctx.state.value("n"); s.set((s.get() ?? 0) + 1); }',
      },
    },
  ],
  edges: [{ id: 'e1', from: 'gen', to: 'count', partition: 'hash', key: 'k' }],
};

it('starts a run, streams its events and stops it over the WebSocket', async () => {
  const origin = `http://127.0.0.1:${server.port}`;
  const socket = new WebSocket(`ws://127.0.0.1:${server.port}${HOST_PATH}?token=${server.token}`, { origin });
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  const messages: HostMessage[] = [];
  socket.on('message', (data) => messages.push(JSON.parse(String(data)) as HostMessage));
  let id = 0;
  const request = async (method: string, params: unknown): Promise<unknown> => {
    const sent = ++id;
    socket.send(JSON.stringify({ type: 'request', id: sent, method, params }));
    for (let i = 0; i < 2000; i++) {
      const response = messages.find((m): m is ResponseMessage => m.type === 'response' && m.id === sent);
      if (response !== undefined) {
        if (response.error !== undefined) throw new Error(response.error.message);
        return response.result;
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error(`no response to ${method}`);
  };
  const eventsOf = (event: string) =>
    messages.filter((m): m is EventMessage => m.type === 'event' && m.event === event).map((m) => m.data);
  const waitFor = async (what: string, condition: () => boolean) => {
    for (let i = 0; i < 2000 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
    if (!condition()) throw new Error(`timed out waiting for ${what}`);
  };

  const info = (await request('run.start', {
    text: JSON.stringify(job),
    path: join(dir, 'socket.job.json'),
    mode: 'run',
    previewSinks: false,
  })) as RunInfo;
  expect(info.status).toBe('running');
  await waitFor(
    'metrics and a checkpoint',
    () => eventsOf('run.metrics').length >= 2 && eventsOf('run.checkpoint').length >= 1,
  );
  expect(eventsOf('run.status').map((s) => (s as RunInfo).status)).toEqual(['starting', 'running']);
  expect(eventsOf('run.checkpoint')[0]).toMatchObject({ runId: info.runId, status: 'completed' });
  expect(eventsOf('run.metrics')[0]).toMatchObject({ runId: info.runId, edges: [{ id: 'e1' }] });

  const page = (await request('state.page', {
    runId: info.runId,
    operator: 'count',
    subtask: 1,
    limit: 100,
  })) as StatePage;
  expect(page.entries.length).toBeGreaterThan(0);
  expect(
    page.entries.every((e) => e.state === 'n' && e.type === 'value' && typeof e.value === 'number'),
  ).toBe(true);

  await expect(
    request('run.start', { text: '{}', path: join(dir, 'x.job.json'), mode: 'run', previewSinks: false }),
  ).rejects.toThrow(/^run\.start: run .* of job "socket" is still running; stop it before starting another/);
  const stopped = (await request('run.stop', { runId: info.runId })) as RunInfo;
  expect(stopped.status).toBe('stopped');
  expect(
    eventsOf('run.status')
      .map((s) => (s as RunInfo).status)
      .at(-1),
  ).toBe('stopped');
  socket.close();
});
