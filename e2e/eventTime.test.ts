// Event time in the designer, as a user meets it: a job whose JSON Lines source reads a time from
// each record ("ts") and whose keyed process sets an event-time timer per record. Paused while
// it runs, the Metrics tab shows each subtask's watermark as a UTC time and its lag, the State
// tab counts timers per subtask and the state browser lists a key's timers; run to its end,
// every timer has fired and every input has ended. Then the palette's Window, whose form asks
// only for what the chosen window type needs.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import type { AppSession } from './appHarness.js';
import {
  answerFileDialog,
  eventually,
  expectNoPageErrors,
  inspector,
  operator,
  paletteItem,
  sessionPerFile,
} from './helpers.js';
import { expectStatus, openTab, runButton } from './runSupport.js';
import { timeoutsJob } from './timeoutsJob.js';

const KEYS = 20;
const RECORDS = 10_000;
const START = Date.UTC(2024, 0, 1, 12, 0, 0);
const STEP_MS = 100;
const TIMER_AFTER_MS = 60_000;
const BOUND_MS = 1000;
/** The newest time in the input: the last record's (every third record is 150 ms early). */
const LAST_TIME = START + (RECORDS - 1) * STEP_MS - ((RECORDS - 1) % 3 === 1 ? 150 : 0);
/** A day other than today: the panels write the date before the time. */
const TIME_TEXT = /^2024-01-\d\d \d\d:\d\d:\d\d(\.\d{3})?$/;

// Each record costs some work, so that the run is still going when the test pauses it; its
// output does not depend on how long anything takes. (At a tenth of this work an idle machine
// ran all 10,000 records in 1.2 s, before the test had seen a watermark.)
const CODE = `async function process(record, ctx) {
  const seen = ctx.state.value('seen');
  await seen.set(((await seen.get()) ?? 0) + 1);
  ctx.timers.eventTime(ctx.timestamp + ${TIMER_AFTER_MS});
  let spin = 0;
  for (let i = 0; i < 400000; i++) spin += i % 7;
  if (spin < 0) ctx.emit({ never: true });
}

async function onTimer(timestamp, ctx) {
  ctx.emit({ key: ctx.key, at: timestamp, seen: await ctx.state.value('seen').get(), domain: ctx.timeDomain });
}
`;

const JOB = timeoutsJob(CODE, BOUND_MS, { maxParallelism: 128 });

let session: AppSession;
sessionPerFile((opened) => {
  session = opened;
});

const jobFile = () => join(session.workDir, 'timeouts.job.json');

/** A watermark table's rows: operator (from the row's data), subtask, watermark text, lag text. */
async function watermarkRows() {
  const table = session.page.getByRole('table', { name: 'Watermarks per subtask' });
  await table.waitFor();
  return table.locator('tbody tr').evaluateAll((rows) =>
    rows.map((row) => {
      const cells = [...row.querySelectorAll('td')].map((td) => td.textContent ?? '');
      return {
        operator: row.getAttribute('data-operator'),
        subtask: cells[0],
        watermark: cells[1],
        lag: cells[2],
      };
    }),
  );
}

