// What the end-to-end tests do again and again, written the way a user does it: buttons by their
// accessible names, real mouse drags between React Flow handles, the keyboard for shortcuts, and
// the app's own file dialog for files on disk.
import { readFileSync, statSync } from 'node:fs';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import { type AppSession, closeBrowser, openApp } from './appHarness.js';

/** Ctrl on Linux and Windows; the app reads Cmd on macOS, where Chromium reports it as Meta. */
export const MOD = process.platform === 'darwin' ? 'Meta' : 'Control';

/** Waits until `check` passes (Playwright's expect.poll, for plain vitest). */
/**
 * How long a wait on the page may take before the test fails: a guard against a page that never
 * gets there, not an expectation of speed. What a user waits for (a dialog, a step, a status)
 * comes in milliseconds on an idle machine, and seconds on one that other work loads: the guard
 * must leave room for that (docs/testing.md, "Time").
 */
export const PATIENCE_MS = 30_000;

export async function eventually(
  check: () => unknown | Promise<unknown>,
  timeoutMs = PATIENCE_MS,
): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      await check();
      return;
    } catch (error) {
      if (Date.now() > until) throw error;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

export function exact(text: string): RegExp {
  return new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);
}

export const palette = (page: Page) => page.getByRole('complementary', { name: 'Operator palette' });
export const inspector = (page: Page) => page.getByRole('complementary', { name: 'Inspector' });
export const canvas = (page: Page) => page.getByRole('region', { name: 'Canvas' });
export const toolbar = (page: Page) => page.getByRole('toolbar', { name: 'Tools' });
export const problemsTab = (page: Page) => page.getByRole('tab', { name: /^Problems/ });
export const problemList = (page: Page) => page.getByRole('list', { name: 'Problems' });

/** The palette button of a kind, e.g. "source.jsonl". */
export function paletteItem(page: Page, kind: string): Locator {
  return palette(page).getByRole('button', {
    name: new RegExp(`^Add .* \\(${kind.replace('.', '\\.')}\\)$`),
  });
}

/** An operator on the canvas, by its id (React Flow names it "Operator ID, Kind, parallelism N"). */
export function operator(page: Page, id: string): Locator {
  return canvas(page).getByRole('group', { name: new RegExp(`^Operator ${id}, `) });
}

/** An edge on the canvas, by its id ("Edge ID from A to B, partition"). */
export function edge(page: Page, id: string): Locator {
  return canvas(page).getByRole('group', { name: new RegExp(`^Edge ${id} from `) });
}

export async function operatorNames(page: Page): Promise<string[]> {
  return canvas(page)
    .getByRole('group', { name: /^Operator / })
    .evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') ?? ''));
}

export async function edgeNames(page: Page): Promise<string[]> {
  return canvas(page)
    .getByRole('group', { name: /^Edge / })
    .evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') ?? ''));
}

/** The operator's position on the canvas in flow coordinates, as React Flow places it. */
export async function positionOf(page: Page, id: string): Promise<{ x: number; y: number }> {
  const transform = await operator(page, id).evaluate(
    (e: { style: { transform: string } }) => e.style.transform,
  );
  const m = /translate\((-?[\d.]+)px, (-?[\d.]+)px\)/.exec(transform);
  if (m === null) throw new Error(`no position in ${transform}`);
  return { x: Number(m[1]), y: Number(m[2]) };
}

async function centreOf(locator: Locator): Promise<{ x: number; y: number }> {
  const box = await locator.boundingBox();
  if (box === null) throw new Error('not visible');
  return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
}

/** Adds a kind by dragging it from the palette to a point of the canvas (screen coordinates). */
export async function dropFromPalette(page: Page, kind: string, at: { x: number; y: number }): Promise<void> {
  const pane = page.locator('.react-flow__pane');
  const box = await pane.boundingBox();
  if (box === null) throw new Error('no canvas pane');
  await paletteItem(page, kind).dragTo(pane, { targetPosition: { x: at.x - box.x, y: at.y - box.y } });
}

/** Drags a new edge from an output handle of one operator to the input handle of another. */
export async function connect(page: Page, from: string, to: string, port = 'out'): Promise<void> {
  const source = operator(page, from).locator(`.react-flow__handle[data-handleid="${port}"]`);
  const target = operator(page, to).locator('.react-flow__handle[data-handleid="in"]');
  const a = await centreOf(source);
  const b = await centreOf(target);
  await page.mouse.move(a.x, a.y);
  await page.mouse.down();
  await page.mouse.move(b.x, b.y, { steps: 12 });
  await page.mouse.up();
}

