// Whether this machine can open the desktop app: the Electron executable, if it is on disk, and a
// display to open a window on. `npm start` and the desktop e2e test ask the same questions.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * The Electron executable if it is on disk. require('electron') is not asked: when the binary
 * is missing it tries to download it, which hangs or fails on a machine without the internet.
 */
export function electronBinary() {
  let packageDir;
  try {
    packageDir = dirname(createRequire(import.meta.url).resolve('electron/package.json'));
  } catch {
    return undefined;
  }
  let relativePath;
  try {
    relativePath = readFileSync(join(packageDir, 'path.txt'), 'utf8').trim();
  } catch {
    relativePath = undefined;
  }
  const override = process.env.ELECTRON_OVERRIDE_DIST_PATH;
  let binary;
  if (override) binary = join(override, relativePath || 'electron');
  else if (relativePath) binary = join(packageDir, 'dist', relativePath);
  return binary !== undefined && existsSync(binary) ? binary : undefined;
}

export function hasDisplay() {
  return process.platform !== 'linux' || Boolean(process.env.DISPLAY || process.env.WAYLAND_DISPLAY);
}

/** Why the desktop app cannot open a window here, in one line; undefined when it can. */
export function whyNoDesktop() {
  if (electronBinary() === undefined) {
    return 'No Electron binary (it downloads on first use and this machine cannot reach it)';
  }
  if (!hasDisplay()) {
    return 'No display (neither DISPLAY nor WAYLAND_DISPLAY is set), so no desktop window';
  }
  return undefined;
}