describe('event time in the designer', () => {
  test('paused mid-run: watermarks and lag per subtask in Metrics, timers in State', async () => {
    const { page } = session;
    const lines: string[] = [];
    for (let n = 0; n < RECORDS; n++) {
      // A little out of order (within the 1 s bound), never late.
      const ts = START + n * STEP_MS + (n % 3 === 1 ? -150 : 0);
      lines.push(JSON.stringify({ k: `k${n % KEYS}`, n, ts }));
    }
    writeFileSync(join(session.workDir, 'events.jsonl'), `${lines.join('\n')}\n`);
    writeFileSync(jobFile(), `${JSON.stringify(JOB, null, 2)}\n`);
    await page.getByRole('button', { name: 'Open job file…' }).click();
    await answerFileDialog(page, 'Open job', jobFile(), 'Open');
    await operator(page, 'timeouts').waitFor();

    await runButton(page, 'Run').click();
    await expectStatus(page, /^Running/);
    // Once the process has taken records, they have times and it holds timers.
    const metrics = await openTab(page, 'Metrics');
    await eventually(async () => {
      const rows = await watermarkRows();
      expect(rows.filter((r) => r.operator === 'timeouts' && TIME_TEXT.test(r.watermark ?? '')).length).toBe(
        2,
      );
    });
    await runButton(page, 'Pause').click();
    await expectStatus(page, 'Paused');

    let rows: Awaited<ReturnType<typeof watermarkRows>> = [];
    await eventually(async () => {
      rows = await watermarkRows();
      // The sink's too, once the process has passed a watermark on.
      expect(rows.map((r) => `${r.operator}#${r.subtask}`).slice(0, 3)).toEqual([
        'events#0',
        'timeouts#0',
        'timeouts#1',
      ]);
    });
    for (const row of rows.slice(0, 3)) {
      expect(row.watermark).toMatch(TIME_TEXT);
      expect(row.lag).toMatch(/^\d[\d.,]* (ms|s)$/);
    }
    // The source's watermark is the newest time it read less the bound, never ahead of it.
    const events = metrics.locator('tr[data-operator="events"] td[data-watermark]');
    const sourceWatermark = Number(await events.getAttribute('data-watermark'));
    expect(sourceWatermark).toBeGreaterThanOrEqual(START - BOUND_MS);
    expect(sourceWatermark).toBeLessThanOrEqual(LAST_TIME - BOUND_MS);
    await session.screenshot('event-time-metrics');

    const state = await openTab(page, 'State');
    const sizes = state.getByRole('table', { name: 'State sizes of timeouts' });
    await sizes.getByRole('columnheader', { name: 'Timers' }).waitFor();
    const timers = await sizes
      .locator('td[data-timers]')
      .evaluateAll((cells) => cells.map((c) => Number(c.getAttribute('data-timers'))));
    expect(timers).toHaveLength(2);
    // Each record set a timer a minute on; those within the last minute of event time wait.
    for (const count of timers) expect(count).toBeGreaterThan(0);

    const browser = state.getByRole('region', { name: 'State browser' });
    await browser.getByRole('combobox', { name: 'Operator' }).selectOption('timeouts');
    const timerRows = browser.getByRole('row', { name: /^Timers of k\d+$/ });
    await eventually(async () => expect(await timerRows.count()).toBeGreaterThan(0));
    const first = timerRows.first();
    const listed = await first.locator('li').allInnerTexts();
    expect(listed.length).toBeGreaterThan(0);
    expect(listed[0]).toMatch(/^event-time timer 2024-01-01 \d\d:\d\d:\d\d(\.\d{3})?$/);
    expect(await first.locator('td').nth(2).textContent()).toMatch(/^\d+ timers?$/);
    await session.screenshot('event-time-state');
    expectNoPageErrors(session);
  });

  test('run to its end, every timer fires and every input has ended', async () => {
    const { page } = session;
    await runButton(page, 'Resume').click();
    await expectStatus(page, /^Finished — /, 120_000);
    const output = readFileSync(join(session.workDir, 'out', 'timeouts.jsonl'), 'utf8')
      .trim()
      .split('\n');
    expect(output).toHaveLength(RECORDS);
    await openTab(page, 'Metrics');
    await eventually(async () => {
      const rows = await watermarkRows();
      // The source keeps the last watermark it made (its newest time less the bound); every
      // operator after it has had its input end.
      expect(rows.map((r) => `${r.operator}#${r.subtask} ${r.watermark}`)).toEqual([
        `events#0 ${new Date(LAST_TIME - BOUND_MS).toISOString().replace('T', ' ').slice(0, -1)}`,
        'timeouts#0 input ended',
        'timeouts#1 input ended',
        'out#0 input ended',
      ]);
    });
    const state = await openTab(page, 'State');
    const timers = await state
      .getByRole('table', { name: 'State sizes of timeouts' })
      .locator('td[data-timers]')
      .evaluateAll((cells) => cells.map((c) => Number(c.getAttribute('data-timers'))));
    // Every timer fired (the output has one record for each); the last reading says none wait.
    expect(timers.filter((count) => count !== 0)).toEqual([]);
    expectNoPageErrors(session);
  }, 150_000);

  test("the palette's Window asks only for what its window type needs", async () => {
    const { page } = session;
    const item = paletteItem(page, 'window');
    expect(await item.isEnabled()).toBe(true);
    await item.click();
    await operator(page, 'window1').waitFor();
    const panel = inspector(page);
    const params = panel.getByRole('region', { name: 'Parameters' });
    const shown = () => params.locator('code.field-key').allInnerTexts();
    // A new window is tumbling: a size and an offset, no slide or gap.
    expect(await shown()).toEqual(['type', 'sizeMs', 'offsetMs', 'aggregate', 'allowedLatenessMs']);

    const type = params.getByRole('combobox', { name: 'Type' });
    await type.selectOption('sliding');
    await eventually(async () =>
      expect(await shown()).toEqual([
        'type',
        'sizeMs',
        'slideMs',
        'offsetMs',
        'aggregate',
        'allowedLatenessMs',
      ]),
    );
    await type.selectOption('session');
    await eventually(async () =>
      expect(await shown()).toEqual(['type', 'gapMs', 'aggregate', 'allowedLatenessMs']),
    );

    await params.getByRole('combobox', { name: 'Aggregate' }).selectOption('sum');
    await eventually(async () =>
      expect(await shown()).toEqual(['type', 'gapMs', 'aggregate', 'field', 'allowedLatenessMs']),
    );
    await session.screenshot('window-form');

    // The source's watermark settings are there because it has a timestamp field.
    await operator(page, 'events').click();
    expect(await shown()).toEqual([
      'path',
      'timestampField',
      'maxOutOfOrdernessMs',
      'idleTimeoutMs',
      'onBadTimestamp',
    ]);
    expectNoPageErrors(session);
  });
});
