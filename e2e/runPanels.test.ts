// The owner-has-items template run on a bigger input of the user's own (1,200 owners), as a user
// would: a plain Run (saving the job first) and its Metrics tab, one chart per operator; the
// State tab's browser paging through one subtask's owners 50 at a time and finding them by key
// prefix; and Stop, of a debug run paused at a step and of one running to its end.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import type { AppSession } from './appHarness.js';
import { eventually, expectNoPageErrors, operator, readText, sessionPerFile } from './helpers.js';
import {
  canvasMarks,
  enabledRunButtons,
  expectOwnershipOutput,
  expectStatus,
  itemsOf,
  JOB,
  OWNERS_PARALLELISM,
  type OwnerEvent,
  openTab,
  runButton,
  saveBeforeRunning,
  subtaskOf,
} from './runSupport.js';

const OWNERS = 1200;
const TWO_ITEMS = 300;
const PAGE_SIZE = 50;

/**
 * Every owner gets an item; the first few a second one, and then give their first item to an
 * owner further on. No owner is left empty and no move can overtake its item, so each owner
 * keeps exactly one "items" entry and nothing waits.
 */
function bigInput(): OwnerEvent[] {
  const events: OwnerEvent[] = [];
  let seq = 0;
  for (let k = 1; k <= OWNERS; k++) events.push({ seq: ++seq, type: 'add', owner: `o${k}`, item: `i${k}` });
  for (let k = 1; k <= TWO_ITEMS; k++)
    events.push({ seq: ++seq, type: 'add', owner: `o${k}`, item: `i${OWNERS + k}` });
  for (let k = 1; k <= TWO_ITEMS; k++) {
    const [from, to] = [`o${k}`, `o${k + OWNERS / 2}`];
    events.push({ seq: ++seq, type: 'move', owner: from, item: `i${k}`, from, to });
  }
  return events;
}

const EVENTS = bigInput();
const ALL_OWNERS = Array.from({ length: OWNERS }, (_, k) => `o${k + 1}`);
/** The owners a subtask keeps, in the state browser's order (key text, UTF-8: plain ASCII order here). */
const ownersOn = (subtask: number) => ALL_OWNERS.filter((o) => subtaskOf(o) === subtask).sort();

let session: AppSession;
const jobFile = () => join(session.workDir, 'owner-has-items.job.json');

sessionPerFile((opened) => {
  session = opened;
});

