#!/usr/bin/env node
// `npm test` runs the designer's end-to-end tests in Chromium; say how to get one before
// spending minutes on the rest of the suite.
import { CHROMIUM_HINT, findChromium } from '../e2e/chromiumPath.mjs';

if ((await findChromium()) === undefined) {
  process.stderr.write(`${CHROMIUM_HINT}\n`);
  process.exit(1);
}
