// The workbench's layout and the canvas's drawing as a new user meets them on a 1600×1000
// window: bottom panels tall enough for the Debugger and as tall as the user left them after a
// reload; a job written by hand opening unmodified with nothing to undo; and the two edges of a
// two-operator cycle drawn apart, both labels readable and the "closes a cycle" note clear of
// the card it is dragged to.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { describe, expect, test } from 'vitest';
import type { AppSession } from './appHarness.js';
import {
  answerFileDialog,
  canvas,
  connect,
  dragOperator,
  edge,
  edgeNames,
  eventually,
  expectNoPageErrors,
  isMarkedUnsaved,
  MOD,
  operator,
  paletteItem,
  sessionPerFile,
  toolbar,
} from './helpers.js';

let session: AppSession;

sessionPerFile((opened) => {
  session = opened;
});

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

function centre(b: Box): { x: number; y: number } {
  return { x: b.x + b.width / 2, y: b.y + b.height / 2 };
}

/** The title and id lines of every card on the canvas. */
async function cardTitles(page: Page): Promise<Box[]> {
  const heads = canvas(page).locator('.op-card .op-head, .op-card .op-id');
  return Promise.all((await heads.all()).map(box));
}

const panels = (page: Page) => page.locator('.bottom-panels');
const undoButton = (page: Page) => toolbar(page).getByRole('button', { name: 'Undo' });

async function newJob(page: Page): Promise<void> {
  const start = page.getByRole('button', { name: 'New job' });
  const fromToolbar = toolbar(page).getByRole('button', { name: 'New', exact: true });
  // Whichever the page shows once it has rendered (a reload on a loaded machine may not have yet):
  // the start screen's button, or the editor's toolbar's.
  await start.or(fromToolbar).first().click();
  await canvas(page).waitFor();
}

describe('the bottom panels', () => {
  test('at 1600×1000 they open tall enough for the Debugger and State panels', async () => {
    const { page } = session;
    await page.setViewportSize({ width: 1600, height: 1000 });
    await newJob(page);
    const height = (await box(panels(page))).height;
    expect(height).toBeGreaterThanOrEqual(300);
    // The canvas keeps the larger part of the window.
    expect(height).toBeLessThanOrEqual(450);
    await page.getByRole('tab', { name: 'Debugger' }).click();
    await session.screenshot('panels-default-1600x1000');
    expectNoPageErrors(session);
  });

  test('a height dragged with the splitter is kept across a reload', async () => {
    const { page } = session;
    const before = (await box(panels(page))).height;
    const bar = centre(await box(page.getByRole('separator', { name: 'Resize panels' })));
    await page.mouse.move(bar.x, bar.y);
    await page.mouse.down();
    await page.mouse.move(bar.x, bar.y - 120, { steps: 6 });
    await page.mouse.up();
    const dragged = (await box(panels(page))).height;
    expect(Math.abs(dragged - (before + 120))).toBeLessThanOrEqual(1);
    await page.reload();
    await newJob(page);
    expect((await box(panels(page))).height).toBe(dragged);
    expectNoPageErrors(session);
  });
});

describe('a job file without editor positions', () => {
  test('opens unmodified, with nothing to undo; an edit marks it and undoing the edit clears the mark', async () => {
    const { page } = session;
    // As a person or another tool writes a job: its own key order and indentation, no final
    // newline, and no "editor" (the canvas lays it out).
    const path = join(session.workDir, 'handwritten.job.json');
    writeFileSync(
      path,
      [
        '{',
        '    "name": "handwritten",',
        '    "format": "pipewright.job/1",',
        '    "operators": [',
        '        { "kind": "source.jsonl", "id": "in", "params": { "path": "in.jsonl" } },',
        '        { "kind": "sink.jsonl", "id": "out", "params": { "path": "out.jsonl" } }',
        '    ],',
        '    "edges": [ { "partition": "forward", "from": "in", "to": "out", "id": "e1" } ]',
        '}',
      ].join('\n'),
    );
    await toolbar(page).getByRole('button', { name: 'Open', exact: true }).click();
    await answerFileDialog(page, 'Open job', path, 'Open');
    await operator(page, 'out').waitFor();
    await eventually(async () => expect(await page.title()).toBe('handwritten.job.json — Pipewright'));
    expect(await isMarkedUnsaved(page)).toBe(false);
    expect(await undoButton(page).isDisabled()).toBe(true);

    await dragOperator(page, 'out', 0, 100);
    await eventually(async () => expect(await isMarkedUnsaved(page)).toBe(true));
    expect(await undoButton(page).isDisabled()).toBe(false);
    await page.keyboard.press(`${MOD}+Z`);
    await eventually(async () => expect(await isMarkedUnsaved(page)).toBe(false));
    expect(await undoButton(page).isDisabled()).toBe(true);
    expectNoPageErrors(session);
  });
});

/** What the tests use of an SVG path element (the e2e code is compiled without the DOM's types). */
interface PathElement {
  getTotalLength(): number;
  getPointAtLength(at: number): { x: number; y: number };
}

/** Points along an edge's drawn line, in the canvas's own coordinates. */
async function pathPoints(page: Page, id: string, count: number): Promise<{ x: number; y: number }[]> {
  return edge(page, id)
    .locator('path.react-flow__edge-path')
    .evaluate((path: PathElement, n: number) => {
      const length = path.getTotalLength();
      return Array.from({ length: n + 1 }, (_, k) => {
        const p = path.getPointAtLength((length * k) / n);
        return { x: p.x, y: p.y };
      });
    }, count);
}