/** Drags an operator by its title bar by (dx, dy) screen pixels. */
export async function dragOperator(page: Page, id: string, dx: number, dy: number): Promise<void> {
  const head = operator(page, id).locator('.op-head');
  const a = await centreOf(head);
  await page.mouse.move(a.x, a.y);
  await page.mouse.down();
  await page.mouse.move(a.x + dx, a.y + dy, { steps: 10 });
  await page.mouse.up();
}

/** What the tests use of an SVG path element (the e2e code is compiled without the DOM's types). */
interface EdgePath {
  getTotalLength(): number;
  getPointAtLength(at: number): { x: number; y: number };
  getScreenCTM(): { a: number; b: number; c: number; d: number; e: number; f: number };
}

/** A point on an edge's drawn path (a third of the way along, clear of its label), in screen coordinates. */
export async function pointOnEdge(page: Page, id: string): Promise<{ x: number; y: number }> {
  return edge(page, id)
    .locator('path.react-flow__edge-interaction')
    .evaluate((path: EdgePath) => {
      const p = path.getPointAtLength(path.getTotalLength() / 3);
      const m = path.getScreenCTM();
      return { x: m.a * p.x + m.c * p.y + m.e, y: m.b * p.x + m.d * p.y + m.f };
    });
}

/** Clicks an edge's line on the canvas, which selects it. */
export async function clickEdge(page: Page, id: string): Promise<void> {
  const p = await pointOnEdge(page, id);
  await page.mouse.click(p.x, p.y);
}

/** Clicks an empty spot of the canvas (top left corner of the pane), which clears the selection. */
export async function clickEmptyCanvas(page: Page): Promise<void> {
  await page.locator('.react-flow__pane').click({ position: { x: 12, y: 12 } });
}

/** Replaces a text field's value by typing, as a user does: select all, type, then Tab away. */
export async function typeInto(
  field: Locator,
  text: string,
  commit: 'Tab' | 'Enter' | 'none' = 'Tab',
): Promise<void> {
  await field.click();
  await field.press(`${MOD}+A`);
  await field.pressSequentially(text);
  if (commit !== 'none') await field.press(commit);
}

/** The dialog the app opens for files (the browser form's own: a path field and Save/Open). */
export function fileDialog(page: Page, title: string): Locator {
  return page.getByRole('dialog', { name: title });
}

/** Answers an open file dialog with a path typed into its "File path" field. */
export async function answerFileDialog(
  page: Page,
  title: string,
  path: string,
  button: 'Save' | 'Open',
): Promise<void> {
  const dialog = fileDialog(page, title);
  await dialog.waitFor();
  const field = dialog.getByLabel('File path');
  await field.fill(path);
  await dialog.getByRole('button', { name: button, exact: true }).click();
  await dialog.waitFor({ state: 'detached' });
}

/** The file's identity on disk: the app saves by renaming a new file over the old one. */
export function fileStamp(path: string): string {
  try {
    const info = statSync(path);
    return `${info.ino}:${info.mtimeMs}:${info.size}`;
  } catch {
    return 'absent';
  }
}

/**
 * Saves through Ctrl+S and waits until `file` has been written; the first save of a document
 * asks where, and `dialogPath` is typed into that dialog.
 */
export async function saveWithShortcut(page: Page, file: string, dialogPath?: string): Promise<void> {
  const before = fileStamp(file);
  await page.keyboard.press(`${MOD}+S`);
  if (dialogPath !== undefined) await answerFileDialog(page, 'Save job as', dialogPath, 'Save');
  await eventually(() => expect(fileStamp(file)).not.toBe(before));
  await eventually(async () =>
    expect(await page.getByRole('status', { name: 'Unsaved changes' }).count()).toBe(0),
  );
}

/** Opens a file through Ctrl+O and the app's file dialog. */
export async function openWithShortcut(page: Page, path: string): Promise<void> {
  await page.keyboard.press(`${MOD}+O`);
  await answerFileDialog(page, 'Open job', path, 'Open');
}

/** Runs a menu bar command, e.g. menu(page, 'File', 'Save As…'). */
export async function menu(page: Page, top: string, item: string): Promise<void> {
  const bar = page.getByRole('menubar', { name: 'Main menu' });
  await bar.getByRole('menuitem', { name: top, exact: true }).click();
  await page
    .getByRole('menu', { name: top })
    .getByRole('menuitem', { name: new RegExp(`^${item.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`) })
    .click();
}

export function readText(path: string): string {
  return readFileSync(path, 'utf8');
}

