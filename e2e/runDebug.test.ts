// Debugging the owner-has-items template as a new user would: open it, set a condition
// breakpoint on the keyed operator, Debug (saving the job first), land on the hit, Step three
// times (toolbar and F10) and Step back twice (toolbar and Shift+F10) checking that what is shown
// is true to the input file and that stepping back shows exactly what was shown before, then
// resume to the end and read the Checkpoints and State tabs, and restart from a checkpoint.
import { copyFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { describe, expect, test } from 'vitest';
import type { AppSession } from './appHarness.js';
import { eventually, expectNoPageErrors, operator, readText, sessionPerFile } from './helpers.js';
import {
  type CanvasMarks,
  canvasMarks,
  EXAMPLE,
  enabledRunButtons,
  expectOwnershipOutput,
  expectStatus,
  itemsOf,
  JOB,
  keyGroupsText,
  OWNERS_PARALLELISM,
  type OwnerEvent,
  openTab,
  parseEvents,
  runButton,
  saveBeforeRunning,
  subtaskOf,
} from './runSupport.js';

const EVENTS_TEXT = readFileSync(join(EXAMPLE, 'events.jsonl'), 'utf8');
const EVENTS = parseEvents(EVENTS_TEXT);
const BY_SEQ = new Map(EVENTS.map((e) => [e.seq, e]));
const CONDITION = 'r.type === "move" && r.owner === "o7"';
/** The record the breakpoint stops at: the first move away from o7 (nothing else in "owners" matches). */
const HIT = EVENTS.find((e) => e.type === 'move' && e.owner === 'o7')!;
/** The event that gave o7 the item it then moves away. */
const HIT_GAIN = EVENTS.filter(
  (e) => e.seq < HIT.seq && e.item === HIT.item && (e.type === 'add' ? e.owner : e.to) === 'o7',
).at(-1)!;

/**
 * Output lines but the "waiting" events: how many of those a run writes depends on how moves
 * meet the transfers going round the loop, and a debug run, which follows each record round
 * before reading the next, writes none (README, Debugger). Every other line is the same.
 */
const settledLines = (text: string) =>
  text
    .split('\n')
    .filter((line) => line !== '' && (JSON.parse(line) as { event?: string }).event !== 'waiting').length;

let session: AppSession;
const jobFile = () => join(session.workDir, 'owner-has-items.job.json');
const outputFile = () => join(session.workDir, 'out', 'ownership.jsonl');

sessionPerFile((opened) => {
  session = opened;
});

const debuggerPanel = () => session.page.getByRole('tabpanel', { name: 'Debugger' });
const currentStep = () => debuggerPanel().getByRole('article', { name: 'Current step' });
const shownText = () => currentStep().innerText();

/** Restart from checkpoint… from the Run toolbar, and its dialog once it is there. */
async function openRestartDialog(page: Page) {
  await runButton(page, 'Restart from checkpoint…').click();
  const dialog = page.getByRole('dialog', { name: 'Restart from checkpoint' });
  await dialog.waitFor();
  return dialog;
}

interface ShownStep {
  /** Everything the "Current step" article says, as a user reads it. */
  readonly text: string;
  readonly seq: number;
  readonly operator: string;
  readonly subtask: number;
  readonly kind: string;
  readonly facts: Record<string, string>;
  readonly record: unknown;
}

/** The step the Debugger panel shows, read from its heading, facts and record. */
async function shownStep(): Promise<ShownStep> {
  const article = currentStep();
  const heading = (await article.getByRole('heading', { level: 3 }).textContent()) ?? '';
  const m = /^Step (\d+): (\w+)#(\d+), (.+)$/.exec(heading);
  if (m === null) throw new Error(`unexpected step heading "${heading}"`);
  const facts = await article.locator('dl.run-facts').evaluate((dl) => {
    const out: Record<string, string> = {};
    const terms = dl.querySelectorAll('dt');
    for (const dt of terms) out[dt.textContent ?? ''] = dt.nextElementSibling?.textContent ?? '';
    return out;
  });
  const recordRegion = article.getByRole('region', { name: 'Record' });
  const record =
    (await recordRegion.count()) === 0
      ? undefined
      : JSON.parse((await recordRegion.locator('pre').textContent()) ?? '');
  return {
    text: await shownText(),
    seq: Number(m[1]),
    operator: m[2]!,
    subtask: Number(m[3]),
    kind: m[4]!,
    facts,
    record,
  };
}

/** The rows of a table (not of tables in its cells), each as its cells' text. */
async function rowsOf(table: Locator): Promise<string[][]> {
  return table
    .locator(':scope > tbody > tr')
    .evaluateAll((rows) =>
      rows.map((row) =>
        [...row.children]
          .filter((cell) => cell.tagName === 'TD')
          .map((cell) => (cell.textContent ?? '').trim()),
      ),
    );
}

function eventOf(seq: number): OwnerEvent {
  const event = BY_SEQ.get(seq);
  if (event === undefined) throw new Error(`events.jsonl has no event with seq ${seq}`);
  return event;
}

/**
 * The shown step says what the input file implies: the record delivered is a line of
 * events.jsonl (or what "owners" makes of one), and it is at the subtask its key hashes to.
 */
function expectTrueToInput(step: ShownStep): void {
  const { facts } = step;
  expect(facts.Operator).toBe(`${step.operator} subtask ${step.subtask}`);
  expect(facts.Kind).toBe(step.kind);
  if (step.kind.startsWith('checkpoint barrier') || step.kind === 'end of input') {
    expect(step.record).toBeUndefined();
    return;
  }
  const record = step.record as Record<string, unknown>;
  expect(record).toBeDefined();
  const event = eventOf(record.seq as number);
  if (step.operator === 'events') {
    expect(step.kind).toBe('record produced by the source');
    expect(facts['Came through']).toBe('read by source events#0');
    expect(record).toEqual(event);
    return;
  }
  expect(step.kind).toBe('record delivered');
  if (step.operator === 'owners') {
    expect(step.subtask).toBe(subtaskOf(record.owner as string));
    expect(facts.Key).toBe(JSON.stringify(record.owner));
    if (record.type === 'transfer') {
      // The move's item arriving at its new owner, sent by the subtask of the old one.
      expect(facts['Came through']).toBe(
        `edge transfer (feedback) from upstream subtask ${subtaskOf(event.from!)}`,
      );
      expect(record).toEqual({
        type: 'transfer',
        owner: event.to,
        item: event.item,
        from: event.from,
        seq: event.seq,
      });
    } else {
      expect(facts['Came through']).toBe('edge events-to-owners from upstream subtask 0');
      expect(record).toEqual(event);
    }
    return;
  }
  expect(step.operator).toBe('out');
  expect(facts['Came through']).toBe(`edge owners-to-out from upstream subtask ${record.subtask}`);
  expect(record.item).toBe(event.item);
  expect(record.subtask).toBe(subtaskOf(record.owner as string));
  if (record.event === 'owned') {
    expect(record.owner).toBe(record.from === undefined ? event.owner : event.to);
  } else {
    expect(record.event === 'released' ? event.from : event.owner).toBe(record.owner);
    expect(record.to).toBe(event.to);
  }
}

/** What the canvas must mark for a step: its operator and subtask, and the edge it came through. */
function marksFor(step: ShownStep): CanvasMarks {
  const edge = /^edge (\S+) /.exec(step.facts['Came through'] ?? '')?.[1];
  return { operators: [`${step.operator}#${step.subtask}`], edges: edge === undefined ? [] : [edge] };
}

describe('debugging owner-has-items', () => {
  test('the template opens and a condition breakpoint scoped to "owners" is set before running', async () => {
    const { page } = session;
    // The job reads events.jsonl beside its file: the user puts the example's input there.
    copyFileSync(join(EXAMPLE, 'events.jsonl'), join(session.workDir, 'events.jsonl'));
    await page.getByRole('button', { name: 'Open template owner-has-items', exact: true }).click();
    await operator(page, 'owners').waitFor();
    await expectStatus(page, 'Not running');
    expect(await enabledRunButtons(page)).toEqual(['Run', 'Debug', 'Restart from checkpoint…']);

    const panel = await openTab(page, 'Debugger');
    await panel.getByRole('combobox', { name: 'Breakpoint type' }).selectOption('condition');
    await panel.getByRole('combobox', { name: 'Breakpoint operator' }).selectOption('owners');
    await panel.getByRole('textbox', { name: 'Condition' }).fill(CONDITION);
    await panel.getByRole('button', { name: 'Add breakpoint' }).click();
    const list = panel.getByRole('list', { name: 'Breakpoint list' });
    await list.waitFor();
    expect(await list.getByRole('listitem').allInnerTexts()).toEqual([`bp1\nowners: ${CONDITION}\nRemove`]);
    // The form is ready for the next one.
    expect(await panel.getByRole('textbox', { name: 'Condition' }).inputValue()).toBe('');
    expectNoPageErrors(session);
  });

  let hit: ShownStep;

  test('Debug asks to save first, then runs to the breakpoint: the step, its record, emits and state', async () => {
    const { page } = session;
    await runButton(page, 'Debug').click();
    await saveBeforeRunning(page, 'owner-has-items', jobFile());
    await eventually(() => expect(existsSync(jobFile())).toBe(true));
    const status = await expectStatus(page, /^Paused at step \d+ \(breakpoint bp1\)$/);
    await eventually(async () => expect((await shownStep()).facts.Breakpoint).toBe('bp1'));
    hit = await shownStep();
    expect(status).toBe(`Paused at step ${hit.seq} (breakpoint bp1)`);
    expect(await enabledRunButtons(page)).toEqual([
      'Resume',
      'Stop',
      'Step',
      'Run to next operator',
      'Step back',
      'Restart from checkpoint…',
    ]);

    // The first move away from o7, delivered to the subtask o7 hashes to.
    expect(hit.operator).toBe('owners');
    expect(hit.subtask).toBe(subtaskOf('o7'));
    expect(hit.kind).toBe('record delivered');
    expect(hit.record).toEqual(HIT);
    expect(hit.facts).toEqual({
      Operator: `owners subtask ${hit.subtask}`,
      Kind: 'record delivered',
      'Came through': 'edge events-to-owners from upstream subtask 0',
      Key: '"o7"',
      Breakpoint: 'bp1',
    });
    expectTrueToInput(hit);
    // o7 still has the item: it is released to the new owner and sent round the feedback edge.
    const released = {
      event: 'released',
      owner: 'o7',
      item: HIT.item,
      to: HIT.to,
      seq: HIT.seq,
      subtask: hit.subtask,
    };
    const transfer = { type: 'transfer', owner: HIT.to, item: HIT.item, from: 'o7', seq: HIT.seq };
    expect(await rowsOf(currentStep().getByRole('table', { name: 'Emitted records' }))).toEqual([
      ['1', 'out', JSON.stringify(released), 'owners-to-out', 'Trace'],
      ['2', 'transfer', JSON.stringify(transfer), 'transfer', 'Trace'],
    ]);
    const since = JSON.stringify({ since: HIT_GAIN.seq });
    expect(await rowsOf(currentStep().getByRole('table', { name: 'State accesses' }))).toEqual([
      ['items', 'map', 'read', '"o7"', JSON.stringify(HIT.item), since],
      ['items', 'map', 'delete', '"o7"', JSON.stringify(HIT.item), `${since} → (deleted)`],
    ]);
    // The breakpoint says it was hit; the canvas marks the subtask and the edge the record came by.
    expect(await debuggerPanel().getByRole('list', { name: 'Breakpoint list' }).textContent()).toContain(
      'hit',
    );
    expect(await canvasMarks(page)).toEqual({
      operators: [`owners#${hit.subtask}`],
      edges: ['events-to-owners'],
    });
    expect(await operator(page, 'owners').locator('.op-active-badge').textContent()).toBe(`#${hit.subtask}`);
    await session.screenshot('debugger-breakpoint-hit');
    expectNoPageErrors(session);
  });

  test('the transfer record is traced to its line of events.jsonl and the hops that made it', async () => {
    await currentStep().getByRole('button', { name: 'Trace emitted record 2' }).click();
    const trace = currentStep().getByRole('region', { name: 'Trace of emitted record 2' });
    await trace.waitFor();
    // Named by its line of events.jsonl (events are numbered by line from 1), not a byte offset.
    expect(EVENTS_TEXT.split('\n')[HIT.seq - 1]).toBe(JSON.stringify(HIT));
    expect(await rowsOf(trace.getByRole('table', { name: 'Trace inputs' }))).toEqual([
      ['events#0', `events.jsonl line ${HIT.seq}`, JSON.stringify(HIT)],
    ]);
    const hops = trace.getByRole('list', { name: 'Trace path' }).locator(':scope > li');
    const path = (await hops.allInnerTexts()).map((text) => text.split('\n')[0]);
    expect(path[0]).toMatch(/^step \d+: events#0$/);
    expect(path.at(-1)).toBe(`step ${hit.seq}: owners#${hit.subtask} — state keys "o7"`);
    // The move found the item in o7's map: the step that put it there, and the event it came of.
    const read = await trace
      .getByRole('list', { name: `State read at step ${hit.seq}` })
      .getByRole('listitem')
      .allInnerTexts();
    expect(read).toContainEqual(
      expect.stringMatching(
        new RegExp(
          `^read items of "o7" ▸ "${HIT.item}", written at step \\d+ by owners#${hit.subtask} from events\\.jsonl line ${HIT_GAIN.seq} ${JSON.stringify(HIT_GAIN).replace(/[{}[\]()*+?.^$|\\]/g, '\\$&')}$`,
        ),
      ),
    );
    await session.screenshot('debugger-trace');
    // A second click hides it again.
    await currentStep().getByRole('button', { name: 'Trace emitted record 2' }).click();
    await trace.waitFor({ state: 'detached' });
    expect(await shownText()).toBe(hit.text);
    expectNoPageErrors(session);
  });

  const taken: ShownStep[] = [];

  test('Step three times (toolbar, F10, toolbar): each shows the next step, true to the input, marked on the canvas', async () => {
    const { page } = session;
    const press = [
      () => runButton(page, 'Step').click(),
      () => page.keyboard.press('F10'),
      () => runButton(page, 'Step').click(),
    ];
    for (const [k, step] of press.entries()) {
      const seq = hit.seq + k + 1;
      await step();
      await expectStatus(page, `Paused at step ${seq}`);
      await eventually(async () => expect((await shownStep()).seq).toBe(seq));
      const shown = await shownStep();
      expectTrueToInput(shown);
      expect(shown.facts.Breakpoint).toBeUndefined();
      expect(await canvasMarks(page)).toEqual(marksFor(shown));
      // The history lists it on top.
      const history = debuggerPanel().getByRole('region', { name: 'Step history' }).getByRole('listitem');
      expect(
        ((await history.first().textContent()) ?? '').startsWith(
          `${seq}. ${shown.operator}#${shown.subtask} — `,
        ),
      ).toBe(true);
      taken.push(shown);
    }
    await session.screenshot('debugger-after-steps');
    expectNoPageErrors(session);
  });

  test('Step back twice (toolbar, Shift+F10) shows exactly what was shown before each step', async () => {
    const { page } = session;
    const [first, second] = taken as [ShownStep, ShownStep, ShownStep];
    await runButton(page, 'Step back').click();
    await expectStatus(page, `Paused at step ${second.seq}`);
    await eventually(async () => expect(await shownText()).toBe(second.text));
    expect(await canvasMarks(page)).toEqual(marksFor(second));

    await page.keyboard.press('Shift+F10');
    await expectStatus(page, `Paused at step ${first.seq}`);
    await eventually(async () => expect(await shownText()).toBe(first.text));
    expect(await canvasMarks(page)).toEqual(marksFor(first));
    // The history is back to the hit and this step.
    const history = debuggerPanel().getByRole('region', { name: 'Step history' }).getByRole('listitem');
    expect((await history.allInnerTexts()).slice(0, 2)).toEqual([
      `${first.seq}. ${first.operator}#${first.subtask} — ${first.kind}`,
      `${hit.seq}. owners#${hit.subtask} — record delivered (bp1)`,
    ]);
    await session.screenshot('debugger-after-step-back');
    expectNoPageErrors(session);
  });

  test('with the breakpoint removed, Resume runs to the end; the output says who owns what', async () => {
    const { page } = session;
    await debuggerPanel().getByRole('button', { name: 'Remove breakpoint bp1' }).click();
    await debuggerPanel().getByRole('list', { name: 'Breakpoint list' }).waitFor({ state: 'detached' });
    await runButton(page, 'Resume').click();
    await expectStatus(page, /^Finished — done: the job ended at step \d+$/, 40_000);
    // An ended run's last step is history: the canvas marks nothing.
    expect(await canvasMarks(page)).toEqual({ operators: [], edges: [] });
    expect(await enabledRunButtons(page)).toEqual(['Run', 'Debug', 'Restart from checkpoint…']);
    expectOwnershipOutput(readText(outputFile()), EVENTS);
    expectNoPageErrors(session);
  });

  let completed: number[] = [];

  test('the Checkpoints tab lists completed checkpoints, each with every subtask', async () => {
    const { page } = session;
    const panel = await openTab(page, 'Checkpoints');
    const table = panel.getByRole('table', { name: 'Checkpoint history' });
    await table.waitFor();
    const rows = await table
      .locator('tbody tr')
      .evaluateAll((trs) =>
        trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => (td.textContent ?? '').trim())),
      );
    completed = rows.filter((r) => r[2] === 'completed').map((r) => Number(r[1]));
    expect(completed.length).toBeGreaterThan(0);
    // The browser form keeps a run's checkpoints beside the job file, as the CLI does.
    const folder = join(session.workDir, '.pipewright', 'owner-has-items', 'checkpoints');
    expect(await panel.locator('p').first().textContent()).toBe(
      `${completed.length} completed, ${rows.length - completed.length} failed. Kept in ${folder}`,
    );
    // Newest first.
    expect(rows.map((r) => Number(r[1]))).toEqual(rows.map((r) => Number(r[1])).sort((a, b) => b - a));
    const newest = completed[0]!;
    await panel.getByRole('button', { name: `Details of checkpoint ${newest}` }).click();
    const subtasks = panel.getByRole('table', { name: `Subtasks of checkpoint ${newest}` });
    await subtasks.waitFor();
    expect(await subtasks.locator('tbody th').allInnerTexts()).toEqual([
      'events#0',
      ...Array.from({ length: OWNERS_PARALLELISM }, (_, k) => `owners#${k}`),
      'out#0',
    ]);
    await session.screenshot('checkpoints-panel');
    expectNoPageErrors(session);
  });

  test("the State tab gives every subtask of owners a non-zero size, and the browser shows o7's items", async () => {
    const { page } = session;
    const panel = await openTab(page, 'State');
    const sizes = panel
      .getByRole('region', { name: 'State of owners' })
      .getByRole('table', { name: 'State sizes of owners' });
    await sizes.waitFor();
    type Row = { subtask: string | null | undefined; bytes: number; keys: number; cells: (string | null)[] };
    let rows: Row[] = [];
    // Keys are counted by reading each subtask's state: there once the count is in.
    await eventually(async () => {
      rows = await sizes.locator('tbody tr').evaluateAll((trs) =>
        trs.map((tr) => ({
          subtask: tr.querySelector('th')?.textContent,
          bytes: Number(tr.querySelector('td[data-bytes]')?.getAttribute('data-bytes')),
          keys: Number(tr.querySelector('td[data-keys]')?.getAttribute('data-keys')),
          cells: [...tr.querySelectorAll('td')].map((td) => td.textContent),
        })),
      );
      expect(rows.every((r) => r.keys > 0)).toBe(true);
    });
    expect(rows.map((r) => r.subtask)).toEqual(['0', '1', '2', '3']);
    for (const row of rows) {
      expect(row.bytes).toBeGreaterThan(0);
      expect(row.cells).toContain(keyGroupsText(Number(row.subtask)));
    }
    expect(await panel.getByText('Without keyed state: events, out.').count()).toBe(1);

    // o7's items at the end, as events.jsonl says, on the subtask o7 hashes to.
    const browser = panel.getByRole('region', { name: 'State browser' });
    expect(await browser.getByRole('combobox', { name: 'Operator' }).inputValue()).toBe('owners');
    await browser.getByRole('combobox', { name: 'Subtask' }).selectOption(String(subtaskOf('o7')));
    await browser.getByRole('searchbox', { name: 'Key prefix' }).fill('o7');
    const entries = browser.getByRole('table', { name: 'State entries' });
    // Only o7's states are left once the search has run (o7 keeps "items", and "waiting" once it waited).
    let found: string[][] = [];
    await eventually(async () => {
      found = await rowsOf(entries);
      expect(found.map((r) => `${r[0]} ${r[1]}`)).toEqual(
        found.length === 1 ? ['"o7" items'] : ['"o7" items', '"o7" waiting'],
      );
    });
    const items = found[0]!;
    const expected = itemsOf(EVENTS, 'o7');
    expect(items[2]).toBe('map');
    // The map's elements as rows (item, value), the first 10 of them.
    const elements = entries.getByRole('table', { name: 'items of o7' });
    expect(await rowsOf(elements)).toEqual(
      expected.slice(0, 10).map(([item, value]) => [JSON.stringify(item), JSON.stringify(value)]),
    );
    await session.screenshot('state-panel');
    expectNoPageErrors(session);
  });

  test('Restart from checkpoint… lists the retained checkpoints and restarts from the one chosen', async () => {
    const { page } = session;
    const before = readText(outputFile());
    const dialog = await openRestartDialog(page);
    const radios = dialog.getByRole('radio', { name: /^Checkpoint \d+$/ });
    const listed = (
      await radios.evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') ?? ''))
    ).map((n) => Number(n.replace('Checkpoint ', '')));
    // The job keeps its newest few on disk: those are offered, newest first and chosen.
    expect(listed).toEqual(completed.slice(0, JOB.settings.checkpointsRetained));
    expect(await dialog.getByRole('radio', { name: `Checkpoint ${listed[0]}` }).isChecked()).toBe(true);
    // It goes on at full speed unless Debug is chosen.
    expect(await dialog.getByRole('radio', { name: /^Run/ }).isChecked()).toBe(true);
    expect(await dialog.getByRole('radio', { name: /^Debug/ }).isChecked()).toBe(false);
    const oldest = listed.at(-1)!;
    await dialog.getByRole('radio', { name: `Checkpoint ${oldest}` }).check();
    await session.screenshot('restart-dialog');
    await dialog.getByRole('button', { name: 'Restart', exact: true }).click();
    await dialog.waitFor({ state: 'detached' });
    const status = await expectStatus(page, /^Finished — done: \d+ records from the sources in [\d.]+ s$/);
    // The sources went on from where the checkpoint had them, not from the start.
    const reread = Number(/done: (\d+) records/.exec(status)?.[1]);
    expect(reread).toBeLessThan(EVENTS.length);
    // Records after the checkpoint were written again in place of the ones the restore cut off.
    expectOwnershipOutput(readText(outputFile()), EVENTS);
    expect(settledLines(readText(outputFile()))).toBe(settledLines(before));
    expectNoPageErrors(session);
  });

  test('Restart from checkpoint… in Debug holds the run just after it, to step from there and on to the same end', async () => {
    const { page } = session;
    const before = readText(outputFile());
    const dialog = await openRestartDialog(page);
    // The newest but the one the last run ended with: restoring that one leaves nothing to step.
    const folder = join(session.workDir, '.pipewright', 'owner-has-items', 'checkpoints');
    const listed = await dialog
      .getByRole('radio', { name: /^Checkpoint \d+$/ })
      .evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') ?? ''));
    const chosen = listed.find(
      (label) =>
        JSON.parse(readText(join(folder, `chk-${label.replace('Checkpoint ', '')}.json`))).finished !== true,
    )!;
    expect(chosen, `a checkpoint before the end among ${listed.join(', ')}`).toBeDefined();
    await dialog.getByRole('radio', { name: chosen }).check();
    await dialog.getByRole('radio', { name: /^Debug/ }).check();
    await dialog.getByRole('button', { name: 'Restart', exact: true }).click();
    await dialog.waitFor({ state: 'detached' });
    await expectStatus(page, `Paused just after ${chosen.toLowerCase()}`);
    await runButton(page, 'Step').click();
    await expectStatus(page, 'Paused at step 1');
    await openTab(page, 'Debugger');
    expect(await shownText()).toMatch(/^Step 1\b/);
    await page.keyboard.press('F5');
    await expectStatus(page, /^Finished — done: the job ended at step \d+$/, 40_000);
    // From the checkpoint on, the same records in place of the ones the restore cut off.
    expectOwnershipOutput(readText(outputFile()), EVENTS);
    expect(settledLines(readText(outputFile()))).toBe(settledLines(before));
    expectNoPageErrors(session);
  });
});
