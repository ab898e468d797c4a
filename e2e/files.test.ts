// Files on disk through the app's own dialogs: a template saved, reopened and saved again byte for
// byte; the recent list; export; and files the designer did not write: an invalid job, a job
// in someone else's formatting, a file of another format, malformed JSON and a missing file,
// each opened with its problems shown and saved back without losing anything.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { type AppSession, openApp } from './appHarness.js';
import {
  answerFileDialog,
  canvas,
  canvasSnapshot,
  dragOperator,
  edge,
  eventually,
  expectNoPageErrors,
  fileDialog,
  inspector,
  isMarkedUnsaved,
  MOD,
  menu,
  operator,
  operatorNames,
  PATIENCE_MS,
  problemList,
  problemMessages,
  readText,
  saveWithShortcut,
  sessionPerFile,
  toolbar,
} from './helpers.js';

const TEMPLATE = join(import.meta.dirname, '..', 'assets', 'examples', 'word-count', 'word-count.job.json');
const TEMPLATE_TEXT = readFileSync(TEMPLATE, 'utf8');

let session: AppSession;

sessionPerFile((opened) => {
  session = opened;
});

const pretty = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

/** Opens a file through Ctrl+O, answering "Don't save" if the current document asks. */
async function open(path: string): Promise<void> {
  const { page } = session;
  await page.keyboard.press(`${MOD}+O`);
  const prompt = page.getByRole('dialog', { name: 'Unsaved changes' });
  const dialog = fileDialog(page, 'Open job');
  await Promise.race([prompt.waitFor(), dialog.waitFor()]);
  if (await prompt.isVisible()) await prompt.getByRole('button', { name: "Don't save" }).click();
  await answerFileDialog(page, 'Open job', path, 'Open');
  // Opened once the page's title names it (or the open was refused): until then the canvas still
  // shows the job before, whose operators a test could find (on a loaded machine it takes a while).
  // (Polled from here: a string given to waitForFunction is evaluated in the page, which its
  // Content-Security-Policy refuses once it has to be polled.)
  const refused = page.getByRole('dialog', { name: 'Could not open' });
  await eventually(async () => {
    const title = await page.title();
    expect(title.startsWith(`${basename(path)} — `) || (await refused.isVisible())).toBe(true);
  });
}

describe('a template saved, reopened and saved again', () => {
  const saved = () => join(session.workDir, 'word-count.job.json');

  test('Save As… from the File menu writes exactly the template bytes', async () => {
    const { page } = session;
    await page.getByRole('button', { name: 'Open template word-count' }).click();
    await operator(page, 'words').waitFor();
    await menu(page, 'File', 'Save As…');
    await answerFileDialog(page, 'Save job as', saved(), 'Save');
    await eventually(async () => expect(await page.title()).toBe('word-count.job.json — Pipewright'));
    expect(readText(saved())).toBe(TEMPLATE_TEXT);
    expect(readText(TEMPLATE)).toBe(TEMPLATE_TEXT);
    expectNoPageErrors(session);
  });

  test("reopened from the dialog's listing it shows the file, not the unsaved edit; Ctrl+S changes no byte", async () => {
    const { page } = session;
    const asSaved = await canvasSnapshot(page);
    // An edit that is then thrown away.
    await dragOperator(page, 'count', 0, 120);
    await eventually(async () => expect(await isMarkedUnsaved(page)).toBe(true));
    await page.keyboard.press(`${MOD}+O`);
    const prompt = page.getByRole('dialog', { name: 'Unsaved changes' });
    expect(await prompt.getByRole('heading').textContent()).toBe(`Save changes to ${saved()}?`);
    await prompt.getByRole('button', { name: "Don't save" }).click();
    // The dialog opens in the file's folder and lists it; a double click opens it.
    const dialog = fileDialog(page, 'Open job');
    await dialog.waitFor();
    expect(await dialog.getByText(session.workDir, { exact: true }).count()).toBe(1);
    const entry = dialog
      .getByRole('list', { name: 'Files' })
      .getByRole('button', { name: /word-count\.job\.json/ });
    await entry.waitFor();
    await entry.click();
    expect(await dialog.getByLabel('File path').inputValue()).toBe(saved());
    await session.screenshot('file-dialog');
    await entry.dblclick();
    await dialog.waitFor({ state: 'detached' });
    await eventually(async () => expect(await canvasSnapshot(page)).toEqual(asSaved));
    expect(await isMarkedUnsaved(page)).toBe(false);

    await saveWithShortcut(page, saved());
    expect(readText(saved())).toBe(TEMPLATE_TEXT);
    expectNoPageErrors(session);
  });

  test('Export job file… writes the job without what only the designer needs', async () => {
    const { page } = session;
    const exported = join(session.workDir, 'word-count-run.job.json');
    await menu(page, 'File', 'Export job file…');
    await answerFileDialog(page, 'Export job file', exported, 'Save');
    await eventually(() => expect(existsSync(exported)).toBe(true));
    const { editor: _editor, ...runnable } = JSON.parse(TEMPLATE_TEXT);
    expect(readText(exported)).toBe(pretty(runnable));
    // The document is still the saved file.
    expect(await page.title()).toBe('word-count.job.json — Pipewright');
    expectNoPageErrors(session);
  });

  test('the start screen lists the saved file under Recent, and a click opens it', async () => {
    const { page } = session;
    await page.reload();
    const recent = page.getByRole('list', { name: 'Recent' });
    await recent.waitFor();
    const item = recent.getByRole('button', { name: /^word-count\.job\.json/ });
    expect(await item.getAttribute('title')).toBe(saved());
    await item.click();
    await operator(page, 'words').waitFor();
    expect(await page.title()).toBe('word-count.job.json — Pipewright');
    expectNoPageErrors(session);
  });
});

