// Undo and redo of every kind of edit as single steps, the clipboard commands, auto layout, fit,
// and the unsaved-changes mark and prompt, all through the keyboard shortcuts and the toolbar.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import type { AppSession } from './appHarness.js';
import {
  answerFileDialog,
  type CanvasSnapshot,
  canvasSnapshot,
  clickEmptyCanvas,
  connect,
  dragOperator,
  dropFromPalette,
  eventually,
  expectNoPageErrors,
  inspector,
  isMarkedUnsaved,
  MOD,
  openWithShortcut,
  operator,
  operatorNames,
  paletteItem,
  positionOf,
  readText,
  saveWithShortcut,
  sessionPerFile,
  toolbar,
  typeInto,
} from './helpers.js';

let session: AppSession;

sessionPerFile((opened) => {
  session = opened;
});

const undoButton = () => toolbar(session.page).getByRole('button', { name: 'Undo' });
const redoButton = () => toolbar(session.page).getByRole('button', { name: 'Redo' });

async function expectCanvas(expected: CanvasSnapshot): Promise<void> {
  await eventually(async () => expect(await canvasSnapshot(session.page)).toEqual(expected));
}

/** Answers the "Save changes to …?" prompt. */
async function answerUnsaved(answer: 'Save' | "Don't save" | 'Cancel'): Promise<string> {
  const prompt = session.page.getByRole('dialog', { name: 'Unsaved changes' });
  await prompt.waitFor();
  const question = (await prompt.getByRole('heading').textContent()) ?? '';
  await prompt.getByRole('button', { name: answer, exact: true }).click();
  await prompt.waitFor({ state: 'detached' });
  return question;
}

/** Starts a new, empty document, discarding the current one if it asks. */
async function newDocument(): Promise<void> {
  const { page } = session;
  await toolbar(page).getByRole('button', { name: 'New', exact: true }).click();
  if (await isMarkedUnsaved(page)) await answerUnsaved("Don't save");
  await eventually(async () => expect(await operatorNames(page)).toEqual([]));
}

