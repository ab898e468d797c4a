// Accessibility as the contract the other tests rely on: every control on every main screen has
// an accessible name as Chromium's accessibility tree computes it; the bottom panels are tabs
// named Problems, Debugger, State, Checkpoints and Metrics, worked with the arrow keys; the menus
// work from the keyboard. And the browser form's host answers only a page that has this start's token.
import { describe, expect, test } from 'vitest';
import type { AppSession } from './appHarness.js';
import {
  accessibleControls,
  clickEdge,
  clickEmptyCanvas,
  expectNoPageErrors,
  fileDialog,
  inspector,
  isFocused,
  MOD,
  operator,
  sessionPerFile,
  toolbar,
  unnamedControls,
} from './helpers.js';

let session: AppSession;

sessionPerFile((opened) => {
  session = opened;
});

describe('every control has an accessible name', () => {
  test('on the start screen', async () => {
    const { page } = session;
    await page
      .getByRole('button', { name: /^Open template / })
      .first()
      .waitFor();
    expect(await unnamedControls(page)).toEqual([]);
    // The tree was really read: it holds the start screen's buttons by their names.
    const controls = await accessibleControls(page);
    expect(controls).toContainEqual({ role: 'button', name: 'New job' });
    expect(controls).toContainEqual({ role: 'button', name: 'Open template word-count' });
    expectNoPageErrors(session);
  });

  test('on the workbench, with the job, an operator with code, and an edge in the inspector', async () => {
    const { page } = session;
    await page.getByRole('button', { name: 'Open template owner-has-items', exact: true }).click();
    await operator(page, 'owners').waitFor();
    await inspector(page).getByRole('heading', { name: 'Job' }).waitFor();
    expect(await unnamedControls(page)).toEqual([]);

    await operator(page, 'owners').click();
    await inspector(page).getByRole('textbox', { name: 'Code' }).waitFor();
    expect(await unnamedControls(page)).toEqual([]);
    expect(await accessibleControls(page)).toContainEqual({ role: 'textbox', name: 'Code' });

    await clickEdge(page, 'transfer');
    await inspector(page).getByRole('heading', { name: 'Edge transfer' }).waitFor();
    expect(await unnamedControls(page)).toEqual([]);
    expectNoPageErrors(session);
  });

  test('in the open menus, the file dialog and the unsaved-changes prompt', async () => {
    const { page } = session;
    const bar = page.getByRole('menubar', { name: 'Main menu' });
    for (const name of ['File', 'Edit', 'View', 'Help']) {
      await bar.getByRole('menuitem', { name, exact: true }).click();
      await page.getByRole('menu', { name }).waitFor();
      expect(await unnamedControls(page)).toEqual([]);
      // Escape closes it and gives the focus back to its entry in the bar.
      await page.keyboard.press('Escape');
      await page.getByRole('menu', { name }).waitFor({ state: 'detached' });
      expect(await isFocused(bar.getByRole('menuitem', { name, exact: true }))).toBe(true);
    }

    await clickEmptyCanvas(page);
    await page.keyboard.press(`${MOD}+Shift+S`);
    const dialog = fileDialog(page, 'Save job as');
    await dialog.waitFor();
    expect(await unnamedControls(page)).toEqual([]);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });

    await toolbar(page).getByRole('button', { name: 'New', exact: true }).click();
    const prompt = page.getByRole('dialog', { name: 'Unsaved changes' });
    await prompt.waitFor();
    expect(await unnamedControls(page)).toEqual([]);
    await prompt.getByRole('button', { name: 'Cancel' }).click();
    await prompt.waitFor({ state: 'detached' });
    expectNoPageErrors(session);
  });
});

