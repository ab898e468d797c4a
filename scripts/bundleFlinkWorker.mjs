#!/usr/bin/env node
// Bundles the Flink runner's Node worker (engine/flink/flinkWorker.ts) into ONE self-contained
// ES module, dist/flink/flinkWorker.mjs (a build step of scripts/build.mjs, after tsc). The
// runner's plan names it (`worker.command`), and it must run from any working directory, on a
// machine with Node but without this checkout's node_modules: so no chunks and no externals but
// Node's own modules; SES, zod and acorn are inside. Every Flink subtask of a user-code operator
// starts one, so its start-up is paid per subtask and restart: one file is one module to load.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';

const ROOT = join(import.meta.dirname, '..');
const OUT = join(ROOT, 'dist', 'flink');

rmSync(OUT, { recursive: true, force: true });
await build({
  absWorkingDir: ROOT,
  entryPoints: { flinkWorker: 'engine/flink/flinkWorker.ts' },
  outdir: OUT,
  outExtension: { '.js': '.mjs' },
  bundle: true,
  splitting: false,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // As the CLI's bundle (scripts/bundleCli.mjs): less text for V8 to scan at each start.
  minifyWhitespace: true,
  sourcemap: 'linked',
  sourcesContent: false,
  legalComments: 'none',
  logLevel: 'warning',
});
