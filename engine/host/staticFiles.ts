// Serving the built renderer's files: which file a URL path names (never one outside the
// renderer's folder, however the path is encoded) and the content type to send it with. The
// desktop shell resolves its pipewright:// URLs with the same function (electron/appProtocol.ts).
import { extname, isAbsolute, relative, resolve, sep } from 'node:path';

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.wasm': 'application/wasm',
};

export function contentTypeOf(file: string): string {
  return CONTENT_TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream';
}

/**
 * The file under `root` that a URL's path (still percent-encoded, without the query) names:
 * `/` is index.html. Undefined when the path cannot be decoded or would leave `root`
 * (`..`, encoded slashes, backslashes, NUL).
 */
export function resolveStaticPath(root: string, urlPath: string): string | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return undefined;
  }
  // No build file has a backslash in its name, and on Windows it would be a separator.
  if (decoded.includes('\0') || decoded.includes('\\')) return undefined;
  const inside = decoded.replace(/^\/+/, '');
  const base = resolve(root);
  const file = resolve(base, inside === '' ? 'index.html' : inside);
  const path = relative(base, file);
  if (path === '' || path === '..' || path.startsWith(`..${sep}`) || isAbsolute(path)) return undefined;
  return file;
}
