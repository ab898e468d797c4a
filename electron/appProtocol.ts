// The renderer is served from the pipewright://app origin rather than file://: a file:// page
// shares its origin with every file on disk and gets no response headers, while this scheme
// answers only for files inside dist/renderer and sends the Content-Security-Policy as a real
// header with each of them.
import { pathToFileURL } from 'node:url';
import { net, protocol } from 'electron';
import { CONTENT_SECURITY_POLICY_HEADER } from '../engine/host/contentSecurityPolicy.js';
import { resolveStaticPath } from '../engine/host/staticFiles.js';

export const APP_SCHEME = 'pipewright';
export const APP_HOST = 'app';
export const APP_PAGE_URL = `${APP_SCHEME}://${APP_HOST}/index.html`;

/** Must run before the app is ready: scheme privileges are fixed when Chromium starts. */
export function registerAppScheme(): void {
  protocol.registerSchemesAsPrivileged([
    {
      scheme: APP_SCHEME,
      privileges: { standard: true, secure: true, supportFetchAPI: true, corsEnabled: true },
    },
  ]);
}

/** Whether a URL is one of our own pages. WHATWG URL has no origin for custom schemes, so scheme and host are compared. */
export function isAppUrl(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.protocol === `${APP_SCHEME}:` && parsed.host === APP_HOST;
  } catch {
    return false;
  }
}

function notFound(): Response {
  return new Response('Not found', { status: 404, headers: { 'Content-Type': 'text/plain; charset=utf-8' } });
}

export function serveRenderer(rendererDir: string): void {
  protocol.handle(APP_SCHEME, async (request) => {
    const url = new URL(request.url);
    if (url.host !== APP_HOST || (request.method !== 'GET' && request.method !== 'HEAD')) return notFound();
    const file = resolveStaticPath(rendererDir, url.pathname);
    if (file === undefined) return notFound();
    let response: Response;
    try {
      // Chromium's file loader reads from app.asar too and sets the content type from the extension.
      response = await net.fetch(pathToFileURL(file).href);
    } catch {
      return notFound();
    }
    if (!response.ok) return notFound();
    const headers = new Headers(response.headers);
    headers.set('Content-Security-Policy', CONTENT_SECURITY_POLICY_HEADER);
    headers.set('X-Content-Type-Options', 'nosniff');
    return new Response(request.method === 'HEAD' ? null : response.body, { status: 200, headers });
  });
}
