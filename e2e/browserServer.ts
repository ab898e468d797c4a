// vitest's globalSetup for the end-to-end tests: one headless Chromium for the whole run, started
// once (a launch costs about a second of both cores), which every test file connects to and
// gives a browser context of its own. Without a Chromium the files fail with the hint, as
// `npm test`'s up-front check says.

import { type BrowserServer, chromium } from 'playwright-core';
import type { TestProject } from 'vitest/node';
import { CHROMIUM_FLAGS } from './chromiumFlags.js';
import { findChromium } from './chromiumPath.mjs';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The shared Chromium's endpoint; empty when none could be found. */
    chromiumEndpoint: string;
  }
}

let server: BrowserServer | undefined;

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const executablePath = await findChromium();
  if (executablePath !== undefined) {
    server = await chromium.launchServer({ executablePath, args: CHROMIUM_FLAGS, headless: true });
  }
  project.provide('chromiumEndpoint', server?.wsEndpoint() ?? '');
  return async () => {
    await server?.close();
    server = undefined;
  };
}
