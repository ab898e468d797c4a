// Drawing a cycle: the connection line warns before the drop, the Problems panel names the cycle's
// operators and edges, the canvas marks them, a click on a problem selects and centres what it
// names, and making one edge of the cycle a feedback edge (from the panel, from the edge itself,
// or with the inspector's checkbox) makes the problem go, each in one undo step.
import { describe, expect, test } from 'vitest';
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
  operator,
  paletteItem,
  problemList,
  problemMessages,
  sessionPerFile,
  typeInto,
} from './helpers.js';

let session: AppSession;

sessionPerFile((opened) => {
  session = opened;
});

/** Centre of an element's box, in screen coordinates. */
async function centre(locator: ReturnType<typeof operator>) {
  const box = (await locator.boundingBox())!;
  return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
}

async function invalid(id: string): Promise<boolean> {
  return (await operator(session.page, id).getAttribute('aria-invalid')) === 'true';
}

async function edgeInvalid(id: string): Promise<boolean> {
  return (await edge(session.page, id).locator('path.pw-edge-invalid').count()) === 1;
}

const CYCLE = /^cycle without a feedback edge: .*process1.*map1.*\(edges? .*e2.*e3.*\)/;

describe('a cycle', () => {
  test('source -> process -> map is drawn, then map -> process; the line warns before the drop', async () => {
    const { page } = session;
    await page.getByRole('button', { name: 'New job' }).click();
    await paletteItem(page, 'source.jsonl').click();
    await operator(page, 'source1').waitFor();
    const pane = (await page.locator('.react-flow__pane').boundingBox())!;
    const src = await centre(operator(page, 'source1'));
    await dragOperator(page, 'source1', pane.x + pane.width * 0.12 - src.x, -80);
    await dropFromPalette(page, 'process', { x: pane.x + pane.width * 0.5, y: src.y - 80 });
    await dropFromPalette(page, 'map', { x: pane.x + pane.width * 0.86, y: src.y - 80 });
    await operator(page, 'map1').waitFor();
    await connect(page, 'source1', 'process1');
    await connect(page, 'process1', 'map1');
    await eventually(async () => expect(await edgeNames(page)).toHaveLength(2));
    await expectNoProblems(page);

    // Drag from map's output back to process's input, and look before letting go.
    const from = await centre(operator(page, 'map1').locator('.react-flow__handle[data-handleid="out"]'));
    const to = await centre(operator(page, 'process1').locator('.react-flow__handle[data-handleid="in"]'));
    await page.mouse.move(from.x, from.y);
    await page.mouse.down();
    await page.mouse.move(to.x, to.y, { steps: 15 });
    await canvas(page).getByText('closes a cycle: will need to be a feedback edge').waitFor();
    await page.mouse.up();
    await edge(page, 'e3').waitFor({ state: 'attached' });
    expect(await canvas(page).getByText('closes a cycle').count()).toBe(0);
    expect(await edgeNames(page)).toEqual([
      'Edge e1 from source1 to process1, forward',
      'Edge e2 from process1 to map1, forward',
      'Edge e3 from map1 to process1, forward',
    ]);
    expectNoPageErrors(session);
  });

  test('the Problems panel names the cycle, and its operators and edges are marked on the canvas', async () => {
    const { page } = session;
    await eventually(async () => expect(await problemMessages(page)).toHaveLength(1));
    const [message] = await problemMessages(page);
    expect(message).toMatch(CYCLE);
    expect(await page.getByRole('tab', { name: 'Problems 1' }).getAttribute('aria-selected')).toBe('true');
    const row = problemList(page).getByRole('listitem');
    expect(await row.getByRole('button', { name: /cycle without a feedback edge/ }).innerText()).toContain(
      'operator process1',
    );
    // Either edge of the cycle may become the feedback edge.
    expect(await row.getByRole('button', { name: /^Make e\d a feedback edge$/ }).allInnerTexts()).toEqual([
      'Make e2 a feedback edge',
      'Make e3 a feedback edge',
    ]);
    expect([await invalid('source1'), await invalid('process1'), await invalid('map1')]).toEqual([
      false,
      true,
      true,
    ]);
    expect([await edgeInvalid('e1'), await edgeInvalid('e2'), await edgeInvalid('e3')]).toEqual([
      false,
      true,
      true,
    ]);
    // The mark says why on hover.
    expect(await operator(page, 'map1').locator('.op-card').getAttribute('title')).toMatch(CYCLE);
    await clickEmptyCanvas(page);
    await page.keyboard.press('f');
    await page.waitForTimeout(250);
    await session.screenshot('problems-cycle');
    expectNoPageErrors(session);
  });

  test('clicking the problem selects and centres the operator it names', async () => {
    const { page } = session;
    // Pan the canvas so that process1 is far from the middle first.
    const pane = (await page.locator('.react-flow__pane').boundingBox())!;
    await page.mouse.move(pane.x + 20, pane.y + 20);
    await page.mouse.down();
    await page.mouse.move(pane.x + 220, pane.y + 170, { steps: 8 });
    await page.mouse.up();
    const middle = { x: pane.x + pane.width / 2, y: pane.y + pane.height / 2 };
    const away = await centre(operator(page, 'process1'));
    expect(Math.hypot(away.x - middle.x, away.y - middle.y)).toBeGreaterThan(100);

    await problemList(page)
      .getByRole('button', { name: /cycle without a feedback edge/ })
      .click();
    await inspector(page).getByRole('heading', { name: 'Operator process1' }).waitFor();
    expect(await operator(page, 'process1').locator('.op-card.op-selected').count()).toBe(1);
    await eventually(async () => {
      const at = await centre(operator(page, 'process1'));
      expect(Math.abs(at.x - middle.x)).toBeLessThan(4);
      expect(Math.abs(at.y - middle.y)).toBeLessThan(4);
    });
    expectNoPageErrors(session);
  });

  test('"Make e3 a feedback edge" in the panel breaks the cycle; the hash key it then needs is typed in', async () => {
    const { page } = session;
    await problemList(page).getByRole('button', { name: 'Make e3 a feedback edge' }).click();
    await eventually(async () =>
      expect(await edgeNames(page)).toContain('Edge e3 from map1 to process1, hash(?), feedback'),
    );
    expect(await edge(page, 'e3').getAttribute('class')).toContain('react-flow__edge-feedback');
    // The cycle is gone; a feedback edge is hash-partitioned and this one has no key yet.
    const messages = await problemMessages(page);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatch(/edge "e3" is hash-partitioned but has no key/);
    expect([await invalid('process1'), await invalid('map1')]).toEqual([false, false]);
    expect([await edgeInvalid('e2'), await edgeInvalid('e3')]).toEqual([false, true]);

    // That problem names the edge: a click selects it, centres it (midway between its
    // operators) and opens its form, where the key goes.
    await page.keyboard.press('f');
    await problemList(page)
      .getByRole('button', { name: /has no key/ })
      .click();
    const panel = inspector(page);
    await panel.getByRole('heading', { name: 'Edge e3' }).waitFor();
    const pane = (await page.locator('.react-flow__pane').boundingBox())!;
    await eventually(async () => {
      const [a, b] = [await centre(operator(page, 'map1')), await centre(operator(page, 'process1'))];
      expect(Math.abs((a.x + b.x) / 2 - (pane.x + pane.width / 2))).toBeLessThan(4);
      expect(Math.abs((a.y + b.y) / 2 - (pane.y + pane.height / 2))).toBeLessThan(4);
    });
    expect(await panel.getByRole('checkbox', { name: 'Feedback edge' }).isChecked()).toBe(true);
    expect(await panel.getByRole('combobox', { name: 'Partition' }).inputValue()).toBe('hash');
    await typeInto(panel.getByRole('textbox', { name: 'Key' }), 'owner');
    await expectNoProblems(page);
    expect(await edgeNames(page)).toContain('Edge e3 from map1 to process1, hash(owner), feedback');
    expect([await edgeInvalid('e2'), await edgeInvalid('e3')]).toEqual([false, false]);
    expectNoPageErrors(session);
  });

  test('undo takes back the key, then the feedback edge, one step each: the cycle is back', async () => {
    const { page } = session;
    await clickEmptyCanvas(page);
    await page.keyboard.press(`${MOD}+Z`);
    await eventually(async () =>
      expect(await edgeNames(page)).toContain('Edge e3 from map1 to process1, hash(?), feedback'),
    );
    await page.keyboard.press(`${MOD}+Z`);
    await eventually(async () =>
      expect(await edgeNames(page)).toContain('Edge e3 from map1 to process1, forward'),
    );
    await eventually(async () => expect(await problemMessages(page)).toEqual([expect.stringMatching(CYCLE)]));
    expectNoPageErrors(session);
  });

  test('the selected edge offers the same fix on the canvas', async () => {
    const { page } = session;
    await clickEdge(page, 'e3');
    await inspector(page).getByRole('heading', { name: 'Edge e3' }).waitFor();
    const onCanvas = canvas(page).getByRole('button', { name: 'Make e3 a feedback edge' });
    expect(await onCanvas.innerText()).toBe('Make feedback edge');
    await onCanvas.click();
    await eventually(async () =>
      expect(await edgeNames(page)).toContain('Edge e3 from map1 to process1, hash(?), feedback'),
    );
    expect(await problemMessages(page)).toEqual([expect.stringMatching(/e3.*has no key/)]);
    // A feedback edge is no longer offered the fix.
    expect(
      await canvas(page)
        .getByRole('button', { name: /feedback edge/ })
        .count(),
    ).toBe(0);
    expectNoPageErrors(session);
  });

  test("the inspector's checkbox turns the feedback edge off and on again", async () => {
    const { page } = session;
    const panel = inspector(page);
    await panel.getByRole('heading', { name: 'Edge e3' }).waitFor();
    const box = panel.getByRole('checkbox', { name: 'Feedback edge' });
    await box.uncheck();
    await eventually(async () =>
      expect(await problemMessages(page)).toContainEqual(expect.stringMatching(CYCLE)),
    );
    expect(await edgeNames(page)).toContain('Edge e3 from map1 to process1, hash(?)');
    await box.check();
    await eventually(async () =>
      expect(await problemMessages(page)).toEqual([expect.stringMatching(/e3.*has no key/)]),
    );
    await typeInto(panel.getByRole('textbox', { name: 'Key' }), 'owner');
    await expectNoProblems(page);
    expectNoPageErrors(session);
  });
});
