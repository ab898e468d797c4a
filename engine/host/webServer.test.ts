// The browser form's server, started in-process on a temporary renderer build: what it serves,
// to whom the engine host answers, and what it refuses.

import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { HostMessage } from '../protocol/protocol.js';
import { CONTENT_SECURITY_POLICY_HEADER } from './contentSecurityPolicy.js';
import { HOST_PATH, startWebServer, type WebServer } from './webServer.js';

const INDEX_HTML = '<!doctype html><title>fake designer</title>\n';
const SECRET = 'not for the web\n';

let dir: string;
let rendererDir: string;
let server: WebServer;
let origin: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pipewright-web-'));
  rendererDir = join(dir, 'renderer');
  await mkdir(join(rendererDir, 'assets'), { recursive: true });
  await writeFile(join(rendererDir, 'index.html'), INDEX_HTML);
  await writeFile(join(rendererDir, 'assets', 'app.js'), 'console.log(1);\n');
  await writeFile(join(dir, 'secret.txt'), SECRET);
  server = await startWebServer({
    rendererDir,
    dataDir: join(dir, 'data'),
    initialFile: join(dir, 'a.job.json'),
  });
  origin = `http://127.0.0.1:${server.port}`;
});

afterAll(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

/** A raw HTTP request: unlike fetch, it sends the path exactly as written, dots and all. */
function get(
  path: string,
  method = 'GET',
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port: server.port, path, method }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Opens a WebSocket; resolves with the socket once open, or with the HTTP status it was refused with. */
function openSocket(url: string, headers: { origin?: string } = { origin }): Promise<WebSocket | number> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, headers.origin === undefined ? {} : { origin: headers.origin });
    socket.once('open', () => resolve(socket));
    socket.once('unexpected-response', (_request, response) => {
      resolve(response.statusCode ?? 0);
      socket.terminate();
    });
    socket.once('error', reject);
  });
}

function nextMessage(socket: WebSocket): Promise<HostMessage> {
  return new Promise((resolve) => socket.once('message', (data) => resolve(JSON.parse(String(data)))));
}

/**
 * Sends `text` as it is on a fresh connection and resolves with the status of the answer (0 when
 * the server closes without one): for requests no well-behaved client would send.
 */
function raw(text: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port: server.port });
    let answer = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      answer += chunk;
      // The status line is all these tests need; an upgrade that was accepted would never end.
      if (answer.includes('\r\n')) socket.destroy();
    });
    socket.once('close', () => resolve(Number(/^HTTP\/1\.1 (\d{3}) /.exec(answer)?.[1] ?? 0)));
    socket.once('error', reject);
    socket.write(text, 'latin1');
  });
}

/** A WebSocket handshake for `target` with these headers (`Host` and `Origin` those of this server unless given). */
function upgrade(target: string, headers: Record<string, string | undefined> = {}): Promise<number> {
  const all: Record<string, string | undefined> = {
    Host: `127.0.0.1:${server.port}`,
    Origin: origin,
    Upgrade: 'websocket',
    Connection: 'Upgrade',
    'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==',
    'Sec-WebSocket-Version': '13',
    ...headers,
  };
  const lines = Object.entries(all)
    .filter(([, value]) => value !== undefined)
    .map(([name, value]) => `${name}: ${value}\r\n`);
  return raw(`GET ${target} HTTP/1.1\r\n${lines.join('')}\r\n`);
}

/** The server is still up and serving its page. */
async function expectStillServing(): Promise<void> {
  expect((await get('/')).status).toBe(200);
  const socket = await openSocket(hostUrl(server.token));
  expect(socket).toBeInstanceOf(WebSocket);
  const ws = socket as WebSocket;
  const answer = nextMessage(ws);
  ws.send(JSON.stringify({ type: 'request', id: 7, method: 'host.info', params: {} }));
  expect(await answer).toMatchObject({ type: 'response', id: 7, result: { transport: 'websocket' } });
  ws.close();
}

const hostUrl = (token: string) => `ws://127.0.0.1:${server.port}${HOST_PATH}?token=${token}`;

