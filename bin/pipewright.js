#!/usr/bin/env node
// The CLI is compiled from TypeScript and bundled into dist/cli by `npm install` (the `prepare`
// script; scripts/bundleCli.mjs says why a bundle).
import { existsSync } from 'node:fs';

const entry = new URL('../dist/cli/pipewright.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write(
    'pipewright: the engine is not built yet; run `npm install` (or `npm run build`) in the checkout.\n',
  );
  process.exit(2);
}
await import(entry.href);
