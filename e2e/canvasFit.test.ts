// Every example and NEXMark job as it opens on a 1400×900 window: fitted at a zoom where the
// canvas's smallest text is still 10 px on screen (fitted further out, a five-operator chain
// read at about 5 px), the sources in view, and the minimap over no operator; the minimap can
// be hidden; a bottom panel dragged taller keeps the graph in view; and an edge into a
// transaction reads what the planner does with it (every record to every subtask).
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { describe, expect, test } from 'vitest';
import type { AppSession } from './appHarness.js';
import {
  answerFileDialog,
  canvas,
  edge,
  edgeNames,
  eventually,
  expectNoPageErrors,
  MOD,
  operator,
  sessionPerFile,
} from './helpers.js';

let session: AppSession;

sessionPerFile((opened) => {
  session = opened;
});

const ASSETS = join(import.meta.dirname, '..', 'assets');
const EXAMPLES = readdirSync(join(ASSETS, 'examples'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .flatMap((entry) =>
    readdirSync(join(ASSETS, 'examples', entry.name))
      .filter((name) => name.endsWith('.job.json'))
      .map((name) => join(ASSETS, 'examples', entry.name, name)),
  );
const NEXMARK = readdirSync(join(ASSETS, 'nexmark'))
  .filter((name) => name.endsWith('.job.json'))
  .map((name) => join(ASSETS, 'nexmark', name));
const JOBS = [...EXAMPLES, ...NEXMARK].sort();

interface Box {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

async function box(locator: Locator): Promise<Box> {
  const b = await locator.boundingBox();
  if (b === null) throw new Error('not visible');
  return b;
}

function overlaps(a: Box, b: Box): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

function inside(a: Box, outer: Box): boolean {
  return (
    a.x >= outer.x &&
    a.y >= outer.y &&
    a.x + a.width <= outer.x + outer.width &&
    a.y + a.height <= outer.y + outer.height
  );
}

const canvasArea = (page: Page) => page.getByRole('region', { name: 'Canvas' });
const minimap = (page: Page) => page.locator('.react-flow__minimap');

/** Opens a job file through Ctrl+O, whatever was open before (nothing here is edited). */
async function open(page: Page, path: string): Promise<void> {
  const start = page.getByRole('button', { name: 'Open job file…' });
  if (await start.isVisible()) await start.click();
  else await page.keyboard.press(`${MOD}+O`);
  await answerFileDialog(page, 'Open job', path, 'Open');
  const name = path.split('/').pop()!;
  await eventually(async () => expect(await page.title()).toBe(`${name} — Pipewright`));
  await canvas(page).locator('.react-flow__node').first().waitFor();
  // Fitted once the cards are measured.
  await page.waitForTimeout(200);
}

/**
 * The smallest text on screen among the canvas's cards and edge labels in view: its font size
 * times the canvas's zoom. Zoomed far out the cards are blocks with no text, which counts as 0.
 */
async function smallestText(page: Page): Promise<{ zoom: number; smallest: number; texts: number }> {
  return page.evaluate(`(() => {
    const area = document.querySelector('section[aria-label="Canvas"]').getBoundingClientRect();
    const viewport = document.querySelector('.react-flow__viewport');
    const zoom = new DOMMatrix(getComputedStyle(viewport).transform).a;
    const cards = [...document.querySelectorAll('.react-flow__node')];
    if (document.querySelectorAll('.op-far').length > 0) return { zoom, smallest: 0, texts: 0 };
    let smallest = Infinity;
    let texts = 0;
    const elements = document.querySelectorAll('.react-flow__node .op-card *, .edge-label text');
    for (const e of elements) {
      const own = [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim() !== '');
      if (!own) continue;
      const r = e.getBoundingClientRect();
      if (r.width === 0 || r.right < area.left || r.left > area.right || r.bottom < area.top || r.top > area.bottom) continue;
      texts++;
      smallest = Math.min(smallest, parseFloat(getComputedStyle(e).fontSize) * zoom);
    }
    return { zoom, smallest, texts, cards: cards.length };
  })()`);
}

async function operatorBoxes(page: Page): Promise<Box[]> {
  return Promise.all((await canvas(page).locator('.react-flow__node').all()).map(box));
}

describe('every example and NEXMark job at 1400×900', () => {
  test.each(JOBS.map((path) => [path.slice(ASSETS.length + 1), path]))(
    '%s opens readable, its sources in view, the minimap over no operator',
    async (_name, path) => {
      const { page } = session;
      await page.setViewportSize({ width: 1400, height: 900 });
      await open(page, path);
      for (const how of ['as opened', 'fitted with F']) {
        if (how !== 'as opened') {
          await page.keyboard.press('f');
          await page.waitForTimeout(300);
        }
        const text = await smallestText(page);
        expect(text.texts, how).toBeGreaterThan(0);
        expect(text.smallest, `${how}: smallest text at zoom ${text.zoom}`).toBeGreaterThanOrEqual(10);
        const area = await box(canvasArea(page));
        const boxes = await operatorBoxes(page);
        // The leftmost operator (the job's sources) is all in view.
        const leftmost = boxes.reduce((a, b) => (b.x < a.x ? b : a));
        expect(inside(leftmost, area), how).toBe(true);
        const map = await box(minimap(page));
        for (const b of boxes) expect(overlaps(b, map), `${how}: the minimap covers an operator`).toBe(false);
      }
      await session.screenshot(`fit-${path.split('/').pop()!.replace('.job.json', '')}`);
      expectNoPageErrors(session);
    },
  );
});

describe('the minimap', () => {
  test('can be hidden and shown again, and is as the user left it after a reload', async () => {
    const { page } = session;
    await open(page, join(ASSETS, 'examples', 'ledger', 'ledger.job.json'));
    await minimap(page).waitFor();
    await canvasArea(page).getByRole('button', { name: 'Hide minimap' }).click();
    await minimap(page).waitFor({ state: 'detached' });
    await page.reload();
    await page.getByRole('button', { name: /^ledger\.job\.json/ }).click();
    await operator(page, 'aborted').waitFor();
    expect(await minimap(page).count()).toBe(0);
    await canvasArea(page).getByRole('button', { name: 'Show minimap' }).click();
    await minimap(page).waitFor();
    expectNoPageErrors(session);
  });
});

describe('the bottom panels dragged taller', () => {
  test('keep the fitted graph in view, clear of the minimap', async () => {
    const { page } = session;
    await open(page, join(ASSETS, 'examples', 'ledger', 'ledger.job.json'));
    const area = await box(canvasArea(page));
    for (const b of await operatorBoxes(page)) expect(inside(b, area)).toBe(true);
    const bar = await box(page.getByRole('separator', { name: 'Resize panels' }));
    await page.mouse.move(bar.x + bar.width / 2, bar.y + bar.height / 2);
    await page.mouse.down();
    await page.mouse.move(bar.x + bar.width / 2, bar.y - 200, { steps: 6 });
    await page.mouse.up();
    await eventually(async () =>
      expect((await box(canvasArea(page))).height).toBeLessThan(area.height - 150),
    );
    await page.waitForTimeout(300);
    await session.screenshot('panels-dragged-taller');
    const smaller = await box(canvasArea(page));
    const map = await box(minimap(page));
    for (const b of await operatorBoxes(page)) {
      expect(inside(b, smaller)).toBe(true);
      expect(overlaps(b, map)).toBe(false);
    }
    expectNoPageErrors(session);
  });
});

describe('an edge into a transaction', () => {
  test('reads broadcast, as the engine plans it, whatever partitioning the file gives it', async () => {
    const { page } = session;
    await open(page, join(ASSETS, 'examples', 'ledger', 'ledger.job.json'));
    await eventually(async () =>
      expect(await edgeNames(page)).toContain('Edge transfers-to-ledger from transfers to ledger, broadcast'),
    );
    expect(await edge(page, 'transfers-to-ledger').locator('.edge-label text').textContent()).toBe(
      'broadcast',
    );
    expectNoPageErrors(session);
  });
});