describe('startWebServer', () => {
  it('gives the page URL with a fresh 32-byte token, on 127.0.0.1', () => {
    expect(server.url).toBe(`http://127.0.0.1:${server.port}/?token=${server.token}`);
    expect(server.token).toMatch(/^[0-9a-f]{64}$/);
  });

  it('listens on 127.0.0.1 only: not on ::1, not on any other address of this machine', async () => {
    const addresses = Object.values(networkInterfaces())
      .flat()
      .map((address) => address?.address ?? '')
      .filter((address) => address !== '' && address !== '127.0.0.1' && !address.startsWith('fe80'));
    const others = [...new Set(['::1', ...addresses])];
    for (const host of others) {
      const reached = await new Promise<boolean>((resolve) => {
        const socket = connect({ host, port: server.port });
        socket.once('connect', () => {
          socket.destroy();
          resolve(true);
        });
        socket.once('error', () => resolve(false));
      });
      expect(reached, host).toBe(false);
    }
  });

  it('refuses to start without a renderer build, saying how to make one', async () => {
    await expect(startWebServer({ rendererDir: join(dir, 'nothing'), dataDir: dir })).rejects.toThrow(
      /index\.html is missing\): run `npm run build`/,
    );
  });
});

describe('static files', () => {
  it('serves index.html at / (with or without the token) under the CSP', async () => {
    for (const path of ['/', `/?token=${server.token}`, '/index.html']) {
      const response = await get(path);
      expect(response.status).toBe(200);
      expect(response.body).toBe(INDEX_HTML);
      expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(response.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY_HEADER);
    }
  });

  it('serves assets with their content type', async () => {
    const response = await get('/assets/app.js');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(response.headers['x-content-type-options']).toBe('nosniff');
  });

  it('answers HEAD without a body and refuses other methods', async () => {
    const head = await get('/', 'HEAD');
    expect(head.status).toBe(200);
    expect(head.body).toBe('');
    expect((await get('/', 'POST')).status).toBe(405);
  });

  it('refuses with 403 a request naming another host (DNS rebinding) or coming from another origin', async () => {
    for (const host of ['evil.example', `evil.example:${server.port}`, `localhost:${server.port}`, '']) {
      expect(await raw(`GET / HTTP/1.1\r\nHost: ${host}\r\n\r\n`), host).toBe(403);
      expect(await raw(`GET /assets/app.js HTTP/1.1\r\nHost: ${host}\r\n\r\n`), host).toBe(403);
    }
    expect(
      await raw(`GET / HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nOrigin: http://evil.example\r\n\r\n`),
    ).toBe(403);
    expect(await raw(`GET / HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nOrigin: ${origin}\r\n\r\n`)).toBe(
      200,
    );
    expect(await raw(`GET / HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\n\r\n`)).toBe(200);
    expect(await raw(`GET / HTTP/1.1\r\n\r\n`)).toBe(400);
  });

  it('has nothing outside the renderer folder, however the path is spelt', async () => {
    for (const path of [
      '/../secret.txt',
      '/assets/../../secret.txt',
      '/%2e%2e/secret.txt',
      '/..%2fsecret.txt',
      '/assets/..%2f..%2fsecret.txt',
      '/..%5csecret.txt',
      `/${encodeURIComponent(join(dir, 'secret.txt'))}`,
      '/%00',
      '/%E0%A4%A',
      '/assets',
      '/missing.js',
    ]) {
      const response = await get(path);
      expect(response.status, path).toBe(404);
      expect(response.body, path).not.toContain(SECRET.trim());
    }
  });
});

