// The state browser as a user meets it after a debug run of a keyed job with three kinds of state
// (a count, a map of items that come and go, a list), checkpoints every 50 steps and the last 2
// kept: the Keys column counts each key once and each state says its entries; a key is found
// without knowing its subtask; a map shows as rows of (key, value), more a page at a time; the
// compare offers only the checkpoints still there and marks each element added, removed or
// changed, its result in view where Compare was pressed; and the Debugger opens a record's key
// in the State panel.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator } from 'playwright-core';
import { describe, expect, test } from 'vitest';
import { keyGroupOf, subtaskOfKeyGroup } from '../engine/graph/keyGroups.js';
import type { AppSession } from './appHarness.js';
import { answerFileDialog, eventually, expectNoPageErrors, operator, sessionPerFile } from './helpers.js';
import { inView } from './inView.js';
import { expectStatus, openTab, runButton } from './runSupport.js';

const RECORDS = 120;
const KEYS = 6;
const PARALLELISM = 3;
const MAX_PARALLELISM = 128;
const pad = (i: number) => String(i).padStart(3, '0');

const CODE = `function process(r, ctx) {
  const n = ctx.state.value("n");
  n.set((n.get() ?? 0) + 1);
  const items = ctx.state.map("items");
  const pad = (i) => String(i).padStart(3, "0");
  items.set("i" + pad(r.i), r.i);
  // A key keeps its last 16 records' items, and each record marks the item of two records back.
  if (r.i >= 16 * ${KEYS}) items.delete("i" + pad(r.i - 16 * ${KEYS}));
  if (r.i >= 2 * ${KEYS}) items.set("i" + pad(r.i - 2 * ${KEYS}), -r.i);
  if (r.i % 2 === 0) ctx.state.list("log").add(r.i);
}`;

const JOB = {
  format: 'pipewright.job/1',
  name: 'kept',
  settings: {
    stateBackend: 'level',
    checkpointIntervalMs: 50,
    checkpointsRetained: 2,
    maxParallelism: MAX_PARALLELISM,
  },
  operators: [
    {
      id: 'gen',
      kind: 'source.generator',
      parallelism: 1,
      params: { code: `function generate(i) { return { k: "k" + (i % ${KEYS}), i }; }`, count: RECORDS },
    },
    { id: 'keep', kind: 'process', parallelism: PARALLELISM, params: { code: CODE } },
    { id: 'out', kind: 'sink.jsonl', parallelism: 1, params: { path: 'out/kept.jsonl' } },
  ],
  edges: [
    { id: 'gen-to-keep', from: 'gen', to: 'keep', partition: 'hash', key: 'k' },
    { id: 'keep-to-out', from: 'keep', to: 'out', partition: 'rebalance' },
  ],
};

const ownerOf = (key: string) =>
  subtaskOfKeyGroup(keyGroupOf(key, MAX_PARALLELISM), PARALLELISM, MAX_PARALLELISM);

/** What a key's items map holds at the end: its last 16 records, all but the last two marked. */
function itemsAtEnd(k: number): [string, number][] {
  const items = new Map<string, number>();
  for (let i = k; i < RECORDS; i += KEYS) {
    items.set(`i${pad(i)}`, i);
    if (i >= 16 * KEYS) items.delete(`i${pad(i - 16 * KEYS)}`);
    if (i >= 2 * KEYS) items.set(`i${pad(i - 2 * KEYS)}`, -i);
  }
  return [...items].sort(([a], [b]) => (a < b ? -1 : 1));
}

let session: AppSession;
sessionPerFile((opened) => {
  session = opened;
});

const statePanel = () => session.page.getByRole('tabpanel', { name: 'State' });
const browser = () => statePanel().getByRole('region', { name: 'State browser' });

/** A table's own rows (not those of tables in its cells), each as its cells' text. */
async function rowsOf(table: Locator): Promise<string[][]> {
  return table
    .locator(':scope > tbody > tr')
    .evaluateAll((rows) =>
      rows.map((row) =>
        [...row.children].map((cell) =>
          cell.querySelector('table') ? '(table)' : (cell.textContent ?? '').trim(),
        ),
      ),
    );
}

/** Scrolls a control to the bottom edge of what shows, as a user who just got it into view. */
async function atBottomEdge(locator: Locator): Promise<void> {
  await locator.evaluate((element) => element.scrollIntoView({ block: 'end' }));
}

