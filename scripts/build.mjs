#!/usr/bin/env node
import { spawnSync } from 'node:child_process';
// `npm run build` builds the engine, the desktop shell and the designer into dist/, bundles the CLI
// (dist/cli, scripts/bundleCli.mjs) and the Flink runner's worker (dist/flink/flinkWorker.mjs,
// scripts/bundleFlinkWorker.mjs), then records a digest of everything the build read
// (dist/.build-inputs). `node scripts/build.mjs --if-changed` (what `npm test` runs) builds only
// when that digest differs: `npm install` has just built a fresh clone, and a second build would
// cost a minute of both cores for nothing.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const ROOT = join(import.meta.dirname, '..');
const STAMP = join(ROOT, 'dist', '.build-inputs');

/**
 * The build's steps, in order: a tool as npm would run it (from node_modules/.bin), or a script
 * of ours run by this Node.
 */
const STEPS = [
  ['tsc', '-p', 'tsconfig.build.json'],
  ['tsc', '-p', 'electron/tsconfig.json'],
  ['vite', 'build', '--logLevel', 'warn'],
  [process.execPath, 'scripts/bundleCli.mjs'],
  [process.execPath, 'scripts/bundleFlinkWorker.mjs'],
];

/** What the steps read: sources (not tests), their configurations and the installed versions. */
const INPUT_FOLDERS = ['engine', 'electron', 'renderer'];
const INPUT_FILES = [
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'tsconfig.build.json',
  'vite.config.ts',
  'scripts/bundleCli.mjs',
  'scripts/bundleFlinkWorker.mjs',
];
const isInput = (path) => !/\.test\.tsx?$/.test(path);

function inputsDigest() {
  const hash = createHash('sha256');
  const files = [
    ...INPUT_FILES.map((f) => join(ROOT, f)),
    ...INPUT_FOLDERS.flatMap((folder) =>
      readdirSync(join(ROOT, folder), { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isFile())
        .map((entry) => join(entry.parentPath, entry.name)),
    ),
  ]
    .filter(isInput)
    .sort();
  for (const file of files) {
    hash.update(relative(ROOT, file));
    hash.update('\0');
    hash.update(readFileSync(file));
    hash.update('\0');
  }
  return hash.digest('hex');
}

const digest = inputsDigest();
if (process.argv.includes('--if-changed') && existsSync(STAMP) && readFileSync(STAMP, 'utf8') === digest) {
  process.stdout.write('build: dist/ is up to date with the sources\n');
  process.exit(0);
}
const bin = join(ROOT, 'node_modules', '.bin');
for (const [command, ...args] of STEPS) {
  const ours = command === process.execPath;
  const executable = ours ? command : join(bin, process.platform === 'win32' ? `${command}.cmd` : command);
  const step = spawnSync(executable, args, {
    cwd: ROOT,
    stdio: 'inherit',
    shell: process.platform === 'win32' && !ours,
  });
  if (step.status !== 0) process.exit(step.status ?? 1);
}
writeFileSync(STAMP, digest);