describe('running owner-has-items on a bigger input', () => {
  test('Run saves the job first and runs it to the end; the output says who owns what', async () => {
    const { page } = session;
    writeFileSync(
      join(session.workDir, 'events.jsonl'),
      `${EVENTS.map((e) => JSON.stringify(e)).join('\n')}\n`,
    );
    await page.getByRole('button', { name: 'Open template owner-has-items', exact: true }).click();
    await operator(page, 'owners').waitFor();
    await runButton(page, 'Run').click();
    await saveBeforeRunning(page, 'owner-has-items', jobFile());
    await eventually(() => expect(existsSync(jobFile())).toBe(true));
    await expectStatus(
      page,
      new RegExp(`^Finished — done: ${EVENTS.length} records from the sources in [\\d.]+ s$`),
    );
    expectOwnershipOutput(readText(join(session.workDir, 'out', 'ownership.jsonl')), EVENTS);
    // A plain run takes no steps: the Debugger says how to get them.
    const panel = await openTab(page, 'Debugger');
    expect(await panel.getByText('A run started with Run does not stop at steps').count()).toBe(1);
    expectNoPageErrors(session);
  });

  test('the Metrics tab shows one chart per operator; the run over, named with what went through in all', async () => {
    const { page } = session;
    const panel = await openTab(page, 'Metrics');
    // The run has ended: its last rate is no rate now (issue 25, item 25), the charts are history.
    const charts = panel.getByRole('img', { name: /: records per second over the run's last minute; / });
    await eventually(async () => expect(await charts.count()).toBe(JOB.operators.length));
    const names = await charts.evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') ?? ''));
    const count = '\\d[\\d,]*';
    expect(names.map((n) => n.split(':')[0])).toEqual(JOB.operators.map((o) => o.id));
    for (const name of names) {
      expect(name).toMatch(
        new RegExp(`^\\w+: records per second over the run's last minute; ${count} in, ${count} out in all$`),
      );
    }
    // A sink writes its records and passes none on.
    expect(names.at(-1)).toMatch(
      /^out: records per second over the run's last minute; [\d,]+ in, 0 out in all$/,
    );
    // Each chart's caption says the same as its name.
    const captions = await panel.locator('figure figcaption').allInnerTexts();
    expect(captions).toEqual(
      names.map((n) => n.replace(/: records per second over the run's last minute; /, ' ')),
    );
    // uPlot drew each one.
    expect(await panel.locator('figure canvas').count()).toBe(JOB.operators.length);
    await session.screenshot('metrics-panel');
    expectNoPageErrors(session);
  });

  test("the state browser pages through a subtask's owners 50 at a time, in key order, and back", async () => {
    const { page } = session;
    const panel = await openTab(page, 'State');
    const browser = panel.getByRole('region', { name: 'State browser' });
    await browser.waitFor();
    expect(await browser.getByRole('combobox', { name: 'Operator' }).inputValue()).toBe('owners');
    expect(
      await browser.getByRole('combobox', { name: 'Subtask' }).locator('option').allInnerTexts(),
    ).toEqual(Array.from({ length: OWNERS_PARALLELISM }, (_, k) => String(k)));
    const subtask = 1;
    const expected = ownersOn(subtask);
    expect(expected.length).toBeGreaterThan(2 * PAGE_SIZE);
    await browser.getByRole('combobox', { name: 'Subtask' }).selectOption(String(subtask));

    const entries = browser.getByRole('table', { name: 'State entries' });
    const pageLabel = browser.getByText(/^Page \d+$/);
    const next = browser.getByRole('button', { name: 'Next', exact: true });
    const previous = browser.getByRole('button', { name: 'Previous', exact: true });
    const keysShown = async () =>
      entries.locator(':scope > tbody > tr').evaluateAll((rows) =>
        rows.map((row) =>
          [...row.children]
            .filter((cell) => cell.tagName === 'TD')
            .slice(0, 3)
            .map((td) => td.textContent)
            .join(' '),
        ),
      );
    const pageOf = (n: number) =>
      expected.slice((n - 1) * PAGE_SIZE, n * PAGE_SIZE).map((o) => `"${o}" items map`);

    const pages = Math.ceil(expected.length / PAGE_SIZE);
    const seen: string[][] = [];
    for (let n = 1; n <= pages; n++) {
      if (n > 1) await next.click();
      await eventually(async () => {
        expect(await pageLabel.textContent()).toBe(`Page ${n}`);
        expect(await keysShown()).toEqual(pageOf(n));
      });
      expect(await previous.isDisabled()).toBe(n === 1);
      expect(await next.isDisabled()).toBe(n === pages);
      seen.push(await keysShown());
    }
    // Every owner of the subtask once, and no other.
    expect(seen.flat()).toEqual(expected.map((o) => `"${o}" items map`));

    await previous.click();
    await eventually(async () => {
      expect(await pageLabel.textContent()).toBe(`Page ${pages - 1}`);
      expect(await keysShown()).toEqual(seen[pages - 2]);
    });
    await session.screenshot('state-browser-paging');
    expectNoPageErrors(session);
  });

  test('the key prefix finds owners on the subtask chosen; another subtask has the others', async () => {
    const { page } = session;
    const browser = page.getByRole('region', { name: 'State browser' });
    const entries = browser.getByRole('table', { name: 'State entries' });
    const prefixField = browser.getByRole('searchbox', { name: 'Key prefix' });
    const subtask = 1;
    const keys = async () => entries.locator(':scope > tbody > tr > td:first-child').allInnerTexts();

    // "o7" is o7, o70–o79 and o700–o799: those of subtask 1, on one page, from page 1.
    await prefixField.fill('o7');
    const withPrefix = ownersOn(subtask).filter((o) => o.startsWith('o7'));
    expect(withPrefix.length).toBeGreaterThan(0);
    expect(withPrefix.length).toBeLessThanOrEqual(PAGE_SIZE);
    await eventually(async () => expect(await keys()).toEqual(withPrefix.map((o) => `"${o}"`)));
    expect(await browser.getByText(/^Page \d+$/).textContent()).toBe('Page 1');
    expect(await browser.getByRole('button', { name: 'Next', exact: true }).isDisabled()).toBe(true);

    // An owner the move gave a second item shows both, with the seq each came by.
    const receiver = withPrefix.find((o) => itemsOf(EVENTS, o).length === 2) ?? withPrefix[0]!;
    const items = itemsOf(EVENTS, receiver);
    // A map's elements are rows: each item and the seq it came by.
    const elements = entries.getByRole('table', { name: `items of ${receiver}` });
    expect(
      await elements
        .locator('tbody tr')
        .evaluateAll((rows) =>
          rows.map((row) => [...row.querySelectorAll('td')].map((td) => td.textContent)),
        ),
    ).toEqual(items.map(([item, value]) => [JSON.stringify(item), JSON.stringify(value)]));
    const row = entries
      .locator(':scope > tbody > tr')
      .filter({ has: page.getByRole('table', { name: `items of ${receiver}` }) });
    expect(await row.locator(':scope > td').nth(3).locator('.muted').textContent()).toBe(
      `${items.length} element${items.length === 1 ? '' : 's'}`,
    );

    // An owner of another subtask is not found here; choosing its subtask finds it alone.
    const elsewhere = ALL_OWNERS.find((o) => Number(o.slice(1)) > OWNERS / 10 && subtaskOf(o) !== subtask)!;
    await prefixField.fill(elsewhere);
    await browser.getByText(`No key of this subtask starts with “${elsewhere}”.`).waitFor();
    await browser.getByRole('combobox', { name: 'Subtask' }).selectOption(String(subtaskOf(elsewhere)));
    await eventually(async () => expect(await keys()).toEqual([`"${elsewhere}"`]));
    await browser.getByRole('button', { name: 'Refresh' }).click();
    await eventually(async () => expect(await keys()).toEqual([`"${elsewhere}"`]));
    await session.screenshot('state-browser-prefix');

    // Cleared, the browser is back at the first page of that subtask.
    await prefixField.fill('');
    await eventually(async () =>
      expect(await keys()).toEqual(
        ownersOn(subtaskOf(elsewhere))
          .slice(0, PAGE_SIZE)
          .map((o) => `"${o}"`),
      ),
    );
    expectNoPageErrors(session);
  });

  test('Stop ends a debug run paused at a step: the canvas lets go of it and Run and Debug are back', async () => {
    const { page } = session;
    await runButton(page, 'Debug').click();
    await expectStatus(page, 'Paused before the first step');
    const panel = await openTab(page, 'Debugger');
    await panel.getByText('Paused before the first step. Step (F10) delivers the first record.').waitFor();
    expect(await enabledRunButtons(page)).toEqual([
      'Resume',
      'Stop',
      'Step',
      'Run to next operator',
      'Restart from checkpoint…',
    ]);

    await page.keyboard.press('F10');
    await expectStatus(page, 'Paused at step 1');
    const step = panel.getByRole('article', { name: 'Current step' });
    await eventually(async () =>
      expect(await step.getByRole('heading', { level: 3 }).textContent()).toBe(
        'Step 1: events#0, record produced by the source',
      ),
    );
    expect(
      JSON.parse((await step.getByRole('region', { name: 'Record' }).locator('pre').textContent()) ?? ''),
    ).toEqual(EVENTS[0]);
    expect(await canvasMarks(page)).toEqual({ operators: ['events#0'], edges: [] });

    await runButton(page, 'Stop').click();
    await expectStatus(page, 'Stopped — stopped at step 1');
    expect(await canvasMarks(page)).toEqual({ operators: [], edges: [] });
    expect(await enabledRunButtons(page)).toEqual(['Run', 'Debug', 'Restart from checkpoint…']);
    await session.screenshot('debug-stopped-paused');
    expectNoPageErrors(session);
  });

  test('Stop ends a debug run while it runs to the end, where it is', async () => {
    const { page } = session;
    await runButton(page, 'Debug').click();
    await expectStatus(page, 'Paused before the first step');
    await runButton(page, 'Resume').click();
    await expectStatus(page, 'Debugging: running to the next breakpoint');
    expect(await enabledRunButtons(page)).toEqual(['Pause', 'Stop', 'Restart from checkpoint…']);
    await runButton(page, 'Stop').click();
    const status = await expectStatus(page, /^Stopped — stopped at step \d+$/);
    const at = Number(/step (\d+)$/.exec(status)?.[1]);
    // Short of the end: an add is at least three steps (read, owners, out) and a move five
    // (read, owners, the transfer back into owners, two records out).
    const adds = EVENTS.filter((e) => e.type === 'add').length;
    expect(at).toBeGreaterThan(0);
    expect(at).toBeLessThan(3 * adds + 5 * (EVENTS.length - adds));
    expect(await enabledRunButtons(page)).toEqual(['Run', 'Debug', 'Restart from checkpoint…']);
    expectNoPageErrors(session);
  });
});
