// Following a record through owner-has-items with the debugger's one-click controls: a breakpoint
// set from an operator's context menu on the canvas (right-click → "Break on this operator"),
// Debug stopping at the first record that operator takes (the first record the source made:
// a debug run follows it through the job before the source reads the next), the breakpoint
// toggled off from the same menu, then "Run to next operator" (Shift+F11 and the toolbar)
// stopping where a record reaches another operator.
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, test } from 'vitest';
import type { AppSession } from './appHarness.js';
import { eventually, expectNoPageErrors, operator, sessionPerFile } from './helpers.js';
import {
  EXAMPLE,
  enabledRunButtons,
  expectStatus,
  openTab,
  parseEvents,
  runButton,
  runToolbar,
  saveBeforeRunning,
} from './runSupport.js';

const EVENTS = parseEvents(readFileSync(join(EXAMPLE, 'events.jsonl'), 'utf8'));

let session: AppSession;
sessionPerFile((opened) => {
  session = opened;
});

const debuggerPanel = () => session.page.getByRole('tabpanel', { name: 'Debugger' });
const breakpointList = () => debuggerPanel().getByRole('list', { name: 'Breakpoint list' });
const heading = () =>
  debuggerPanel().getByRole('article', { name: 'Current step' }).getByRole('heading', { level: 3 });

/** Right-clicks the operator's card; its context menu's "Break on this operator" item. */
async function breakItem(page: Page, id: string) {
  await operator(page, id).click({ button: 'right' });
  const menu = page.getByRole('menu', { name: `Operator ${id}` });
  await menu.waitFor();
  return menu.getByRole('menuitemcheckbox', { name: 'Break on this operator' });
}

/** The step the Debugger panel shows, as its heading says it: "Step N: op#s, kind". */
async function shown(seq: number): Promise<string> {
  let text = '';
  await eventually(async () => {
    text = (await heading().textContent()) ?? '';
    expect(text.startsWith(`Step ${seq}: `)).toBe(true);
  });
  return text;
}

describe('a breakpoint from the canvas, and Run to next operator', () => {
  test('right-click an operator → Break on this operator sets an operator breakpoint on it', async () => {
    const { page } = session;
    copyFileSync(join(EXAMPLE, 'events.jsonl'), join(session.workDir, 'events.jsonl'));
    await page.getByRole('button', { name: 'Open template owner-has-items', exact: true }).click();
    await operator(page, 'out').waitFor();
    await openTab(page, 'Debugger');

    const item = await breakItem(page, 'out');
    expect(await item.getAttribute('aria-checked')).toBe('false');
    await session.screenshot('operator-context-menu');
    await item.click();
    await page.getByRole('menu', { name: 'Operator out' }).waitFor({ state: 'detached' });
    await breakpointList().waitFor();
    expect(await breakpointList().getByRole('listitem').allInnerTexts()).toEqual([
      'bp1\nevery record at out\nRemove',
    ]);
    // The menu says it is on; Escape closes it without a change.
    expect(await (await breakItem(page, 'out')).getAttribute('aria-checked')).toBe('true');
    await page.keyboard.press('Escape');
    await page.getByRole('menu', { name: 'Operator out' }).waitFor({ state: 'detached' });
    expect(await breakpointList().getByRole('listitem').count()).toBe(1);
    expectNoPageErrors(session);
  });

  test('Debug stops at the first record the sink takes: the first the source made, two steps on', async () => {
    const { page } = session;
    await runButton(page, 'Debug').click();
    await saveBeforeRunning(page, 'owner-has-items', join(session.workDir, 'owner-has-items.job.json'));
    await expectStatus(page, 'Paused at step 3 (breakpoint bp1)');
    expect(await shown(3)).toBe('Step 3: out#0, record delivered');
    const record = async () =>
      JSON.parse(
        (await debuggerPanel().getByRole('region', { name: 'Record' }).locator('pre').textContent()) ?? '',
      ) as unknown;
    expect(await record()).toMatchObject({ event: 'owned', item: EVENTS[0]!.item, seq: EVENTS[0]!.seq });
    // Back over the two steps before: the keyed operator took that record, the source made it.
    await page.keyboard.press('Shift+F10');
    await expectStatus(page, 'Paused at step 2');
    expect(await shown(2)).toMatch(/^Step 2: owners#\d, record delivered$/);
    expect(await record()).toEqual(EVENTS[0]);
    await page.keyboard.press('Shift+F10');
    await expectStatus(page, 'Paused at step 1');
    expect(await shown(1)).toBe('Step 1: events#0, record produced by the source');
    expect(await record()).toEqual(EVENTS[0]);
    await page.keyboard.press('F10');
    await page.keyboard.press('F10');
    // A step onto a breakpoint's record says so, as the run to it did.
    await expectStatus(page, 'Paused at step 3 (breakpoint bp1)');
    expect(await shown(3)).toBe('Step 3: out#0, record delivered');
    expect(await enabledRunButtons(page)).toEqual([
      'Resume',
      'Stop',
      'Step',
      'Run to next operator',
      'Step back',
      'Restart from checkpoint…',
    ]);
    expectNoPageErrors(session);
  });

  test('the same menu item, while paused, takes the breakpoint off again', async () => {
    const { page } = session;
    await (await breakItem(page, 'out')).click();
    await breakpointList().waitFor({ state: 'detached' });
    expect(await (await breakItem(page, 'out')).getAttribute('aria-checked')).toBe('false');
    await page.keyboard.press('Escape');
    expectNoPageErrors(session);
  });

  test('Run to next operator (Shift+F11, then the toolbar) stops where a record reaches another operator', async () => {
    const { page } = session;
    const button = runButton(page, 'Run to next operator');
    expect(await button.getAttribute('title')).toMatch(/\(Shift\+F11\)$/);
    // From the sink, the next record step of another operator: the source making the second record.
    await page.keyboard.press('Shift+F11');
    await expectStatus(page, 'Paused at step 4');
    expect(await shown(4)).toBe('Step 4: events#0, record produced by the source');
    await button.click();
    await expectStatus(page, 'Paused at step 5');
    expect(await shown(5)).toMatch(/^Step 5: owners#\d, record delivered$/);
    // A plain Step still goes one delivery on.
    await page.keyboard.press('F10');
    await expectStatus(page, 'Paused at step 6');
    expect(await shown(6)).toBe('Step 6: out#0, record delivered');
    // The Run menu lists it with its shortcut.
    await page.getByRole('menubar', { name: 'Main menu' }).getByRole('menuitem', { name: 'Run' }).click();
    const item = page
      .getByRole('menu', { name: 'Run' })
      .getByRole('menuitem', { name: /^Run to next operator/ });
    expect(await item.innerText()).toBe('Run to next operator\nShift+F11');
    await page.keyboard.press('Escape');
    await runButton(page, 'Stop').click();
    await expectStatus(page, 'Stopped — stopped at step 6');
    expect(await runToolbar(page).getByRole('button', { name: 'Run to next operator' }).isDisabled()).toBe(
      true,
    );
    expectNoPageErrors(session);
  });
});