describe('keyboard', () => {
  test('the bottom panels are the five named tabs, moved through with the arrow keys, Home and End', async () => {
    const { page } = session;
    const tabs = page.getByRole('tablist', { name: 'Panels' }).getByRole('tab');
    expect(await tabs.allTextContents()).toEqual(['Problems', 'Debugger', 'State', 'Checkpoints', 'Metrics']);
    const selected = async () => page.getByRole('tab', { selected: true }).textContent();
    const shown = async () => page.getByRole('tabpanel').textContent();
    expect(await selected()).toBe('Problems');
    expect(await shown()).toContain('No problems');

    await page.getByRole('tab', { name: 'Problems' }).focus();
    await page.keyboard.press('ArrowRight');
    expect(await selected()).toBe('Debugger');
    expect(await page.getByRole('tabpanel', { name: 'Debugger' }).textContent()).toContain(
      'Stepping through a run',
    );
    await page.keyboard.press('ArrowRight');
    expect(await selected()).toBe('State');
    await page.keyboard.press('End');
    expect(await selected()).toBe('Metrics');
    expect(await page.getByRole('tabpanel', { name: 'Metrics' }).isVisible()).toBe(true);
    await page.keyboard.press('ArrowRight');
    expect(await selected()).toBe('Problems');
    await page.keyboard.press('ArrowLeft');
    expect(await selected()).toBe('Metrics');
    await page.keyboard.press('Home');
    expect(await selected()).toBe('Problems');
    // The focus moves with the selection: one tab stop for the whole list.
    expect(await isFocused(page.getByRole('tab', { name: 'Problems' }))).toBe(true);
    expect(await tabs.evaluateAll((els) => els.map((e) => e.getAttribute('tabindex')))).toEqual([
      '0',
      '-1',
      '-1',
      '-1',
      '-1',
    ]);
    expectNoPageErrors(session);
  });

  test('a menu opens with Enter or ArrowDown, is walked with the arrow keys and runs its item with Enter', async () => {
    const { page } = session;
    const bar = page.getByRole('menubar', { name: 'Main menu' });
    const edit = bar.getByRole('menuitem', { name: 'Edit', exact: true });
    await edit.focus();
    await page.keyboard.press('Enter');
    await page.getByRole('menu', { name: 'Edit' }).waitFor();
    expect(await isFocused(page.getByRole('menu', { name: 'Edit' }).getByRole('menuitem').first())).toBe(
      true,
    );
    await page.keyboard.press('Escape');
    await page.getByRole('menu', { name: 'Edit' }).waitFor({ state: 'detached' });

    const view = bar.getByRole('menuitem', { name: 'View', exact: true });
    await view.focus();
    await page.keyboard.press('ArrowDown');
    const menu = page.getByRole('menu', { name: 'View' });
    await menu.waitFor();
    expect(await isFocused(menu.getByRole('menuitem', { name: /^Fit view/ }))).toBe(true);
    expect(await menu.getByRole('menuitem').allTextContents()).toEqual([
      'Fit viewF',
      'Zoom in',
      'Zoom out',
      'Auto layout',
      'Toggle panels',
    ]);
    // ArrowDown moves on; ArrowUp from the first item wraps round to the last, "Toggle panels".
    await page.keyboard.press('ArrowDown');
    expect(await isFocused(menu.getByRole('menuitem', { name: /^Zoom in/ }))).toBe(true);
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('ArrowUp');
    expect(await isFocused(menu.getByRole('menuitem', { name: /^Toggle panels/ }))).toBe(true);
    await page.keyboard.press('Enter');
    await menu.waitFor({ state: 'detached' });
    expect(await page.getByRole('region', { name: 'Bottom panels' }).count()).toBe(0);
    await page
      .getByRole('menubar', { name: 'Main menu' })
      .getByRole('menuitem', { name: 'View', exact: true })
      .click();
    await page
      .getByRole('menu', { name: 'View' })
      .getByRole('menuitem', { name: /^Toggle panels/ })
      .click();
    await page.getByRole('region', { name: 'Bottom panels' }).waitFor();
    expectNoPageErrors(session);
  });
});

describe('the per-start token', () => {
  test('a page opened without the token, or with another, cannot reach the host and says so', async () => {
    const { page, server } = session;
    const origin = new URL(server.url).origin;
    for (const url of [`${origin}/`, `${origin}/?token=${'0'.repeat(server.token.length)}`]) {
      const other = await page.context().newPage();
      const logged: string[] = [];
      other.on('console', (m) => {
        if (m.type() === 'error') logged.push(m.text());
      });
      await other.goto(url);
      const alert = other.getByRole('alert');
      await alert.waitFor();
      // The address is shown with the token (if any) left out.
      expect(await alert.textContent()).toBe(
        `Pipewright cannot start: cannot reach the engine host at ws://127.0.0.1:${server.port}/host?token=${url.includes('token') ? '…' : ''}`,
      );
      // Nothing of the app is there: no start screen, no templates.
      expect(await other.getByRole('button').count()).toBe(0);
      // The refusal is the browser's own report of the failed WebSocket (403), never the token.
      expect(logged.join('\n')).toMatch(/WebSocket connection to .* failed/);
      expect(logged.join('\n')).not.toContain(server.token);
      await other.close();
    }
    // The page with the token is still served.
    expect(await page.getByRole('toolbar', { name: 'Tools' }).count()).toBe(1);
    expectNoPageErrors(session);
  });
});
