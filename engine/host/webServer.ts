// The browser form of the designer: the built renderer over HTTP and the engine host over a
// WebSocket at /host, on 127.0.0.1 only. Any page the user has open can reach 127.0.0.1, so the
// host answers only a WebSocket that presents this start's random token and comes from this
// server's own origin; the token is only in the URL printed to the user's terminal. A page of a
// name that resolves to 127.0.0.1 (DNS rebinding) is this server's origin as far as the browser
// knows, so every request must also name this server in its Host header, as Jupyter requires.
// Whatever a request holds, the answer is a status: nothing it sends may end the process.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse, STATUS_CODES } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { defaultDataDir } from '../deploy/dataDir.js';
import { MAX_MESSAGE_BYTES } from '../protocol/protocol.js';
import { CONTENT_SECURITY_POLICY_HEADER } from './contentSecurityPolicy.js';
import { serveConnection } from './hostConnection.js';
import { createHostService, type HostService } from './hostService.js';
import { examplesDir, findPackageRoot, packageVersion, rendererDir } from './packageRoot.js';
import { contentTypeOf, resolveStaticPath } from './staticFiles.js';
import { webSocketChannel } from './webSocketTransport.js';

export const HOST_PATH = '/host';
const LOOPBACK = '127.0.0.1';

export interface WebServerOptions {
  /** 0 (the default) takes any free port. */
  readonly port?: number;
  /** A file to open at start (HostInfo.initialFile); made absolute against the current directory. */
  readonly initialFile?: string;
  /** Where the file dialogs start for a job without a file (HostInfo.startDir). */
  readonly startDir?: string;
  /** Where the recent list lives; defaultDataDir() when absent. */
  readonly dataDir?: string;
  /** The built renderer (dist/renderer when absent). */
  readonly rendererDir?: string;
  /** The templates (assets/examples when absent). */
  readonly examplesDir?: string;
}

export interface WebServer {
  /** The page to open: http://127.0.0.1:PORT/?token=TOKEN */
  readonly url: string;
  readonly port: number;
  readonly token: string;
  /** The host the WebSocket clients are served by (e.g. to emit events to them). */
  readonly host: HostService;
  close(): Promise<void>;
}

/** Thrown when there is no renderer build to serve. */
export class RendererNotBuiltError extends Error {}

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/**
 * Compares digests: they have one length whatever was given, so timingSafeEqual cannot throw on
 * a given text of another byte length and the time taken tells nothing about the token.
 */
function sameSecret(given: string | null, token: string): boolean {
  return given !== null && timingSafeEqual(digest(given), digest(token));
}

interface Refusal {
  readonly status: number;
  readonly text: string;
}

/**
 * Why a request does not come from this server's own page, if it does not: checked before
 * anything else. A browser sends no Origin with a page load or a same-origin GET, so only a
 * WebSocket must carry one; any request that carries another is refused.
 */
function refusalOf(request: IncomingMessage, origin: string, websocket: boolean): Refusal | undefined {
  const expectedHost = origin.slice('http://'.length);
  if (request.headers.host !== expectedHost) {
    return { status: 403, text: `Wrong host: this server answers only at ${origin}/` };
  }
  const from = request.headers.origin;
  if (from === undefined ? websocket : from !== origin) return { status: 403, text: 'Foreign origin' };
  return undefined;
}

function refuseUpgrade(socket: Duplex, status: number, text: string): void {
  const body = `${text}\n`;
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}

function sendText(response: ServerResponse, status: number, text: string): void {
  response.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' });
  response.end(`${text}\n`);
}

function failResponse(response: ServerResponse): void {
  if (!response.headersSent) sendText(response, 500, 'Internal error');
  else response.destroy();
}

