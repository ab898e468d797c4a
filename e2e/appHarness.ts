// Starts the browser form in-process (the real engine host over WebSocket, the real renderer
// build) and drives it in Chromium, as a user would. Each test gets its own data directory and
// work directory, so recent files and saved jobs never leak between tests.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { inject } from 'vitest';
import { findPackageRoot, rendererDir } from '../engine/host/packageRoot.js';
import { startWebServer, type WebServer } from '../engine/host/webServer.js';
import { CHROMIUM_FLAGS } from './chromiumFlags.js';
import { CHROMIUM_HINT, findChromium } from './chromiumPath.mjs';

export const ARTIFACTS = join(import.meta.dirname, 'artifacts');

let browser: Browser | undefined;

/**
 * The browser of this test file: the run's shared Chromium (e2e/browserServer.ts) when vitest
 * started one, else one of its own (a file run outside that setup).
 */
export async function launchBrowser(): Promise<Browser> {
  if (browser !== undefined) return browser;
  const endpoint = inject('chromiumEndpoint');
  if (endpoint) {
    browser = await chromium.connect(endpoint);
    return browser;
  }
  const executablePath = await findChromium();
  if (executablePath === undefined) throw new Error(CHROMIUM_HINT);
  browser = await chromium.launch({ executablePath, args: CHROMIUM_FLAGS, headless: true });
  return browser;
}

/** Disconnects from the shared Chromium, or closes this file's own. */
export async function closeBrowser(): Promise<void> {
  await browser?.close();
  browser = undefined;
}

/** Every file of a folder with its size and modification time: changes while a build writes it. */
function listing(dir: string): string {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const path = join(d, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (!entry.name.endsWith('.map')) {
        const info = statSync(path);
        out.push(`${relative(dir, path)} ${info.size} ${info.mtimeMs}`);
      }
    }
  };
  walk(dir);
  return out.sort().join('\n');
}

/**
 * A copy of the renderer build for one session. The page loads some chunks lazily (the code
 * editor), so a `npm run build` elsewhere while a test runs would pull them from under the page;
 * the copy is taken when no build is writing (the listing is the same before and after).
 */
async function snapshotRenderer(into: string): Promise<string> {
  const built = rendererDir(findPackageRoot());
  const start = Date.now();
  for (;;) {
    if (existsSync(join(built, 'index.html'))) {
      const before = listing(built);
      rmSync(into, { recursive: true, force: true });
      cpSync(built, into, { recursive: true, filter: (path) => !path.endsWith('.map') });
      if (existsSync(join(built, 'index.html')) && listing(built) === before) return into;
    } else if (Date.now() - start > 10_000) {
      // Not built (nor being built): let the server say so, as `npm run web` would.
      return built;
    }
    if (Date.now() - start > 30_000)
      throw new Error(`${built} kept changing for 30 s: is a build running in a loop?`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

export interface AppSession {
  readonly page: Page;
  readonly server: WebServer;
  /** A scratch directory for files the test saves or opens. */
  readonly workDir: string;
  /** The folder the designer was started from (empty): where its file dialogs start for a new job. */
  readonly startDir: string;
  /** Errors the page logged or threw: a test fails on any of them. */
  readonly pageErrors: string[];
  screenshot(name: string): Promise<void>;
  close(): Promise<void>;
}

export async function openApp(
  options: { initialFile?: string; width?: number; height?: number } = {},
): Promise<AppSession> {
  const root = mkdtempSync(join(tmpdir(), 'pipewright-e2e-'));
  const workDir = join(root, 'work');
  mkdirSync(workDir);
  const startDir = join(root, 'start');
  mkdirSync(startDir);
  const server = await startWebServer({
    dataDir: join(root, 'data'),
    startDir,
    initialFile: options.initialFile,
    rendererDir: await snapshotRenderer(join(root, 'renderer')),
  });
  const b = await launchBrowser();
  const context = await b.newContext({
    viewport: { width: options.width ?? 1440, height: options.height ?? 900 },
  });
  const page = await context.newPage();
  const pageErrors: string[] = [];
  page.on('pageerror', (e) => pageErrors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error') pageErrors.push(m.text());
  });
  await page.goto(server.url);
  // The page's load event comes before React has drawn the app: a test that looks first (is the
  // start screen showing?) must not see an empty page. One of the two screens is always drawn.
  await page
    .getByRole('main', { name: 'Start' })
    .or(page.getByRole('toolbar', { name: 'Tools' }))
    .first()
    .waitFor({ timeout: 60_000 });
  mkdirSync(ARTIFACTS, { recursive: true });
  return {
    page,
    server,
    workDir,
    startDir,
    pageErrors,
    async screenshot(name) {
      await page.screenshot({ path: join(ARTIFACTS, `${name}.png`) });
    },
    async close() {
      await context.close();
      await server.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
