// Errors in user code are found while typing, before any run (issue 11, items 1 and 2): a syntax
// error or a require typed into a process function is listed in Problems after the one keystroke
// that makes it, at the line and column of the code the user wrote, and the code editor marks
// that line; putting it right clears both.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import type { AppSession } from './appHarness.js';
import {
  answerFileDialog,
  eventually,
  expectNoPageErrors,
  expectNoProblems,
  inspector,
  MOD,
  operator,
  problemList,
  problemMessages,
  sessionPerFile,
} from './helpers.js';

let session: AppSession;

sessionPerFile((opened) => {
  session = opened;
});

const JOB = {
  format: 'pipewright.job/1',
  name: 'code-problems',
  operators: [
    {
      id: 'gen',
      kind: 'source.generator',
      params: { code: 'function generate(i, ctx) {\n  return { i };\n}', count: 10 },
    },
    {
      id: 'p1',
      kind: 'process',
      params: { code: 'function process(record, ctx) {\n  ctx.emit(record);\n}' },
    },
    { id: 'out', kind: 'sink.jsonl', params: { path: 'out.jsonl' } },
  ],
  edges: [
    { id: 'e1', from: 'gen', to: 'p1', partition: 'forward' },
    { id: 'e2', from: 'p1', to: 'out', partition: 'forward' },
  ],
  editor: { positions: { gen: { x: 0, y: 0 }, p1: { x: 260, y: 0 }, out: { x: 520, y: 0 } } },
};

const codeEditor = () => inspector(session.page).locator('.cm-editor');
const markedLines = () => codeEditor().locator('.cm-line.cm-problemLine');
const markedCharacters = () => codeEditor().locator('.cm-problemMark');

describe('a mistake typed into an operator function', () => {
  test('the job opens without problems and the code editor marks nothing', async () => {
    const { page } = session;
    const path = join(session.workDir, 'code-problems.job.json');
    writeFileSync(path, `${JSON.stringify(JOB, null, 2)}\n`);
    await page.getByRole('button', { name: 'Open job file…' }).click();
    await answerFileDialog(page, 'Open job', path, 'Open');
    await operator(page, 'p1').waitFor();
    await expectNoProblems(page);
    await operator(page, 'p1').click();
    await codeEditor().waitFor();
    expect(await markedLines().count()).toBe(0);
    expectNoPageErrors(session);
  });

  test('a stray closing brace is a problem at its own line and column, and its line is marked', async () => {
    const { page } = session;
    const code = inspector(page).getByRole('textbox', { name: 'Code' });
    await code.click();
    await page.keyboard.press(`${MOD}+End`);
    await page.keyboard.press('Enter');
    await expectNoProblems(page);
    // The one keystroke that breaks the code.
    await page.keyboard.type('}');
    await eventually(async () =>
      expect(await problemMessages(page)).toEqual([
        'operator "p1": syntax error at line 4, column 1 of its code: Unexpected token \'}\'',
      ]),
    );
    expect(await problemList(page).locator('.problem-subject').textContent()).toBe('operator p1');
    await eventually(async () => expect(await markedLines().allInnerTexts()).toEqual(['}']));
    expect(await markedLines().getAttribute('title')).toBe(
      "syntax error at line 4, column 1 of its code: Unexpected token '}'",
    );
    expect(await markedCharacters().allInnerTexts()).toEqual(['}']);
    // Beside the field too, where the user is typing.
    expect(
      await inspector(page)
        .getByText(/syntax error at line 4, column 1/)
        .count(),
    ).toBeGreaterThan(0);
    await session.screenshot('code-syntax-error');

    await page.keyboard.press('Backspace');
    await expectNoProblems(page);
    await eventually(async () => expect(await markedLines().count()).toBe(0));
    expectNoPageErrors(session);
  });

  test('a require is refused before any run, at the call', async () => {
    const { page } = session;
    // The editor closes brackets and quotes as they are typed and steps over the typed closers.
    await page.keyboard.type('const fs = require("fs");');
    await eventually(async () =>
      expect(await problemMessages(page)).toEqual([
        'operator "p1": line 4, column 12 of its code: code may not use require (no ambient authority: only ctx and standard JavaScript built-ins)',
      ]),
    );
    await eventually(async () =>
      expect(await markedLines().allInnerTexts()).toEqual(['const fs = require("fs");']),
    );
    expect(await markedCharacters().allInnerTexts()).toEqual(['r']);

    await page.keyboard.press('Shift+Home');
    await page.keyboard.press('Backspace');
    await expectNoProblems(page);
    await eventually(async () => expect(await markedLines().count()).toBe(0));
    expectNoPageErrors(session);
  });
});
