// Which file of the renderer build a pipewright://app URL names: never one outside that folder,
// however the path is encoded. The browser form has its own copy in engine/host/staticFiles.ts
// (electron/ may not import it); test/shellCopies.test.ts runs the same paths through both.
import { isAbsolute, relative, resolve, sep } from 'node:path';

export function rendererFile(rendererDir: string, urlPath: string): string | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return undefined;
  }
  // No build file has a backslash in its name, and on Windows it would be a separator.
  if (decoded.includes('\0') || decoded.includes('\\')) return undefined;
  const inside = decoded.replace(/^\/+/, '');
  const base = resolve(rendererDir);
  const file = resolve(base, inside === '' ? 'index.html' : inside);
  const path = relative(base, file);
  if (path === '' || path === '..' || path.startsWith(`..${sep}`) || isAbsolute(path)) return undefined;
  return file;
}
