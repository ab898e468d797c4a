// A new user builds a job from an empty canvas with the mouse and the keyboard only: three
// operators from the palette, two edges drawn between handles, parallelism, a hash key and code
// typed into the inspector; then saves it, reopens it and saves it again.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { validateJob } from '../engine/graph/index.js';
import type { AppSession } from './appHarness.js';
import {
  canvas,
  clickEdge,
  clickEmptyCanvas,
  connect,
  dragOperator,
  dropFromPalette,
  edge,
  edgeNames,
  eventually,
  expectNoPageErrors,
  expectNoProblems,
  inspector,
  MOD,
  openWithShortcut,
  operator,
  operatorNames,
  paletteItem,
  positionOf,
  problemList,
  problemMessages,
  readText,
  saveWithShortcut,
  sessionPerFile,
  typeInto,
} from './helpers.js';

/** Typed key by key into CodeMirror, which closes brackets and quotes itself as they are typed. */
const CODE =
  "async function process(record, ctx) { const seen = ctx.state.value('seen'); const n = ((await seen.get()) ?? 0) + 1; await seen.set(n); ctx.emit({ user: record.user, clicks: n }); }";

let session: AppSession;

sessionPerFile((opened) => {
  session = opened;
});

describe('a job built from an empty canvas', () => {
  const file = () => join(session.workDir, 'clicks.job.json');

  test('the start screen offers a new job, and New job opens an empty canvas', async () => {
    const { page } = session;
    // Waited for: the start screen comes once the page has reached the host.
    await page.getByRole('heading', { name: 'Pipewright', level: 1 }).waitFor();
    await page.getByRole('heading', { name: 'Templates' }).waitFor();
    await page
      .getByRole('button', { name: /^Open template / })
      .first()
      .waitFor();
    await session.screenshot('start-screen');

    await page.getByRole('button', { name: 'New job' }).click();
    await canvas(page).waitFor();
    expect(await operatorNames(page)).toEqual([]);
    expect(await canvas(page).getByText('Drag an operator here from the palette').isVisible()).toBe(true);
    expect(await page.title()).toBe('untitled (unsaved) — Pipewright');
    await expectNoProblems(page);
    expectNoPageErrors(session);
  });

  test('a source, a process and a sink come from the palette: a click, a move and two drags', async () => {
    const { page } = session;
    // A click adds the kind in the middle of the canvas; the user drags it to the left.
    await paletteItem(page, 'source.jsonl').click();
    await operator(page, 'source1').waitFor();
    const pane = (await page.locator('.react-flow__pane').boundingBox())!;
    const src = (await operator(page, 'source1').boundingBox())!;
    const y = src.y + src.height / 2;
    await dragOperator(page, 'source1', pane.x + pane.width * 0.12 - (src.x + src.width / 2), 0);
    await eventually(async () =>
      expect((await operator(page, 'source1').boundingBox())!.x).toBeLessThan(src.x - 100),
    );
    // Drags from the palette drop the others where the user lets go: in a row to the right.
    await dropFromPalette(page, 'process', { x: pane.x + pane.width * 0.5, y });
    await operator(page, 'process1').waitFor();
    await dropFromPalette(page, 'sink.jsonl', { x: pane.x + pane.width * 0.86, y });
    await operator(page, 'sink1').waitFor();

    expect(await operatorNames(page)).toEqual([
      'Operator source1, JSON Lines file, parallelism 1',
      'Operator process1, Process, parallelism 1',
      'Operator sink1, JSON Lines file, parallelism 1',
    ]);
    // Left to right as placed, on one row, none overlapping; the dropped one is selected.
    const boxes = await Promise.all(
      ['source1', 'process1', 'sink1'].map(async (id) => (await operator(page, id).boundingBox())!),
    );
    expect(boxes[0]!.x + boxes[0]!.width + 40).toBeLessThan(boxes[1]!.x);
    expect(boxes[1]!.x + boxes[1]!.width + 40).toBeLessThan(boxes[2]!.x);
    await inspector(page).getByRole('heading', { name: 'Operator sink1' }).waitFor();
    expectNoPageErrors(session);
  });

  test('edges are drawn by dragging from an output handle to an input handle', async () => {
    const { page } = session;
    await connect(page, 'source1', 'process1');
    await edge(page, 'e1').waitFor({ state: 'attached' });
    await connect(page, 'process1', 'sink1');
    await edge(page, 'e2').waitFor({ state: 'attached' });
    expect(await edgeNames(page)).toEqual([
      'Edge e1 from source1 to process1, forward',
      'Edge e2 from process1 to sink1, forward',
    ]);
    // The new edge is selected and its form is in the inspector.
    await inspector(page).getByRole('heading', { name: 'Edge e2' }).waitFor();
    await expectNoProblems(page);
    expectNoPageErrors(session);
  });

  test('ids, paths and parallelism are typed into the inspector; bad values are refused or reported', async () => {
    const { page } = session;
    // Rename the source with Enter: the edge follows.
    await operator(page, 'source1').click();
    const panel = inspector(page);
    await panel.getByRole('heading', { name: 'Operator source1' }).waitFor();
    await typeInto(panel.getByRole('textbox', { name: 'Id' }), 'clicks', 'Enter');
    await operator(page, 'clicks').waitFor();
    await panel.getByRole('heading', { name: 'Operator clicks' }).waitFor();
    expect(await edgeNames(page)).toContain('Edge e1 from clicks to process1, forward');
    // The id field keeps the keyboard focus after the rename.
    expect(
      await panel
        .getByRole('textbox', { name: 'Id' })
        .evaluate((e: { ownerDocument: { activeElement: unknown } }) => e === e.ownerDocument.activeElement),
    ).toBe(true);
    await typeInto(panel.getByRole('textbox', { name: 'Path' }), 'clicks.jsonl');

    await operator(page, 'process1').click();
    await typeInto(panel.getByRole('textbox', { name: 'Id' }), 'counter', 'Enter');
    await operator(page, 'counter').waitFor();
    // Text that is no number is refused beside the field, and the operator keeps its parallelism.
    const parallelism = panel.getByRole('textbox', { name: 'Parallelism' });
    await typeInto(parallelism, 'four');
    expect(await panel.getByRole('alert').innerText()).toBe('"four" is not a number');
    expect(await operatorNames(page)).toContain('Operator counter, Process, parallelism 1');
    // 0 is a number but not a parallelism: the engine's validator says so beside the field.
    await typeInto(parallelism, '0');
    await eventually(async () => expect(await parallelism.getAttribute('aria-invalid')).toBe('true'));
    // It is in the field's description, so a screen reader reads it with the field.
    const described = await parallelism.getAttribute('aria-describedby');
    expect(await page.locator(`[id="${described}"] .field-problem`).textContent()).toBe(
      'parallelism must be at least 1 (got 0)',
    );
    expect(await operatorNames(page)).toContain('Operator counter, Process, parallelism 0');
    await typeInto(parallelism, '4');
    await eventually(async () =>
      expect(await operatorNames(page)).toContain('Operator counter, Process, parallelism 4'),
    );
    expect(await parallelism.getAttribute('aria-invalid')).toBe('false');
    expect(await panel.getByRole('alert').count()).toBe(0);

    await operator(page, 'sink1').click();
    await typeInto(panel.getByRole('textbox', { name: 'Id' }), 'out', 'Enter');
    await operator(page, 'out').waitFor();
    await typeInto(panel.getByRole('textbox', { name: 'Path' }), 'out/clicks.jsonl');
    expectNoPageErrors(session);
  });

  test('the forward edges are now wrong, and the Problems panel and the canvas say so', async () => {
    const { page } = session;
    const messages = await problemMessages(page);
    expect(messages).toHaveLength(2);
    expect(messages[0]).toMatch(/e1.*forward-partitioned.*parallelism 1.*parallelism 4/);
    expect(messages[1]).toMatch(/e2.*forward-partitioned.*parallelism 4.*parallelism 1/);
    expect(await page.getByRole('tab', { name: 'Problems 2' }).count()).toBe(1);
    // Each listed problem names its edge; the edges and operators are marked on the canvas.
    expect(
      await problemList(page)
        .getByRole('button', { name: /edge e1/ })
        .count(),
    ).toBe(1);
    expect(
      await problemList(page)
        .getByRole('button', { name: /edge e2/ })
        .count(),
    ).toBe(1);
    for (const id of ['clicks', 'counter', 'out']) {
      expect(await operator(page, id).getAttribute('aria-invalid')).toBe('true');
    }
    expect(await edge(page, 'e1').locator('path.pw-edge-invalid').count()).toBe(1);
    expect(await edge(page, 'e2').locator('path.pw-edge-invalid').count()).toBe(1);
    expectNoPageErrors(session);
  });

  test('code typed into the editor is the operator code; keyed state then asks for a hash edge', async () => {
    const { page } = session;
    await operator(page, 'counter').click();
    const code = inspector(page).getByRole('textbox', { name: 'Code' });
    await code.click();
    await page.keyboard.press(`${MOD}+A`);
    await page.keyboard.press('Delete');
    await page.keyboard.type(CODE);
    await eventually(async () => expect(await code.innerText()).toBe(CODE));
    await eventually(async () =>
      expect(
        (await problemMessages(page)).some((m) =>
          /operator "counter" uses keyed state.*must be hash-partitioned/.test(m),
        ),
      ).toBe(true),
    );
    await session.screenshot('inspector-code');
    expectNoPageErrors(session);
  });

  test('the edges get their partitioning in the edge form: hash by "user", and rebalance', async () => {
    const { page } = session;
    const panel = inspector(page);
    await clickEdge(page, 'e1');
    await panel.getByRole('heading', { name: 'Edge e1' }).waitFor();
    await panel.getByRole('combobox', { name: 'Partition' }).selectOption('hash');
    // A hash edge without a key is a problem until the key is typed.
    await eventually(async () =>
      expect((await problemMessages(page)).some((m) => /e1.*has no key/.test(m))).toBe(true),
    );
    await typeInto(panel.getByRole('textbox', { name: 'Key' }), 'user');
    await eventually(async () =>
      expect(await edgeNames(page)).toContain('Edge e1 from clicks to counter, hash(user)'),
    );

    await clickEdge(page, 'e2');
    await panel.getByRole('heading', { name: 'Edge e2' }).waitFor();
    // Keyboard only: focus the select and pick with the arrow keys.
    const partition = panel.getByRole('combobox', { name: 'Partition' });
    await partition.focus();
    await page.keyboard.press('ArrowDown');
    await eventually(async () => expect(await partition.inputValue()).toBe('rebalance'));
    await expectNoProblems(page);
    expect(await edgeNames(page)).toEqual([
      'Edge e1 from clicks to counter, hash(user)',
      'Edge e2 from counter to out, rebalance',
    ]);
    for (const id of ['clicks', 'counter', 'out']) {
      expect(await operator(page, id).getAttribute('aria-invalid')).toBeNull();
    }
    expectNoPageErrors(session);
  });

  test('the job gets a name in the job form (nothing selected)', async () => {
    const { page } = session;
    await clickEmptyCanvas(page);
    const panel = inspector(page);
    await panel.getByRole('heading', { name: 'Job' }).waitFor();
    expect(await panel.getByText('3 operators, 2 edges').isVisible()).toBe(true);
    await typeInto(panel.getByRole('textbox', { name: 'Name' }), 'clicks');
    await eventually(async () => expect(await page.title()).toBe('● clicks (unsaved) — Pipewright'));
    expectNoPageErrors(session);
  });

  test('Ctrl+S asks where, saves, and the file is the job as built, valid for the engine', async () => {
    const { page } = session;
    await page.keyboard.press(`${MOD}+S`);
    const dialog = page.getByRole('dialog', { name: 'Save job as' });
    await dialog.waitFor();
    // The suggested name comes from the job's name.
    expect(await dialog.getByLabel('File path').inputValue()).toMatch(/[\\/]clicks\.job\.json$/);
    await session.screenshot('file-dialog-save');
    await dialog.getByLabel('File path').fill(file());
    await dialog.getByLabel('File path').press('Enter');
    await dialog.waitFor({ state: 'detached' });
    await eventually(async () => expect(await page.title()).toBe('clicks.job.json — Pipewright'));
    expect(await page.getByRole('status', { name: 'Unsaved changes' }).count()).toBe(0);

    const text = readText(file());
    const job = JSON.parse(text);
    // Pretty-printed with two spaces and a final newline, keys in the contract's order.
    expect(text).toBe(`${JSON.stringify(job, null, 2)}\n`);
    expect(Object.keys(job)).toEqual(['format', 'name', 'operators', 'edges', 'editor']);
    expect(job.format).toBe('pipewright.job/1');
    expect(job.name).toBe('clicks');
    expect(job.operators).toEqual([
      { id: 'clicks', kind: 'source.jsonl', parallelism: 1, params: { path: 'clicks.jsonl' } },
      { id: 'counter', kind: 'process', parallelism: 4, params: { code: CODE } },
      { id: 'out', kind: 'sink.jsonl', parallelism: 1, params: { path: 'out/clicks.jsonl' } },
    ]);
    expect(job.edges).toEqual([
      { id: 'e1', from: 'clicks', to: 'counter', partition: 'hash', key: 'user' },
      { id: 'e2', from: 'counter', to: 'out', partition: 'rebalance' },
    ]);
    expect(job.operators.map(Object.keys)).toEqual(Array(3).fill(['id', 'kind', 'parallelism', 'params']));
    expect(job.edges.map(Object.keys)).toEqual([
      ['id', 'from', 'to', 'partition', 'key'],
      ['id', 'from', 'to', 'partition'],
    ]);
    // Positions live under editor, one per operator, where they were dropped.
    expect(Object.keys(job.editor)).toEqual(['positions']);
    expect(Object.keys(job.editor.positions)).toEqual(['clicks', 'counter', 'out']);
    for (const id of ['clicks', 'counter', 'out'])
      expect(job.editor.positions[id]).toEqual(await positionOf(page, id));
    // What `pipewright validate` would say: nothing.
    expect(validateJob(job).problems).toEqual([]);
    expectNoPageErrors(session);
  });

  test('reopened through Ctrl+O it draws the same job, and saving it again changes no byte', async () => {
    const { page } = session;
    const saved = readText(file());
    const before = { ops: await operatorNames(page), edges: await edgeNames(page) };
    const positions = await Promise.all(['clicks', 'counter', 'out'].map((id) => positionOf(page, id)));
    // Its input is there, or the Problems panel would warn that it is missing.
    writeFileSync(join(session.workDir, 'clicks.jsonl'), '');

    // Start over, then open the file again.
    await page.getByRole('toolbar', { name: 'Tools' }).getByRole('button', { name: 'New' }).click();
    await eventually(async () => expect(await operatorNames(page)).toEqual([]));
    await openWithShortcut(page, file());
    await operator(page, 'counter').waitFor();
    expect(await page.title()).toBe('clicks.job.json — Pipewright');
    expect(await operatorNames(page)).toEqual(before.ops);
    expect(await edgeNames(page)).toEqual(before.edges);
    expect(await Promise.all(['clicks', 'counter', 'out'].map((id) => positionOf(page, id)))).toEqual(
      positions,
    );
    await operator(page, 'counter').click();
    await eventually(async () =>
      expect(await inspector(page).getByRole('textbox', { name: 'Code' }).innerText()).toBe(CODE),
    );
    await expectNoProblems(page);

    // Nothing changed, so nothing is marked unsaved; a save writes the very same bytes.
    expect(await page.getByRole('status', { name: 'Unsaved changes' }).count()).toBe(0);
    await saveWithShortcut(page, file());
    expect(readText(file())).toBe(saved);
    expectNoPageErrors(session);
  });
});