async function serveStatic(root: string, request: IncomingMessage, response: ServerResponse): Promise<void> {
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    response.setHeader('Allow', 'GET, HEAD');
    sendText(response, 405, 'Method not allowed');
    return;
  }
  const urlPath = (request.url ?? '/').split('?')[0] ?? '/';
  const file = resolveStaticPath(root, urlPath);
  if (file === undefined) {
    sendText(response, 404, 'Not found');
    return;
  }
  let body: Buffer;
  try {
    if (!(await stat(file)).isFile()) throw new Error('not a file');
    body = await readFile(file);
  } catch {
    sendText(response, 404, 'Not found');
    return;
  }
  response.writeHead(200, {
    'Content-Type': contentTypeOf(file),
    'Content-Length': body.length,
    // The page's URL carries the token: no caching of it and no Referer carrying it anywhere.
    'Cache-Control': 'no-store',
    'Referrer-Policy': 'no-referrer',
    'X-Content-Type-Options': 'nosniff',
    'Content-Security-Policy': CONTENT_SECURITY_POLICY_HEADER,
  });
  response.end(request.method === 'HEAD' ? undefined : body);
}

export async function startWebServer(options: WebServerOptions = {}): Promise<WebServer> {
  const root = findPackageRoot();
  const staticRoot = resolve(options.rendererDir ?? rendererDir(root));
  if (!existsSync(join(staticRoot, 'index.html'))) {
    throw new RendererNotBuiltError(
      `The designer is not built (${join(staticRoot, 'index.html')} is missing): run \`npm run build\` first.`,
    );
  }
  const token = randomBytes(32).toString('hex');
  const host = createHostService({
    transport: 'websocket',
    version: packageVersion(root),
    dataDir: options.dataDir ?? defaultDataDir(),
    examplesDir: options.examplesDir ?? examplesDir(root),
    ...(options.initialFile === undefined ? {} : { initialFile: resolve(options.initialFile) }),
    ...(options.startDir === undefined ? {} : { startDir: resolve(options.startDir) }),
  });

  let origin = '';
  const server = createServer((request, response) => {
    try {
      const refused = refusalOf(request, origin, false);
      if (refused !== undefined) sendText(response, refused.status, refused.text);
      else serveStatic(staticRoot, request, response).catch(() => failResponse(response));
    } catch {
      failResponse(response);
    }
  });
  const sockets = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES });

  /** Why a handshake is refused, if it is: who sends it first, then where to and with which token. */
  function upgradeRefusal(request: IncomingMessage): Refusal | undefined {
    const refused = refusalOf(request, origin, true);
    if (refused !== undefined) return refused;
    let url: URL;
    try {
      url = new URL(request.url ?? '/', origin);
    } catch {
      return { status: 400, text: 'Bad request' };
    }
    if (url.pathname !== HOST_PATH) return { status: 404, text: 'Not found' };
    if (!sameSecret(url.searchParams.get('token'), token))
      return { status: 403, text: 'Wrong or missing token' };
    return undefined;
  }

  function acceptUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    const refused = upgradeRefusal(request);
    if (refused !== undefined) {
      refuseUpgrade(socket, refused.status, refused.text);
      return;
    }
    sockets.handleUpgrade(request, socket, head, (client) => {
      // A client that vanishes mid-frame must not take the server down; its close event ends the connection.
      client.on('error', () => client.terminate());
      try {
        serveConnection(webSocketChannel(client), host);
      } catch {
        client.terminate();
      }
    });
  }

  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    try {
      acceptUpgrade(request, socket, head);
    } catch {
      // Nothing was written yet: handleUpgrade writes the 101 last, and its callback catches its own.
      if (socket.writable) refuseUpgrade(socket, 500, 'Internal error');
      else socket.destroy();
    }
  });

  await new Promise<void>((resolveListen, rejectListen) => {
    server.once('error', rejectListen);
    server.listen(options.port ?? 0, LOOPBACK, () => {
      server.off('error', rejectListen);
      resolveListen();
    });
  });
  const port = (server.address() as AddressInfo).port;
  origin = `http://${LOOPBACK}:${port}`;
  // A connection the system cannot accept (too many open files) is lost alone; the server goes on.
  server.on('error', () => {});

  let closing: Promise<void> | undefined;
  return {
    url: `${origin}/?token=${token}`,
    port,
    token,
    host,
    close() {
      closing ??= (async () => {
        for (const client of sockets.clients) client.terminate();
        sockets.close();
        const closed = new Promise<void>((resolveClose) => server.close(() => resolveClose()));
        server.closeAllConnections();
        // A run stops as the CLI's does on a signal: with a final checkpoint where checkpoints are on.
        await Promise.all([closed, host.close()]);
      })();
      return closing;
    },
  };
}