describe('files the designer did not write', () => {
  test('an invalid job opens with every problem listed by its operator or edge, marked on the canvas', async () => {
    const { page } = session;
    const path = join(session.workDir, 'broken.job.json');
    const job = {
      format: 'pipewright.job/1',
      name: 'broken',
      settings: { maxParallelism: 2 },
      operators: [
        { id: 'src', kind: 'source.jsonl', parallelism: 1, params: { path: 'in.jsonl' } },
        { id: 'work', kind: 'process', parallelism: 4, params: { code: 'const x = 1;' } },
        { id: 'tap', kind: 'source.mqtt', parallelism: 1, params: { topic: 'events' } },
        { id: 'out', kind: 'sink.jsonl', parallelism: 1, params: { path: 'out.jsonl' } },
      ],
      edges: [
        { id: 'e1', from: 'src', to: 'work', partition: 'hash' },
        { id: 'e2', from: 'work', to: 'ghost', partition: 'rebalance' },
        { id: 'e3', from: 'work', to: 'out', partition: 'forward', key: 'user' },
      ],
      editor: {
        positions: {
          src: { x: 0, y: 0 },
          work: { x: 260, y: 0 },
          tap: { x: 0, y: 140 },
          out: { x: 520, y: 0 },
        },
        notes: 'kept as it is',
      },
      'x-owner': { team: 'streams', ticket: 42 },
    };
    writeFileSync(path, pretty(job));
    await open(path);
    await operator(page, 'work').waitFor();
    expect(await page.title()).toBe('broken.job.json — Pipewright');
    expect(await isMarkedUnsaved(page)).toBe(false);

    const messages = await problemMessages(page);
    const expected = [
      /x-owner/,
      /parallelism 4.*(max|maxParallelism).*2|maxParallelism.*2.*4/i,
      /code must define a function named process/,
      /source\.mqtt/,
      /e1.*hash-partitioned but has no key/,
      /e2.*ghost/,
      /e3.*has a key but is forward-partitioned/,
      /e3.*forward-partitioned but operator "work" has parallelism 4/,
    ];
    for (const pattern of expected)
      expect(messages, String(pattern)).toContainEqual(expect.stringMatching(pattern));
    expect(messages.length).toBeGreaterThanOrEqual(expected.length);
    expect(await page.getByRole('tab', { name: `Problems ${messages.length}` }).count()).toBe(1);

    // Each row that concerns an operator or an edge names it, and a click selects it.
    const rows = problemList(page).getByRole('listitem');
    const rowFor = (pattern: RegExp) => rows.filter({ hasText: pattern });
    expect(
      await rowFor(/no key/)
        .locator('.problem-subject')
        .textContent(),
    ).toBe('edge e1');
    expect(
      await rowFor(/code must define/)
        .locator('.problem-subject')
        .textContent(),
    ).toBe('operator work');
    expect(
      await rowFor(/x-owner/)
        .locator('.problem-subject')
        .count(),
    ).toBe(0);
    await rowFor(/no key/)
      .getByRole('button')
      .click();
    await inspector(page).getByRole('heading', { name: 'Edge e1' }).waitFor();
    await rowFor(/source\.mqtt/)
      .getByRole('button')
      .click();
    await inspector(page).getByRole('heading', { name: 'Operator tap' }).waitFor();
    // The operator of an unknown kind is drawn, marked, with its kind as written.
    expect(await operatorNames(page)).toContain('Operator tap, unknown kind source.mqtt, parallelism 1');
    for (const id of ['work', 'tap'])
      expect(await operator(page, id).getAttribute('aria-invalid')).toBe('true');
    expect(await edge(page, 'e1').locator('path.pw-edge-invalid').count()).toBe(1);
    await page.keyboard.press('f');
    await page.waitForTimeout(250);
    await session.screenshot('invalid-file');

    // Saving gives the file back as it was: nothing known or unknown is lost.
    await saveWithShortcut(page, path);
    expect(readText(path)).toBe(pretty(job));
    expectNoPageErrors(session);
  });

  test('a valid job in another formatting opens, and saving keeps every value in the stable layout', async () => {
    const { page } = session;
    const path = join(session.workDir, 'handwritten.job.json');
    // Its input is there, or the Problems panel would warn that it is missing.
    writeFileSync(join(session.workDir, 'in.jsonl'), '');
    // Keys in another order, four-space indentation, no final newline: as someone typed it.
    const text = [
      '{',
      '    "operators": [',
      '        { "params": { "path": "in.jsonl" }, "kind": "source.jsonl", "id": "in" },',
      '        { "parallelism": 1, "params": { "path": "out.jsonl" }, "id": "out", "kind": "sink.jsonl" }',
      '    ],',
      '    "edges": [ { "partition": "forward", "to": "out", "from": "in", "id": "e1" } ],',
      '    "name": "handwritten",',
      '    "format": "pipewright.job/1"',
      '}',
    ].join('\n');
    writeFileSync(path, text);
    await open(path);
    await operator(page, 'out').waitFor();
    expect(await problemMessages(page)).toEqual([]);
    expect(await canvasSnapshot(page).then((s) => s.edges)).toEqual(['Edge e1 from in to out, forward']);
    await saveWithShortcut(page, path);
    const written = readText(path);
    expect(JSON.parse(written)).toEqual(JSON.parse(text));
    expect(written).toBe(
      pretty({
        format: 'pipewright.job/1',
        name: 'handwritten',
        operators: [
          { id: 'in', kind: 'source.jsonl', params: { path: 'in.jsonl' } },
          { id: 'out', kind: 'sink.jsonl', parallelism: 1, params: { path: 'out.jsonl' } },
        ],
        edges: [{ id: 'e1', from: 'in', to: 'out', partition: 'forward' }],
      }),
    );
    // Saved once, it is stable: saving again writes the same bytes.
    await saveWithShortcut(page, path);
    expect(readText(path)).toBe(written);
    expectNoPageErrors(session);
  });

  test('a file of another format is refused with a clear problem and saved back untouched', async () => {
    const { page } = session;
    const path = join(session.workDir, 'other.json');
    const foreign = { format: 'other.tool/2', nodes: [{ id: 'a' }], links: [] };
    writeFileSync(path, pretty(foreign));
    await open(path);
    await eventually(async () =>
      expect(await problemMessages(page)).toEqual([
        'not a Pipewright job file: format is "other.tool/2" (expected "pipewright.job/1")',
      ]),
    );
    expect(await operatorNames(page)).toEqual([]);
    await saveWithShortcut(page, path);
    expect(readText(path)).toBe(pretty(foreign));
    expectNoPageErrors(session);
  });

  test('malformed JSON is shown as text with the faulty line, its position in the Problems panel, and saved unchanged', async () => {
    const { page } = session;
    const path = join(session.workDir, 'malformed.job.json');
    const text = '{\n  "format": "pipewright.job/1",\n  "name": "oops",,\n  "operators": []\n}\n';
    writeFileSync(path, text);
    await open(path);
    const fileText = page.getByRole('region', { name: 'File text' });
    await fileText.waitFor();
    expect(await fileText.getByText(/^This file cannot be drawn: /).count()).toBe(1);
    expect(await fileText.locator('li.fault').textContent()).toBe('  "name": "oops",,');
    expect(await canvas(page).count()).toBe(0);
    // Nothing to draw, so nothing to lay out or fit.
    expect(await toolbar(page).getByRole('button', { name: 'Auto layout' }).isDisabled()).toBe(true);
    expect(await toolbar(page).getByRole('button', { name: 'Fit view' }).isDisabled()).toBe(true);
    const row = problemList(page).getByRole('listitem');
    expect(await row.count()).toBe(1);
    expect(await row.locator('.problem-position').textContent()).toMatch(/^line 3, column \d+$/);
    await session.screenshot('malformed-file');
    await saveWithShortcut(page, path);
    expect(readText(path)).toBe(text);
    expectNoPageErrors(session);
  });

  test('a file that is not there is reported by name, and the open document stays', async () => {
    const { page } = session;
    const path = join(session.workDir, 'missing.job.json');
    await open(path);
    const message = page.getByRole('dialog', { name: 'Could not open' });
    await message.waitFor();
    expect(await message.textContent()).toContain(`Cannot open ${path}: no such file or folder`);
    await message.getByRole('button', { name: 'OK' }).click();
    await message.waitFor({ state: 'detached' });
    expect(await page.title()).toBe('malformed.job.json — Pipewright');
    expectNoPageErrors(session);
  });
});

describe('a file given at start', () => {
  test('`npm run web FILE` opens it drawn instead of the start screen', async () => {
    const path = join(session.workDir, 'word-count.job.json');
    const other = await openApp({ initialFile: path });
    try {
      const { page } = other;
      page.setDefaultTimeout(PATIENCE_MS);
      await operator(page, 'words').waitFor();
      expect(await page.title()).toBe('word-count.job.json — Pipewright');
      expect(await page.getByRole('heading', { name: 'Templates' }).count()).toBe(0);
      expect(await isMarkedUnsaved(page)).toBe(false);
      expect(other.pageErrors).toEqual([]);
    } finally {
      await other.close();
    }
  });
});
