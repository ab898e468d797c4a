// Whether this machine can open the desktop app: the Electron executable, if it is on disk, and a
// display to open a window on. `npm start` and the desktop e2e test ask the same questions.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** The electron package's folder, or undefined when it is not installed. */
function electronPackageDir() {
  try {
    return dirname(createRequire(import.meta.url).resolve('electron/package.json'));
  } catch {
    return undefined;
  }
}

/**
 * Where the Electron executable is, as the electron package itself finds it (its path.txt,
 * written once its install step has downloaded the binary, or ELECTRON_OVERRIDE_DIST_PATH):
 * `{ binary }` when it is on disk, else `{ missing }`, what was found instead, in words.
 * require('electron') is not asked: when the binary is missing it tries to download it, which
 * hangs or fails on a machine without the internet.
 */
export function findElectron(packageDir = electronPackageDir(), env = process.env) {
  if (packageDir === undefined) return { missing: 'the electron package is not installed (npm install)' };
  let relativePath;
  try {
    relativePath = readFileSync(join(packageDir, 'path.txt'), 'utf8').trim();
  } catch {
    relativePath = undefined;
  }
  const override = env.ELECTRON_OVERRIDE_DIST_PATH;
  let binary;
  if (override) binary = join(override, relativePath || 'electron');
  else if (relativePath) binary = join(packageDir, 'dist', relativePath);
  else {
    return {
      missing: `${packageDir} holds no binary (its install step did not download it; \`node ${join(packageDir, 'install.js')}\` does)`,
    };
  }
  return existsSync(binary) ? { binary } : { missing: `${binary} is not there` };
}

/** The Electron executable if it is on disk. */
export function electronBinary() {
  return findElectron().binary;
}

export function hasDisplay() {
  return process.platform !== 'linux' || Boolean(process.env.DISPLAY || process.env.WAYLAND_DISPLAY);
}

/** Why the desktop app cannot open a window here, in one line; undefined when it can. */
export function whyNoDesktop() {
  const { missing } = findElectron();
  if (missing !== undefined) return `No Electron binary installed: ${missing}`;
  if (!hasDisplay()) {
    return 'No display (neither DISPLAY nor WAYLAND_DISPLAY is set), so no desktop window';
  }
  return undefined;
}
