// Where the end-to-end tests find a Chromium: PIPEWRIGHT_CHROMIUM, Debian's package, or one
// Playwright downloaded (where the internet is reachable). Shared by `npm test`'s up-front check
// and the tests themselves, so both agree.
import { existsSync } from 'node:fs';

export const CHROMIUM_HINT =
  'No Chromium for the end-to-end tests: install it with `sudo apt-get install -y chromium` (Debian/Ubuntu) or `npx playwright install chromium`, or set PIPEWRIGHT_CHROMIUM to a Chromium binary.';

export async function findChromium() {
  const candidates = [process.env.PIPEWRIGHT_CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser'];
  for (const path of candidates) if (path && existsSync(path)) return path;
  try {
    const { chromium } = await import('playwright-core');
    const own = chromium.executablePath();
    if (own && existsSync(own)) return own;
  } catch {
    // playwright-core knows no browser of its own here: fall through to the hint.
  }
  return undefined;
}