/** How much of edge `a`'s line runs within 3 px of edge `b`'s. */
async function sharedShare(page: Page, a: string, b: string): Promise<number> {
  const mine = await pathPoints(page, a, 100);
  const theirs = await pathPoints(page, b, 1000);
  const near = mine.filter((p) => theirs.some((q) => Math.hypot(p.x - q.x, p.y - q.y) < 3));
  return near.length / mine.length;
}

/** The label of an edge, and whether it is what is drawn at its own centre (nothing covers it). */
async function label(page: Page, id: string): Promise<{ box: Box; onTop: boolean }> {
  const rect = edge(page, id).locator('.edge-label rect');
  const b = await box(rect);
  const { x, y } = centre(b);
  const onTop = await rect.evaluate(
    (
      element: {
        ownerDocument: { elementFromPoint(x: number, y: number): { closest(s: string): unknown } | null };
        closest(s: string): unknown;
      },
      at: { x: number; y: number },
    ) =>
      element.ownerDocument.elementFromPoint(at.x, at.y)?.closest('.edge-label') ===
      element.closest('.edge-label'),
    { x, y },
  );
  return { box: b, onTop };
}

/** Both edges' labels are drawn, on top, apart from each other and off every card. */
async function expectLabelsClear(page: Page, ids: readonly string[]): Promise<void> {
  const cards = await Promise.all((await canvas(page).locator('.op-card').all()).map(box));
  const labels = await Promise.all(ids.map((id) => label(page, id)));
  for (const [k, l] of labels.entries()) {
    expect(l.onTop, `label of ${ids[k]} is covered`).toBe(true);
    for (const card of cards) expect(overlaps(l.box, card), `label of ${ids[k]} is on a card`).toBe(false);
    for (const other of labels.slice(k + 1)) expect(overlaps(l.box, other.box)).toBe(false);
  }
}

describe('a two-operator cycle', () => {
  test('the "closes a cycle" note leaves the cards’ titles and the labels readable while the line is dragged', async () => {
    const { page } = session;
    await newJob(page);
    // Two clicks in the palette: the second card lands right above or below the first.
    await paletteItem(page, 'process').click();
    await operator(page, 'process1').waitFor();
    await paletteItem(page, 'map').click();
    await operator(page, 'map1').waitFor();
    const [p, m] = [await box(operator(page, 'process1')), await box(operator(page, 'map1'))];
    expect(Math.abs(p.x - m.x)).toBeLessThan(5);
    await connect(page, 'process1', 'map1');
    await eventually(async () => expect(await edgeNames(page)).toHaveLength(1));

    const from = centre(
      await box(operator(page, 'map1').locator('.react-flow__handle[data-handleid="out"]')),
    );
    const to = centre(
      await box(operator(page, 'process1').locator('.react-flow__handle[data-handleid="in"]')),
    );
    await page.mouse.move(from.x, from.y);
    await page.mouse.down();
    await page.mouse.move(to.x, to.y, { steps: 15 });
    const note = canvas(page).getByText('closes a cycle: will need to be a feedback edge');
    await note.waitFor();
    await session.screenshot('cycle-note-while-dragging');
    const noteBox = await box(note);
    for (const title of await cardTitles(page)) expect(overlaps(noteBox, title)).toBe(false);
    expect(overlaps(noteBox, (await label(page, 'e1')).box)).toBe(false);
    await page.mouse.up();
    await eventually(async () => expect(await edgeNames(page)).toHaveLength(2));
    expectNoPageErrors(session);
  });

  test('its two edges run apart and both labels are readable, stacked or side by side', async () => {
    const { page } = session;
    expect(await edgeNames(page)).toEqual([
      'Edge e1 from process1 to map1, forward',
      'Edge e2 from map1 to process1, forward',
    ]);
    await session.screenshot('cycle-stacked');
    expect(await sharedShare(page, 'e1', 'e2')).toBeLessThan(0.1);
    expect(await sharedShare(page, 'e2', 'e1')).toBeLessThan(0.1);
    await expectLabelsClear(page, ['e1', 'e2']);
    // The new edge is selected and offers its fix; the button covers no label and no title.
    const button = await box(canvas(page).getByRole('button', { name: 'Make e2 a feedback edge' }));
    for (const id of ['e1', 'e2']) expect(overlaps(button, (await label(page, id)).box)).toBe(false);
    for (const title of await cardTitles(page)) expect(overlaps(button, title)).toBe(false);

    // Laid out left to right, one edge goes straight across and the other back round.
    await toolbar(page).getByRole('button', { name: 'Auto layout' }).click();
    await eventually(async () => {
      const [a, b] = [await box(operator(page, 'process1')), await box(operator(page, 'map1'))];
      expect(Math.abs(a.y - b.y)).toBeLessThan(5);
    });
    await page.waitForTimeout(300);
    await session.screenshot('cycle-side-by-side');
    expect(await sharedShare(page, 'e1', 'e2')).toBeLessThan(0.1);
    await expectLabelsClear(page, ['e1', 'e2']);
    expectNoPageErrors(session);
  });
});
