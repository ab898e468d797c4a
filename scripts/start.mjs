#!/usr/bin/env node
// `npm start [-- FILE.job.json]`: the desktop app where Electron can run, otherwise the browser
// form (`npm run web`) with one line saying why. Machines without a display or without the
// Electron binary (it is downloaded on first use) still get a working designer.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { electronBinary, whyNoDesktop } from './electronBinary.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const shellMain = join(root, 'dist', 'electron', 'main.js');
const webMain = join(root, 'dist', 'engine', 'host', 'webMain.js');
const args = process.argv.slice(2);

async function startBrowserForm(reason) {
  if (!existsSync(webMain)) {
    process.stderr.write(
      'pipewright: the app is not built yet; run `npm install` (or `npm run build`) first.\n',
    );
    process.exit(1);
  }
  process.stdout.write(
    `${reason} — starting the browser form instead (\`npm run web\` starts it directly).\n`,
  );
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
const noDesktop = whyNoDesktop();
if (binary === undefined || noDesktop !== undefined) {
  await startBrowserForm(noDesktop ?? 'No Electron binary');
} else if (!existsSync(shellMain)) {
  await startBrowserForm(
    'The desktop shell is not built (dist/electron/main.js is missing; run `npm run build`)',
  );
} else {
  startDesktop(binary);
}
