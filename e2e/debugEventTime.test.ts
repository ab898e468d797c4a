// The debugger on an event-time job, as a user meets it: a JSON Lines source with a time field,
// a keyed process that sets a timer 5 s after each record and reports the key's count when it
// fires. A "Timer fires" breakpoint for one key stops where that key's timer fires: the step
// says which timer, for which key, what onTimer emitted and the state it read and cleared;
// Step back and Step show exactly that again, and the history lists the watermarks that came.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import type { AppSession } from './appHarness.js';
import { answerFileDialog, eventually, expectNoPageErrors, operator, sessionPerFile } from './helpers.js';
import { expectStatus, openTab, runButton } from './runSupport.js';
import { timeoutsJob } from './timeoutsJob.js';

const START = Date.UTC(2024, 0, 1, 12, 0, 0);
const RECORDS = 12;
const KEYS = 3;

const CODE = `function process(record, ctx) {
  const seen = ctx.state.value('seen');
  seen.set((seen.get() ?? 0) + 1);
  ctx.timers.eventTime(ctx.timestamp + 5000);
}

function onTimer(timestamp, ctx) {
  const seen = ctx.state.value('seen');
  ctx.emit({ key: ctx.key, at: timestamp, seen: seen.get() ?? 0 });
  seen.clear();
}
`;

const JOB = timeoutsJob(CODE, 0);

let session: AppSession;
sessionPerFile((opened) => {
  session = opened;
});

const debuggerPanel = () => session.page.getByRole('tabpanel', { name: 'Debugger' });
const currentStep = () => debuggerPanel().getByRole('article', { name: 'Current step' });

/** The "Current step" article's facts (dt → dd). */
async function facts(): Promise<Record<string, string>> {
  const pairs = await currentStep()
    .locator('dl.run-facts')
    .evaluate((dl) => {
      const out: [string, string][] = [];
      for (const dt of dl.querySelectorAll('dt')) {
        out.push([dt.textContent ?? '', dt.nextElementSibling?.textContent ?? '']);
      }
      return out;
    });
  return Object.fromEntries(pairs);
}

