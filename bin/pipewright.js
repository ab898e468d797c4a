#!/usr/bin/env node
// The CLI is compiled from TypeScript and bundled into dist/cli by `npm install` (the `prepare`
// script; scripts/bundleCli.mjs says why a bundle).
import { existsSync } from 'node:fs';
import module from 'node:module';
import { fileURLToPath } from 'node:url';

const entry = new URL('../dist/cli/pipewright.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write(
    'pipewright: the engine is not built yet; run `npm install` (or `npm run build`) in the checkout.\n',
  );
  process.exit(2);
}
// Compiling the bundle is most of what loading it costs. Node 22.1 and later keep V8's compiled
// code on disk (Node 20 has no such cache for ES modules): an empty job then took 0.27 CPU-s
// instead of 0.33 on Node 24. Each file's entry is checked against its content, so a rebuild
// makes new ones. Node's own NODE_COMPILE_CACHE (or NODE_DISABLE_COMPILE_CACHE) wins; where the
// folder cannot be written the run goes on without it. The run's threads start with this
// process's environment: set there, the cache is theirs too (they load most of the bundle).
const cache = module.enableCompileCache?.(
  fileURLToPath(new URL('../node_modules/.cache/pipewright/compile', import.meta.url)),
);
if (cache?.directory !== undefined) process.env.NODE_COMPILE_CACHE ??= cache.directory;
await import(entry.href);