/** The problem messages the Problems panel lists (empty when it says "No problems"). */
export async function problemMessages(page: Page): Promise<string[]> {
  if ((await problemList(page).count()) === 0) return [];
  return problemList(page).locator('.problem-message').allInnerTexts();
}

export async function expectNoProblems(page: Page): Promise<void> {
  await eventually(async () =>
    expect(
      await page
        .getByRole('tabpanel', { name: /^Problems/ })
        .getByRole('status')
        .innerText(),
    ).toContain('No problems'),
  );
}

/** Every test ends here: the page logged no error and threw nothing. */
export function expectNoPageErrors(session: AppSession): void {
  expect(session.pageErrors).toEqual([]);
}

/** Interactive roles that must carry an accessible name. */
const CONTROL_ROLES = new Set([
  'button',
  'checkbox',
  'combobox',
  'link',
  'listbox',
  'menuitem',
  'menuitemcheckbox',
  'menuitemradio',
  'option',
  'radio',
  'searchbox',
  'slider',
  'spinbutton',
  'switch',
  'tab',
  'textbox',
]);

export interface AccessibleControl {
  readonly role: string;
  readonly name: string;
}

/**
 * Every control in Chromium's accessibility tree with the name assistive technology would
 * announce for it, read through the DevTools protocol.
 */
export async function accessibleControls(page: Page): Promise<AccessibleControl[]> {
  const cdp = await page.context().newCDPSession(page);
  try {
    await cdp.send('Accessibility.enable');
    const { nodes } = await cdp.send('Accessibility.getFullAXTree');
    return nodes
      .filter((node) => !node.ignored && CONTROL_ROLES.has(String(node.role?.value ?? '')))
      .map((node) => ({ role: String(node.role?.value), name: String(node.name?.value ?? '').trim() }));
  } finally {
    await cdp.detach();
  }
}

/** The controls without an accessible name; fails if the tree shows none at all (it was not read). */
export async function unnamedControls(page: Page): Promise<AccessibleControl[]> {
  const controls = await accessibleControls(page);
  expect(controls.length).toBeGreaterThan(0);
  return controls.filter((c) => c.name === '');
}

/** What the canvas shows of the document: operators and edges as named, and where each operator is. */
export interface CanvasSnapshot {
  readonly operators: string[];
  readonly edges: string[];
  readonly positions: Record<string, { x: number; y: number }>;
}

export async function canvasSnapshot(page: Page): Promise<CanvasSnapshot> {
  const operators = await operatorNames(page);
  const positions: Record<string, { x: number; y: number }> = {};
  for (const name of operators) {
    const id = /^Operator ([^,]+),/.exec(name)?.[1];
    if (id !== undefined) positions[id] = await positionOf(page, id);
  }
  return { operators, edges: await edgeNames(page), positions };
}

/** Whether the title bar shows the unsaved-changes mark. */
export async function isMarkedUnsaved(page: Page): Promise<boolean> {
  return (await page.getByRole('status', { name: 'Unsaved changes' }).count()) === 1;
}

/** Whether the element has the keyboard focus. */
export async function isFocused(locator: Locator): Promise<boolean> {
  return locator.evaluate(
    (e: { ownerDocument: { activeElement: unknown } }) => e === e.ownerDocument.activeElement,
  );
}

/**
 * On a failed test, a screenshot (e2e/artifacts/failed-NAME.png) and what the page said, so a
 * failure in CI can be understood without running it again.
 */
/**
 * The one app session of a test file: opened before its tests, closed with the browser after
 * them, and a failed test leaves a screenshot and the page's errors (reportFailures).
 */
export function sessionPerFile(opened: (session: AppSession) => void): void {
  let session: AppSession | undefined;
  beforeAll(async () => {
    session = await openApp();
    session.page.setDefaultTimeout(PATIENCE_MS);
    opened(session);
  });
  afterAll(async () => {
    await session?.close();
    await closeBrowser();
  });
  reportFailures(() => session);
}

function reportFailures(session: () => AppSession | undefined): void {
  beforeEach(({ task, onTestFailed }) => {
    onTestFailed(async () => {
      const s = session();
      if (s === undefined) return;
      const name = `failed-${task.name.replace(/[^\w-]+/g, '-').slice(0, 80)}`;
      await s.screenshot(name).catch(() => undefined);
      console.error(
        `[${task.name}] page ${s.page.url().replace(/token=\w+/, 'token=…')}; errors: ${JSON.stringify(s.pageErrors)}; screenshot e2e/artifacts/${name}.png`,
      );
    });
  });
}
