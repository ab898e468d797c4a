#!/usr/bin/env node
// The CLI is compiled from TypeScript by `npm install` (the `prepare` script).
import { existsSync } from 'node:fs';

const entry = new URL('../dist/engine/cli/main.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write(
    'pipewright: the engine is not built yet; run `npm install` (or `npm run build`) in the checkout.\n',
  );
  process.exit(2);
}
await import(entry.href);
