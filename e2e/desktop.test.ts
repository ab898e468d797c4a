// The desktop app itself: Electron started with a job file on its command line draws it in its
// window, with the preload's small API and the engine host behind a MessagePort. It needs the
// Electron binary and a display; where either is missing (as on the machines this is built on,
// which cannot download the binary) it is skipped, and its name says which is missing.
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { _electron } from 'playwright-core';
import { describe, expect, test } from 'vitest';
import { electronBinary, whyNoDesktop } from '../scripts/electronBinary.mjs';
import { canvasSnapshot, eventually } from './helpers.js';

const ROOT = join(import.meta.dirname, '..');
const EXAMPLE = join(ROOT, 'assets', 'examples', 'word-count', 'word-count.job.json');
const noDesktop = whyNoDesktop();
if (noDesktop !== undefined) process.stderr.write(`e2e/desktop.test.ts is skipped: ${noDesktop}.\n`);

describe('the desktop app', () => {
  test.skipIf(noDesktop !== undefined)(
    `opens the job file given on its command line${noDesktop === undefined ? '' : ` — skipped: ${noDesktop}`}`,
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'pipewright-desktop-'));
      const file = join(dir, 'word-count.job.json');
      copyFileSync(EXAMPLE, file);
      const job = JSON.parse(readFileSync(file, 'utf8')) as { operators: unknown[] };
      const env: Record<string, string> = {};
      for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value;
      delete env.ELECTRON_RUN_AS_NODE;
      env.PIPEWRIGHT_DATA_DIR = join(dir, 'data');
      const app = await _electron.launch({
        executablePath: electronBinary()!,
        // Chromium refuses to run as root with its sandbox (CI runs as root).
        args: [
          ...(process.getuid?.() === 0 ? ['--no-sandbox'] : []),
          join(ROOT, 'dist', 'electron', 'main.js'),
          file,
        ],
        env,
      });
      try {
        const page = await app.firstWindow();
        await eventually(
          async () => expect((await canvasSnapshot(page)).operators).toHaveLength(job.operators.length),
          20_000,
        );
        expect(await page.evaluate('typeof window.pipewrightDesktop')).toBe('object');
        // The page has no Node: the preload's API is all it gets.
        expect(await page.evaluate('typeof require')).toBe('undefined');
        // The window's title is the document's, set through the preload.
        await eventually(async () =>
          expect(
            await app.evaluate(({ BrowserWindow }) => BrowserWindow.getAllWindows()[0]?.getTitle()),
          ).toBe('word-count.job.json — Pipewright'),
        );
      } finally {
        await app.close();
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});
