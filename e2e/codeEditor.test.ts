// An operator's code edited in a wide editor, as Node-RED's expand button gives one: the
// inspector's editor is about 300 px wide and wraps every line of real code; "Expand" opens the
// same code in a dialog most of the window wide, where a long line stays one line, with the same
// live problems (listed under it as they come and go, the line marked), and the inspector's
// editor holding whatever was typed once it closes.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator } from 'playwright-core';
import { describe, expect, test } from 'vitest';
import type { AppSession } from './appHarness.js';
import {
  answerFileDialog,
  eventually,
  expectNoPageErrors,
  expectNoProblems,
  inspector,
  isFocused,
  MOD,
  operator,
  problemMessages,
  sessionPerFile,
} from './helpers.js';

let session: AppSession;

sessionPerFile((opened) => {
  session = opened;
});

const LONG_LINE = `  const label = 'a record of ' + JSON.stringify(record) + ', seen by the map that names every field it reads';`;

const JOB = {
  format: 'pipewright.job/1',
  name: 'wide-code',
  operators: [
    {
      id: 'gen',
      kind: 'source.generator',
      params: { code: 'function generate(i, ctx) {\n  return { i };\n}', count: 10 },
    },
    {
      id: 'm1',
      kind: 'map',
      params: { code: `function map(record, ctx) {\n${LONG_LINE}\n  return record;\n}` },
    },
    { id: 'out', kind: 'sink.jsonl', params: { path: 'out.jsonl' } },
  ],
  edges: [
    { id: 'e1', from: 'gen', to: 'm1', partition: 'forward' },
    { id: 'e2', from: 'm1', to: 'out', partition: 'forward' },
  ],
  editor: { positions: { gen: { x: 0, y: 0 }, m1: { x: 260, y: 0 }, out: { x: 520, y: 0 } } },
};

const dialog = () => session.page.getByRole('dialog', { name: 'Code of operator m1' });

/** How many screen lines the editor's line holding `text` takes. */
async function screenLines(editor: Locator, text: string): Promise<number> {
  const line = editor.locator('.cm-line', { hasText: text });
  const height = (await line.boundingBox())!.height;
  const lineHeight = await line.evaluate((e: { ownerDocument: { defaultView: unknown } }) => {
    const view = e.ownerDocument.defaultView as { getComputedStyle(e: unknown): { lineHeight: string } };
    return Number.parseFloat(view.getComputedStyle(e).lineHeight);
  });
  return Math.round(height / lineHeight);
}

describe('the code of an operator, expanded', () => {
  test('opens in a dialog most of the window wide, where a long line is one line', async () => {
    const { page } = session;
    await page.setViewportSize({ width: 1400, height: 900 });
    const path = join(session.workDir, 'wide-code.job.json');
    writeFileSync(path, `${JSON.stringify(JOB, null, 2)}\n`);
    await page.getByRole('button', { name: 'Open job file…' }).click();
    await answerFileDialog(page, 'Open job', path, 'Open');
    await operator(page, 'm1').click();
    const inline = inspector(page).locator('.cm-editor');
    await inline.waitFor();
    // In the inspector the long line wraps.
    expect(await screenLines(inline, 'seen by the map')).toBeGreaterThan(1);

    await inspector(page).getByRole('button', { name: 'Expand the code editor' }).click();
    await dialog().waitFor();
    const wide = dialog().locator('.cm-editor');
    expect((await wide.boundingBox())!.width).toBeGreaterThanOrEqual(900);
    expect(await screenLines(wide, 'seen by the map')).toBe(1);
    // It has the keyboard: what is typed goes into it.
    await eventually(async () =>
      expect(await isFocused(dialog().getByRole('textbox', { name: 'Code' }))).toBe(true),
    );
    await session.screenshot('code-expanded');
    expectNoPageErrors(session);
  });

  test('shows the same problems, live, as the code is typed there; the inspector keeps what was typed', async () => {
    const { page } = session;
    await page.keyboard.press(`${MOD}+End`);
    await page.keyboard.press('Enter');
    await page.keyboard.type('}');
    const listed = dialog().getByRole('list', { name: 'Problems in this code' });
    await eventually(async () =>
      expect(await listed.getByRole('listitem').allInnerTexts()).toEqual([
        "syntax error at line 5, column 1 of its code: Unexpected token '}'",
      ]),
    );
    await eventually(async () =>
      expect(await dialog().locator('.cm-line.cm-problemLine').allInnerTexts()).toEqual(['}']),
    );
    expect(await problemMessages(page)).toEqual([
      'operator "m1": syntax error at line 5, column 1 of its code: Unexpected token \'}\'',
    ]);
    await session.screenshot('code-expanded-problem');

    await page.keyboard.press('Backspace');
    await eventually(async () => expect(await listed.count()).toBe(0));
    await page.keyboard.type('// checked');
    await dialog().getByRole('button', { name: 'Done' }).click();
    await dialog().waitFor({ state: 'detached' });
    await expectNoProblems(page);
    expect(await inspector(page).locator('.cm-content').innerText()).toContain('// checked');
    expectNoPageErrors(session);
  });
});
