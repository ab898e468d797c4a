#!/usr/bin/env node
// `npm start [-- FILE.job.json]`: the desktop app where Electron can run, otherwise the browser
// form (`npm run web`) with one line saying why. Machines without a display or without the
// Electron binary (it is downloaded on first use) still get a working designer.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const shellMain = join(root, 'dist', 'electron', 'main.js');
const webMain = join(root, 'dist', 'engine', 'host', 'webMain.js');
const args = process.argv.slice(2);

/**
 * The Electron executable if it is on disk. require('electron') is not asked: when the binary
 * is missing it tries to download it, which hangs or fails on a machine without the internet.
 */
function electronBinary() {
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

function hasDisplay() {
  return process.platform !== 'linux' || Boolean(process.env.DISPLAY || process.env.WAYLAND_DISPLAY);
}

async function startBrowserForm(reason) {
  if (!existsSync(webMain)) {
    process.stderr.write(
      'pipewright: the app is not built yet; run `npm install` (or `npm run build`) first.\n',
    );
    process.exit(1);
  }
  process.stdout.write(`${reason} — starting the browser form instead.\n`);
  // webMain reads the same arguments ([FILE] [--port N]) and prints the URL.
  await import(pathToFileURL(webMain).href);
}

function startDesktop(binary) {
  // npm runs scripts in the package folder; a FILE is relative to where the user typed the command.
  const cwd = process.env.INIT_CWD ?? process.cwd();
  const shellArgs = args.map((arg) => (arg.startsWith('-') ? arg : resolve(cwd, arg)));
  const env = { ...process.env };
  // Inherited from some tools, it would make the binary run main.js as plain Node.
  delete env.ELECTRON_RUN_AS_NODE;
  const child = spawn(binary, [shellMain, ...shellArgs], { stdio: 'inherit', env });
  child.once('error', (error) => {
    void startBrowserForm(`Electron could not start (${error.message})`);
  });
  child.once('exit', (code, signal) => {
    if (code !== null) process.exit(code);
    if (signal !== null) process.exit(1);
  });
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
}

const binary = electronBinary();
if (binary === undefined) {
  await startBrowserForm('No Electron binary (it downloads on first use and this machine cannot reach it)');
} else if (!hasDisplay()) {
  await startBrowserForm('No display (neither DISPLAY nor WAYLAND_DISPLAY is set), so no desktop window');
} else if (!existsSync(shellMain)) {
  await startBrowserForm(
    'The desktop shell is not built (dist/electron/main.js is missing; run `npm run build`)',
  );
} else {
  startDesktop(binary);
}
