#!/usr/bin/env node
// Bundles the `pipewright` CLI and the worker threads it starts into dist/cli/ (a build step of
// scripts/build.mjs, after tsc). Node's ES module loader pays for every file it resolves, reads
// and compiles, and each thread of a run loads the engine afresh: the CLI's main thread and its
// run thread made 583 module loads (~380 files) for an empty job, about 0.2 CPU-s of its ~0.55.
// Bundled, each thread loads a few files (docs/benchmarks.md, "Issue 27: the CLI's start").
//
// One file per entry, the code they share in chunks beside them, all in one folder: a worker's
// entry is found from the module that starts it (workerScript.ts, `new URL('./jobWorker.js',
// import.meta.url)`), which is a chunk here. The kinds loaded on demand (connectors, NEXMark,
// transactions) stay chunks of their own, loaded only by a job that uses them. Packages with
// native code or that are only a connector's (pg, redis, kafka) stay in node_modules. dist/engine
// (tsc's, one file per module) stays as it is: the tests, the host and the desktop shell load it.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';

const ROOT = join(import.meta.dirname, '..');
const OUT = join(ROOT, 'dist', 'cli');

/** The entries, by the name of their file in dist/cli (workerScript.ts names the workers so). */
const ENTRIES = {
  pipewright: 'engine/cli/main.ts',
  jobWorker: 'engine/deploy/jobWorker.ts',
  partWorker: 'engine/deploy/partWorker.ts',
};

/** Loaded from node_modules: native bindings, and clients only a connector's job loads. */
const EXTERNAL = ['classic-level', 'pg', 'pg-logical-replication', 'redis', '@platformatic/kafka', 'ws'];

// Chunks are named by a hash of their content: a build's files replace, not overwrite, the last.
rmSync(OUT, { recursive: true, force: true });
await build({
  absWorkingDir: ROOT,
  entryPoints: ENTRIES,
  outdir: OUT,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: EXTERNAL,
  // Without the blanks V8 has a quarter less text to scan as it compiles: an empty job took
  // 0.31-0.34 CPU-s instead of 0.34-0.37 (Node 20). Names and syntax stay as written, so an
  // internal error's stack still names its functions; its lines are the map's to say.
  minifyWhitespace: true,
  // Maps to the TypeScript sources (engine/**/*.ts), which a checkout has: read with
  // `node --enable-source-maps` when an engine stack needs its source lines.
  sourcemap: 'linked',
  sourcesContent: false,
  legalComments: 'none',
  logLevel: 'warning',
});