describe('the state browser', () => {
  test('after a debug run, the Keys column counts each key once, and each state its entries', async () => {
    const { page } = session;
    writeFileSync(join(session.workDir, 'kept.job.json'), `${JSON.stringify(JOB, null, 2)}\n`);
    await page.getByRole('button', { name: 'Open job file…' }).click();
    await answerFileDialog(page, 'Open job', join(session.workDir, 'kept.job.json'), 'Open');
    await operator(page, 'keep').waitFor();
    await runButton(page, 'Debug').click();
    await expectStatus(page, 'Paused before the first step');
    await runButton(page, 'Resume').click();
    await expectStatus(page, /^Finished — done: the job ended at step \d+$/, 60_000);

    await openTab(page, 'State');
    const sizes = statePanel().getByRole('table', { name: 'State sizes of keep' });
    const keysPerSubtask = Array.from(
      { length: PARALLELISM },
      (_, s) => Array.from({ length: KEYS }, (_, k) => `k${k}`).filter((key) => ownerOf(key) === s).length,
    );
    // Every key holds three states; it counts once.
    await eventually(async () => {
      const keys = await sizes
        .locator('td[data-keys]')
        .evaluateAll((cells) => cells.map((c) => Number(c.getAttribute('data-keys'))));
      expect(keys).toEqual(keysPerSubtask);
    });
    const states = statePanel().getByRole('table', { name: 'States of keep' });
    const listEntries = RECORDS / 2;
    const mapEntries = Array.from({ length: KEYS }, (_, k) => itemsAtEnd(k).length).reduce(
      (a, b) => a + b,
      0,
    );
    expect((await rowsOf(states)).map((r) => r.slice(0, 4))).toEqual([
      ['items', 'map', String(KEYS), String(mapEntries)],
      // Only even records add to the log: keys k0, k2 and k4.
      ['log', 'list', String(KEYS / 2), String(listEntries)],
      ['n', 'value', String(KEYS), String(KEYS)],
    ]);
    await session.screenshot('state-keys-and-entries');
    expectNoPageErrors(session);
  });

  test('finds a key without choosing its subtask, and shows its map as rows, more a page at a time', async () => {
    const key = 'k4';
    await browser().getByRole('searchbox', { name: 'Key', exact: true }).fill(key);
    await browser().getByRole('button', { name: 'Find', exact: true }).click();
    const found = browser().getByRole('region', { name: `Key ${key} in keep` });
    await found.waitFor();
    const where = ownerOf(key);
    expect(await found.locator('p').first().textContent()).toBe(
      `Key "${key}" is in key group ${keyGroupOf(key, MAX_PARALLELISM)}, on subtask ${where}.`,
    );
    const entries = found.getByRole('table', { name: `State of key ${key}` });
    expect((await rowsOf(entries)).map((r) => r.slice(0, 3))).toEqual([
      ['items', 'map', '(table)'],
      ['log', 'list', '(table)'],
      ['n', 'value', String(RECORDS / KEYS)],
    ]);
    // The map: rows of (key, value), the first 10, then the rest on "More elements".
    const items = itemsAtEnd(4);
    expect(items.length).toBeGreaterThan(10);
    const map = found.getByRole('table', { name: `items of ${key}` });
    const expected = items.map(([item, value]) => [JSON.stringify(item), JSON.stringify(value)]);
    expect(await rowsOf(map)).toEqual(expected.slice(0, 10));
    await found.getByRole('button', { name: `More elements of items of ${key}` }).click();
    await eventually(async () => expect(await rowsOf(map)).toEqual(expected));
    expect(await found.getByRole('button', { name: `More elements of items of ${key}` }).count()).toBe(0);
    await session.screenshot('state-key-found');
    expectNoPageErrors(session);
  });

  test('the compare offers only the checkpoints still there, and marks each element that changed', async () => {
    const { page } = session;
    await openTab(page, 'Checkpoints');
    const history = page.getByRole('table', { name: 'Checkpoint history' });
    await history.waitFor();
    const completed = (
      await history
        .locator('tbody tr')
        .evaluateAll((trs) =>
          trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent?.trim())),
        )
    )
      .filter((r) => r[2] === 'completed')
      .map((r) => Number(r[1]));
    await openTab(page, 'State');
    const compare = browser().getByRole('region', { name: 'Compare with checkpoint' });
    // The run took more checkpoints than the job keeps: only the kept ones are offered.
    const options = async (label: string) =>
      compare.getByRole('combobox', { name: label }).locator('option').allInnerTexts();
    await eventually(async () =>
      expect(await options('From checkpoint')).toEqual([
        `checkpoint ${completed[0]}`,
        `checkpoint ${completed[1]}`,
        'live state',
      ]),
    );
    // Checkpoints are numbered from 1: those before these two were taken and deleted since.
    expect(completed).toHaveLength(2);
    expect(completed[1]).toBeGreaterThan(2);
    expect(await options('To checkpoint')).toEqual(await options('From checkpoint'));
    expect(await compare.getByText('the job keeps its last 2').count()).toBe(1);

    // k4 from the older one kept to the live state: the items that went, came and were marked.
    const older = completed[1]!;
    await compare.getByRole('textbox', { name: 'Key to compare' }).fill('k4');
    await compare.getByRole('combobox', { name: 'From checkpoint' }).selectOption(String(older));
    await compare.getByRole('combobox', { name: 'To checkpoint' }).selectOption('live');
    const button = compare.getByRole('button', { name: 'Compare', exact: true });
    await atBottomEdge(button);
    await button.click();
    const result = compare.getByRole('table', { name: `State of k4: checkpoint ${older} and live state` });
    await result.waitFor();
    // Brought into view where the button was pressed.
    await eventually(async () =>
      expect(await inView(compare.getByRole('region', { name: 'Compare result' }))).toBe(true),
    );
    const rows = await rowsOf(result);
    expect(rows.map((r) => r.slice(0, 2))).toEqual([
      ['items (map)', 'changed'],
      ['log (list)', 'changed'],
      ['n (value)', 'changed'],
    ]);
    const changes = compare.getByRole('table', { name: 'Changes of items of k4' });
    const marked = await rowsOf(changes);
    expect(marked.length).toBeGreaterThan(0);
    const kinds = new Set(marked.map((r) => r[1]));
    expect(kinds).toEqual(new Set(['added', 'removed', 'changed']));
    const now = new Map(itemsAtEnd(4));
    for (const [item, change, before, after] of marked) {
      const name = JSON.parse(item!) as string;
      if (change === 'removed') {
        expect(now.has(name)).toBe(false);
        expect(after).toBe('—');
      } else {
        expect(after).toBe(JSON.stringify(now.get(name)));
        if (change === 'added') expect(before).toBe('—');
        else expect(before).not.toBe(after);
      }
    }
    await session.screenshot('state-compare');
    expectNoPageErrors(session);
  });

  test("the Debugger opens a record's key in the State panel, found where it lives", async () => {
    const { page } = session;
    await runButton(page, 'Debug').click();
    await expectStatus(page, 'Paused before the first step');
    const debuggerPanel = await openTab(page, 'Debugger');
    const step = debuggerPanel.getByRole('article', { name: 'Current step' });
    // Step 1 makes record 0 at the source; step 2 delivers it to keep (key k0).
    await runButton(page, 'Step').click();
    await expectStatus(page, 'Paused at step 1');
    await runButton(page, 'Step').click();
    await expectStatus(page, 'Paused at step 2');
    await eventually(async () =>
      expect(await step.getByRole('heading', { level: 3 }).textContent()).toMatch(
        /^Step 2: keep#\d, record delivered$/,
      ),
    );
    await step.getByRole('button', { name: 'Show the state of key "k0"', exact: true }).click();
    expect(await page.getByRole('tab', { name: 'State', exact: true }).getAttribute('aria-selected')).toBe(
      'true',
    );
    const found = browser().getByRole('region', { name: 'Key k0 in keep' });
    await found.waitFor();
    expect(await found.locator('p').first().textContent()).toBe(
      `Key "k0" is in key group ${keyGroupOf('k0', MAX_PARALLELISM)}, on subtask ${ownerOf('k0')}.`,
    );
    // After one record: its count is 1 and its map holds that record's item.
    const entries = found.getByRole('table', { name: 'State of key k0' });
    await eventually(async () =>
      expect((await rowsOf(entries)).map((r) => r.slice(0, 3))).toEqual([
        ['items', 'map', '(table)'],
        ['log', 'list', '(table)'],
        ['n', 'value', '1'],
      ]),
    );
    expect(await rowsOf(found.getByRole('table', { name: 'items of k0' }))).toEqual([['"i000"', '0']]);
    expect(await inView(found)).toBe(true);
    await runButton(page, 'Stop').click();
    await expectStatus(page, /^Stopped/);
    expectNoPageErrors(session);
  });
});