describe('the debugger on an event-time job', () => {
  test('a timer breakpoint for one key stops where its timer fires, showing what the firing did', async () => {
    const { page } = session;
    const lines = Array.from({ length: RECORDS }, (_, n) =>
      JSON.stringify({ k: `k${n % KEYS}`, n, ts: START + n * 1000 }),
    );
    writeFileSync(join(session.workDir, 'events.jsonl'), `${lines.join('\n')}\n`);
    const jobFile = join(session.workDir, 'timeouts.job.json');
    writeFileSync(jobFile, `${JSON.stringify(JOB, null, 2)}\n`);
    await page.getByRole('button', { name: 'Open job file…' }).click();
    await answerFileDialog(page, 'Open job', jobFile, 'Open');
    await operator(page, 'timeouts').waitFor();

    const panel = await openTab(page, 'Debugger');
    await panel.getByRole('combobox', { name: 'Breakpoint type' }).selectOption('timer');
    await panel.getByRole('combobox', { name: 'Breakpoint operator' }).selectOption('timeouts');
    await panel.getByRole('textbox', { name: 'Timer key' }).fill('k1');
    await panel.getByRole('button', { name: 'Add breakpoint' }).click();
    const list = panel.getByRole('list', { name: 'Breakpoint list' });
    await list.waitFor();
    expect(await list.getByRole('listitem').allInnerTexts()).toEqual([
      'bp1\ntimeouts: a timer of key k1 fires\nRemove',
    ]);

    await runButton(page, 'Debug').click();
    const status = await expectStatus(page, /^Paused at step \d+ \(breakpoint bp1\)$/);
    const heading = currentStep().getByRole('heading', { level: 3 });
    await eventually(async () => expect(await heading.textContent()).toMatch(/timer/));
    // k1's first record is at 12:00:01, its timer at 12:00:06 fires once the watermark passes it.
    const seq = Number(/step (\d+)/.exec(status)![1]);
    expect(await heading.textContent()).toMatch(
      new RegExp(`^Step ${seq}: timeouts#[01], event-time timer 2024-01-01 12:00:06 fires for key k1$`),
    );
    const shown = await facts();
    expect(shown).toMatchObject({
      Kind: 'event-time timer 2024-01-01 12:00:06 fires for key k1',
      'Fired because': "the subtask's watermark passed the timer (or the input ended)",
      Key: '"k1"',
      Timer: 'event time 2024-01-01 12:00:06',
      Breakpoint: 'bp1',
    });
    // What onTimer emitted (k1 had records at 12:00:01 and 12:00:04), and the state it touched.
    const cells = (table: string) =>
      currentStep()
        .getByRole('table', { name: table })
        .locator('tbody tr')
        .evaluateAll((rows) =>
          rows.map((row) => [...row.querySelectorAll('td')].map((td) => (td.textContent ?? '').trim())),
        );
    expect(await cells('Emitted records')).toEqual([
      ['1', 'out', `{"key":"k1","at":${START + 6000},"seen":2}`, 'timeouts-to-out', 'Trace'],
    ]);
    expect(await cells('State accesses')).toEqual([
      ['seen', 'value', 'read', '"k1"', '—', '2'],
      ['seen', 'value', 'clear', '"k1"', '—', '2 → (deleted)'],
    ]);
    const hitText = await currentStep().innerText();
    await session.screenshot('debugger-timer-hit');

    // Step on to the next watermark: a step of its own, with its time and the subtask's own.
    let steps = 0;
    do {
      await runButton(page, 'Step').click();
      steps++;
      await expectStatus(page, `Paused at step ${seq + steps}`);
      await eventually(async () => expect(await heading.textContent()).toMatch(`Step ${seq + steps}:`));
    } while (!/, watermark /.test((await heading.textContent()) ?? '') && steps < 20);
    expect(await heading.textContent()).toMatch(
      /^Step \d+: (timeouts|out)#[01], watermark 2024-01-01 12:00:0\d$/,
    );
    const watermark = await facts();
    expect(watermark.Watermark).toMatch(/^2024-01-01 12:00:0\d$/);
    expect(watermark["Subtask's watermark"]).toMatch(/^(2024-01-01 12:00:0\d|none yet .*)$/);
    const history = panel.getByRole('region', { name: 'Step history' }).getByRole('listitem');
    expect((await history.allInnerTexts())[0]).toMatch(/— watermark 2024-01-01 12:00:0\d$/);

    // And back: the hit is shown exactly as before.
    for (let back = 1; back <= steps; back++) {
      await runButton(page, 'Step back').click();
      await expectStatus(page, new RegExp(`^Paused at step ${seq + steps - back}( |$)`));
    }
    await eventually(async () => expect(await currentStep().innerText()).toBe(hitText));
    expectNoPageErrors(session);
  });

  test('Resume stops at the next firing of that key, and then the run ends', async () => {
    const { page } = session;
    await runButton(page, 'Resume').click();
    await expectStatus(page, /^Paused at step \d+ \(breakpoint bp1\)$/);
    const heading = currentStep().getByRole('heading', { level: 3 });
    await eventually(async () => expect(await heading.textContent()).toMatch(/12:00:09 fires for key k1$/));
    // k1's last two timers (12:00:12 and 12:00:15) fire at the end of input.
    for (const time of ['12:00:12', '12:00:15']) {
      await runButton(page, 'Resume').click();
      await expectStatus(page, /^Paused at step \d+ \(breakpoint bp1\)$/);
      await eventually(async () => expect(await heading.textContent()).toMatch(`${time} fires for key k1`));
    }
    await runButton(page, 'Resume').click();
    await expectStatus(page, /^Finished/, 30_000);
    expectNoPageErrors(session);
  });
});