describe('undo and redo', () => {
  test('adding, moving, connecting, changing a parameter and deleting are one step each, undone and redone in order', async () => {
    const { page } = session;
    await page.getByRole('button', { name: 'New job' }).click();
    await clickEmptyCanvas(page);
    expect(await undoButton().isDisabled()).toBe(true);
    expect(await redoButton().isDisabled()).toBe(true);
    const states: CanvasSnapshot[] = [await canvasSnapshot(page)];
    const step = async (edit: () => Promise<void>, drawn = true) => {
      const before = states[states.length - 1];
      await edit();
      if (drawn) await eventually(async () => expect(await canvasSnapshot(page)).not.toEqual(before));
      states.push(await canvasSnapshot(page));
    };

    // 1. add (palette click)
    await step(async () => {
      await paletteItem(page, 'source.jsonl').click();
    });
    const pane = (await page.locator('.react-flow__pane').boundingBox())!;
    const src = (await operator(page, 'source1').boundingBox())!;
    // 2. add (palette drag), to the right
    await step(async () => {
      await dropFromPalette(page, 'map', { x: pane.x + pane.width * 0.85, y: src.y + src.height / 2 });
    });
    // 3. move
    await step(async () => {
      await dragOperator(page, 'map1', 0, 120);
    });
    expect(states[3]!.positions.map1!.y - states[2]!.positions.map1!.y).toBeGreaterThan(80);
    // 4. connect
    await step(async () => {
      await connect(page, 'source1', 'map1');
    });
    // 5. an operator field: parallelism, typed
    await step(async () => {
      await operator(page, 'map1').click();
      await typeInto(inspector(page).getByRole('textbox', { name: 'Parallelism' }), '3');
    });
    // 6. a parameter typed key by key: one step for the whole word
    await step(async () => {
      await operator(page, 'source1').click();
      await typeInto(inspector(page).getByRole('textbox', { name: 'Path' }), 'events.jsonl');
    }, false);
    // 7. delete with the Delete key: the operator and its edge go together
    await step(async () => {
      await operator(page, 'map1').click();
      await page.keyboard.press('Delete');
    });
    expect(states.map((s) => [s.operators.length, s.edges.length])).toEqual([
      [0, 0],
      [1, 0],
      [2, 0],
      [2, 0],
      [2, 1],
      [2, 1],
      [2, 1],
      [1, 0],
    ]);
    expect(states[5]!.operators).toContain('Operator map1, Map, parallelism 3');
    expect(states[4]!.edges).toEqual(['Edge e1 from source1 to map1, forward']);
    expect(states[4]!.operators).toContain('Operator map1, Map, parallelism 1');

    // The path is not on the canvas: the inspector shows it.
    const path = () => inspector(page).getByRole('textbox', { name: 'Path' });
    await operator(page, 'source1').click();
    expect(await path().inputValue()).toBe('events.jsonl');

    // Ctrl+Z walks back one edit at a time (checked on the canvas, and the path in the inspector).
    await clickEmptyCanvas(page);
    for (let k = states.length - 2; k >= 0; k--) {
      await page.keyboard.press(`${MOD}+Z`);
      await expectCanvas(states[k]!);
      if (k === 5) {
        await operator(page, 'source1').click();
        expect(await path().inputValue()).toBe('input.jsonl');
        await clickEmptyCanvas(page);
      }
    }
    await eventually(async () => expect(await undoButton().isDisabled()).toBe(true));
    // Shift+Ctrl+Z (and Ctrl+Y, and the toolbar) walk forward again.
    for (let k = 1; k < states.length; k++) {
      if (k === 3) await page.keyboard.press(`${MOD}+Y`);
      else if (k === 6) await redoButton().click();
      else await page.keyboard.press(`Shift+${MOD}+Z`);
      await expectCanvas(states[k]!);
    }
    await eventually(async () => expect(await redoButton().isDisabled()).toBe(true));
    await operator(page, 'source1').click();
    expect(await path().inputValue()).toBe('events.jsonl');
    // The toolbar's Undo is the same step as Ctrl+Z.
    await undoButton().click();
    await expectCanvas(states[6]!);
    expectNoPageErrors(session);
  });

  test("Ctrl+Z in the code editor undoes the document's edit, not only the editor's", async () => {
    const { page } = session;
    await newDocument();
    await paletteItem(page, 'map').click();
    const code = inspector(page).getByRole('textbox', { name: 'Code' });
    const original = 'function map(record, ctx) {\n  return record;\n}\n';
    await eventually(async () => expect(await code.textContent()).toBe(original.replace(/\n/g, '')));
    await code.click();
    await page.keyboard.press(`${MOD}+End`);
    await page.keyboard.type('// tidy');
    await eventually(async () => expect(await code.textContent()).toContain('// tidy'));
    await page.keyboard.press(`${MOD}+Z`);
    await eventually(async () => expect(await code.textContent()).toBe(original.replace(/\n/g, '')));
    // One step took the whole typed comment; the operator added before is still there.
    expect(await operatorNames(page)).toEqual(['Operator map1, Map, parallelism 1']);
    await page.keyboard.press(`Shift+${MOD}+Z`);
    await eventually(async () => expect(await code.textContent()).toContain('// tidy'));
    expectNoPageErrors(session);
  });

  test('copy and paste, duplicate, select all, delete and cut, each undoable', async () => {
    const { page } = session;
    await newDocument();
    await paletteItem(page, 'source.jsonl').click();
    const pane = (await page.locator('.react-flow__pane').boundingBox())!;
    const src = (await operator(page, 'source1').boundingBox())!;
    await dropFromPalette(page, 'filter', { x: pane.x + pane.width * 0.85, y: src.y + src.height / 2 });
    await connect(page, 'source1', 'filter1');
    await eventually(async () => expect((await canvasSnapshot(page)).edges).toHaveLength(1));

    // Ctrl+C, Ctrl+V: a copy beside the original, selected.
    await operator(page, 'source1').click();
    await page.keyboard.press(`${MOD}+C`);
    await page.keyboard.press(`${MOD}+V`);
    await operator(page, 'source2').waitFor();
    const p1 = await positionOf(page, 'source1');
    expect(await positionOf(page, 'source2')).toEqual({ x: p1.x + 40, y: p1.y + 40 });
    await inspector(page).getByRole('heading', { name: 'Operator source2' }).waitFor();
    // Ctrl+D duplicates what is selected (the copy).
    await page.keyboard.press(`${MOD}+D`);
    await operator(page, 'source3').waitFor();
    expect(await positionOf(page, 'source3')).toEqual({ x: p1.x + 80, y: p1.y + 80 });

    // Two connected operators copied together bring their edge along.
    await operator(page, 'source1').click();
    await operator(page, 'filter1').click({ modifiers: [MOD] });
    await inspector(page).getByText('2 items are selected').waitFor();
    await page.keyboard.press(`${MOD}+C`);
    await page.keyboard.press(`${MOD}+V`);
    await operator(page, 'filter2').waitFor();
    const afterPaste = await canvasSnapshot(page);
    expect(afterPaste.operators).toHaveLength(6);
    expect(afterPaste.edges).toEqual([
      'Edge e1 from source1 to filter1, forward',
      'Edge e2 from source4 to filter2, forward',
    ]);

    // Ctrl+A selects everything; Delete removes it all; one Ctrl+Z brings it all back.
    await clickEmptyCanvas(page);
    await page.keyboard.press(`${MOD}+A`);
    await inspector(page).getByText('8 items are selected').waitFor();
    await page.keyboard.press('Delete');
    await eventually(async () => expect(await operatorNames(page)).toEqual([]));
    await page.keyboard.press(`${MOD}+Z`);
    await expectCanvas(afterPaste);

    // Ctrl+X cuts: gone from the canvas, and Ctrl+V puts it back (without the edge it had).
    await operator(page, 'filter2').click();
    await page.keyboard.press(`${MOD}+X`);
    await eventually(async () => expect(await operatorNames(page)).toHaveLength(5));
    expect((await canvasSnapshot(page)).edges).toEqual(['Edge e1 from source1 to filter1, forward']);
    await page.keyboard.press(`${MOD}+V`);
    await operator(page, 'filter2').waitFor();
    expect((await canvasSnapshot(page)).edges).toEqual(['Edge e1 from source1 to filter1, forward']);
    // Each of those was one step: undo the paste, the cut, the second paste.
    await clickEmptyCanvas(page);
    await page.keyboard.press(`${MOD}+Z`);
    await page.keyboard.press(`${MOD}+Z`);
    await expectCanvas(afterPaste);
    await page.keyboard.press(`${MOD}+Z`);
    await eventually(async () => expect(await operatorNames(page)).toHaveLength(4));
    expectNoPageErrors(session);
  });

  test('Auto layout moves every operator in one undo step', async () => {
    const { page } = session;
    // Scatter: drag the operators into a jumble first.
    await dragOperator(page, 'source3', -150, 120);
    await dragOperator(page, 'filter1', -300, -60);
    const before = await canvasSnapshot(page);
    await toolbar(page).getByRole('button', { name: 'Auto layout' }).click();
    await eventually(async () =>
      expect((await canvasSnapshot(page)).positions).not.toEqual(before.positions),
    );
    const laidOut = await canvasSnapshot(page);
    // Left to right: the edge's source is left of its target; everything on the 10 px grid.
    expect(laidOut.positions.source1!.x).toBeLessThan(laidOut.positions.filter1!.x);
    for (const p of Object.values(laidOut.positions)) {
      expect(p.x % 10).toBe(0);
      expect(p.y % 10).toBe(0);
    }
    await clickEmptyCanvas(page);
    await page.keyboard.press(`${MOD}+Z`);
    await expectCanvas(before);
    await page.keyboard.press(`Shift+${MOD}+Z`);
    await expectCanvas(laidOut);
    expectNoPageErrors(session);
  });

  test('F fits every operator into view', async () => {
    const { page } = session;
    const pane = (await page.locator('.react-flow__pane').boundingBox())!;
    const inView = async () => {
      const boxes = await Promise.all(
        (await page.locator('.react-flow__node').all()).map(async (n) => (await n.boundingBox())!),
      );
      return boxes.every(
        (b) =>
          b.x >= pane.x &&
          b.y >= pane.y &&
          b.x + b.width <= pane.x + pane.width &&
          b.y + b.height <= pane.y + pane.height,
      );
    };
    // Pan the operators out of sight by dragging the empty canvas.
    await page.mouse.move(pane.x + pane.width - 30, pane.y + 20);
    await page.mouse.down();
    await page.mouse.move(pane.x + 30, pane.y + 20, { steps: 10 });
    await page.mouse.up();
    await page.mouse.move(pane.x + 30, pane.y + 20);
    await page.mouse.down();
    await page.mouse.move(pane.x + 30, pane.y + pane.height - 30, { steps: 10 });
    await page.mouse.up();
    expect(await inView()).toBe(false);
    await page.keyboard.press('f');
    await eventually(async () => expect(await inView()).toBe(true));
    expectNoPageErrors(session);
  });

  test('the unsaved mark follows the document; New asks, and its Save saves before starting over', async () => {
    const { page } = session;
    const file = join(session.workDir, 'scratch.job.json');
    expect(await isMarkedUnsaved(page)).toBe(true);
    expect(await page.title()).toMatch(/^● untitled \(unsaved\) — Pipewright$/);

    // Cancel keeps the document as it is.
    await toolbar(page).getByRole('button', { name: 'New', exact: true }).click();
    expect(await answerUnsaved('Cancel')).toBe('Save changes to untitled?');
    expect(await operatorNames(page)).toHaveLength(4);

    // Save asks where, writes the file, then starts the new document.
    const kept = await canvasSnapshot(page);
    await toolbar(page).getByRole('button', { name: 'New', exact: true }).click();
    await answerUnsaved('Save');
    await answerFileDialog(page, 'Save job as', file, 'Save');
    await eventually(async () => expect(await operatorNames(page)).toEqual([]));
    expect(existsSync(file)).toBe(true);
    expect(JSON.parse(readText(file)).operators).toHaveLength(4);
    expect(await isMarkedUnsaved(page)).toBe(false);

    // Opened again, it is clean; an edit marks it, and undoing that edit clears the mark.
    await openWithShortcut(page, file);
    await expectCanvas(kept);
    expect(await isMarkedUnsaved(page)).toBe(false);
    await dragOperator(page, 'source1', 0, 80);
    await eventually(async () => expect(await isMarkedUnsaved(page)).toBe(true));
    expect(await page.title()).toBe('● scratch.job.json — Pipewright');
    await page.keyboard.press(`${MOD}+Z`);
    await eventually(async () => expect(await isMarkedUnsaved(page)).toBe(false));
    expect(await page.title()).toBe('scratch.job.json — Pipewright');

    // Ctrl+S works while typing in a field too.
    await clickEmptyCanvas(page);
    await typeInto(inspector(page).getByRole('textbox', { name: 'Name' }), 'scratch', 'none');
    await eventually(async () => expect(await isMarkedUnsaved(page)).toBe(true));
    await saveWithShortcut(page, file);
    expect(JSON.parse(readText(file)).name).toBe('scratch');
    expectNoPageErrors(session);
  });

  test('leaving the page with unsaved changes asks the browser to confirm', async () => {
    const { page } = session;
    await dragOperator(page, 'source1', 0, 80);
    await eventually(async () => expect(await isMarkedUnsaved(page)).toBe(true));
    const asked = new Promise<string>((resolve) => {
      page.once('dialog', (dialog) => {
        resolve(dialog.type());
        void dialog.dismiss();
      });
      setTimeout(() => resolve('no dialog within 5 s'), 5000);
    });
    await page.evaluate('location.reload()');
    expect(await asked).toBe('beforeunload');
    // Staying keeps the document and its changes.
    expect(await isMarkedUnsaved(page)).toBe(true);
    expect(await operatorNames(page)).toHaveLength(4);
    expectNoPageErrors(session);
  });
});
