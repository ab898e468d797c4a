// Where Pipewright's own files are (package.json, assets/, dist/renderer). Found by walking up
// from this module, because it runs from engine/host under the tests, from dist/engine/host once
// built and from inside app.asar when packaged: a fixed number of '..' is wrong in one of them.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const PACKAGE_NAME = 'pipewright';

function isOurManifest(file: string): boolean {
  if (!existsSync(file)) return false;
  try {
    return (JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown }).name === PACKAGE_NAME;
  } catch {
    return false;
  }
}

export function findPackageRoot(from: string = dirname(fileURLToPath(import.meta.url))): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (isOurManifest(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`Cannot find Pipewright's package.json in ${from} or above it`);
  }
}

export function packageVersion(root: string): string {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version?: unknown };
  return typeof manifest.version === 'string' ? manifest.version : '0.0.0';
}

/** The templates the start screen offers. */
export function examplesDir(root: string): string {
  return join(root, 'assets', 'examples');
}

/** The renderer as Vite builds it; both shells serve these files. */
export function rendererDir(root: string): string {
  return join(root, 'dist', 'renderer');
}