describe('the engine host over WebSocket', () => {
  it('answers a request from its own page with the token', async () => {
    const socket = await openSocket(hostUrl(server.token));
    expect(socket).toBeInstanceOf(WebSocket);
    const ws = socket as WebSocket;
    const answer = nextMessage(ws);
    ws.send(JSON.stringify({ type: 'request', id: 1, method: 'host.info', params: {} }));
    expect(await answer).toMatchObject({
      type: 'response',
      id: 1,
      result: { transport: 'websocket', initialFile: join(dir, 'a.job.json') },
    });
    const invalid = nextMessage(ws);
    ws.send('not json');
    expect(await invalid).toEqual({
      type: 'response',
      id: -1,
      error: { message: 'Invalid message: not a JSON object' },
    });
    const event = nextMessage(ws);
    server.host.emit('file.openRequested', { path: '/x.job.json' });
    expect(await event).toEqual({
      type: 'event',
      event: 'file.openRequested',
      data: { path: '/x.job.json' },
    });
    ws.close();
  });

  it('refuses with 403 a connection without the token, with a wrong one, or from another origin', async () => {
    expect(await openSocket(`ws://127.0.0.1:${server.port}${HOST_PATH}`)).toBe(403);
    expect(await openSocket(hostUrl(''))).toBe(403);
    expect(await openSocket(hostUrl('0'.repeat(64)))).toBe(403);
    expect(await openSocket(hostUrl(server.token.slice(0, 63)))).toBe(403);
    expect(await openSocket(hostUrl(server.token), { origin: 'http://evil.example' })).toBe(403);
    expect(await openSocket(hostUrl(server.token), { origin: `http://localhost:${server.port}` })).toBe(403);
    expect(await openSocket(hostUrl(server.token), {})).toBe(403);
  });

  it('survives a token whose UTF-8 is longer than its characters, and refuses it', async () => {
    // 64 characters like the real token, 65 bytes: a length check in characters let the byte compare throw.
    expect(await openSocket(hostUrl(`é${'a'.repeat(63)}`))).toBe(403);
    expect(await openSocket(hostUrl('é'.repeat(64)))).toBe(403);
    expect(await openSocket(hostUrl(`${server.token.slice(0, 62)}é`))).toBe(403);
    expect(
      await upgrade(`${HOST_PATH}?token=%C3%A9${'a'.repeat(63)}`, { Origin: 'http://evil.example' }),
    ).toBe(403);
    await expectStillServing();
  });

  it('refuses with 403, before looking at the token, a handshake naming another host (DNS rebinding)', async () => {
    const withToken = `${HOST_PATH}?token=${server.token}`;
    for (const host of [
      'evil.example',
      `evil.example:${server.port}`,
      `localhost:${server.port}`,
      '127.0.0.1',
      `127.0.0.1:${server.port + 1}`,
      `127.0.0.1:${server.port}.evil.example`,
      '',
    ]) {
      expect(await upgrade(withToken, { Host: host }), host).toBe(403);
      expect(await upgrade(`${HOST_PATH}?token=${'%C3%A9'.repeat(64)}`, { Host: host }), host).toBe(403);
    }
    expect(await upgrade(withToken, { Host: undefined })).toBe(403);
    expect(await upgrade(withToken)).toBe(101);
    await expectStillServing();
  });

  it('refuses with 403 a handshake from another origin or none, whatever its token', async () => {
    for (const token of [server.token, `é${'a'.repeat(63)}`, '']) {
      const target = `${HOST_PATH}?token=${encodeURIComponent(token)}`;
      expect(await upgrade(target, { Origin: 'http://evil.example' }), token).toBe(403);
      expect(await upgrade(target, { Origin: 'null' }), token).toBe(403);
      expect(await upgrade(target, { Origin: undefined }), token).toBe(403);
    }
    await expectStillServing();
  });

  it('answers malformed handshakes and garbage with a 4xx and keeps serving', async () => {
    const withToken = `${HOST_PATH}?token=${server.token}`;
    expect(await upgrade(withToken, { 'Sec-WebSocket-Key': 'short' })).toBe(400);
    expect(await upgrade(withToken, { 'Sec-WebSocket-Version': '99' })).toBe(400);
    expect(await upgrade(`${HOST_PATH}?token=%E0%A4%A`)).toBe(403);
    expect(await upgrade(`${HOST_PATH}?token=${'%FF'.repeat(64)}`)).toBe(403);
    expect(await upgrade(`/%E0%A4%A?token=${server.token}`)).toBe(404);
    expect(
      await raw(`GET ${withToken} HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nUpgrade websocket\r\n\r\n`),
    ).toBe(400);
    expect(await raw('\u0000\u0001\u00ff garbage\r\n\r\n')).toBe(400);
    expect(
      await raw(`GET / HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nX: ${'a'.repeat(100_000)}\r\n\r\n`),
    ).toBe(431);
    expect(await raw(`GET / HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nX: \u00e9\u0000\r\n\r\n`)).toBe(
      400,
    );
    await expectStillServing();
  });

  it('has no WebSocket anywhere but /host', async () => {
    expect(await openSocket(`ws://127.0.0.1:${server.port}/?token=${server.token}`)).toBe(404);
  });

  it('uses a new token at each start', async () => {
    const other = await startWebServer({ rendererDir, dataDir: join(dir, 'data') });
    try {
      expect(other.token).not.toBe(server.token);
      expect(other.port).not.toBe(server.port);
      expect(
        await openSocket(`ws://127.0.0.1:${other.port}${HOST_PATH}?token=${server.token}`, {
          origin: `http://127.0.0.1:${other.port}`,
        }),
      ).toBe(403);
    } finally {
      await other.close();
    }
  });

  it('stops serving at close, dropping its clients', async () => {
    const other = await startWebServer({ rendererDir, dataDir: join(dir, 'data') });
    const socket = (await openSocket(`ws://127.0.0.1:${other.port}${HOST_PATH}?token=${other.token}`, {
      origin: `http://127.0.0.1:${other.port}`,
    })) as WebSocket;
    const closed = new Promise((resolve) => socket.once('close', resolve));
    await other.close();
    await closed;
    await expect(fetch(`http://127.0.0.1:${other.port}/`)).rejects.toThrow();
  });
});
