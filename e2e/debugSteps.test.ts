// Stepping an event-time job as a user would: a JSON Lines source with a time field makes a
// watermark after every record, and a watermark that fires nothing is shown with the step after
// it instead of being a step of its own (one that fires a timer stays a step); step back shows
// the same again; a watermark breakpoint stops at each all the same. A record a step took is traced at any operator, named by its line in the file,
// with the trace brought into view where its button was; every trace button is named by the
// words it shows.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import type { AppSession } from './appHarness.js';
import { answerFileDialog, eventually, expectNoPageErrors, operator, sessionPerFile } from './helpers.js';
import { inView } from './inView.js';
import { expectStatus, openTab, runButton } from './runSupport.js';

const START = Date.UTC(2024, 0, 1, 12, 0, 0);
const RECORDS = 12;
const LINES = Array.from({ length: RECORDS }, (_, n) =>
  JSON.stringify({ k: `k${n % 3}`, n, ts: START + n * 1000 }),
);

/** events (time field ts) → upper (a map) → timeouts (a timer 5 s after each record) → out. */
const JOB = {
  format: 'pipewright.job/1',
  name: 'stepped',
  settings: { stateBackend: 'level', checkpointIntervalMs: 0 },
  operators: [
    {
      id: 'events',
      kind: 'source.jsonl',
      parallelism: 1,
      params: { path: 'events.jsonl', timestampField: 'ts', maxOutOfOrdernessMs: 0 },
    },
    {
      id: 'upper',
      kind: 'map',
      parallelism: 1,
      params: { code: 'function map(r) { return { ...r, k: r.k.toUpperCase() }; }' },
    },
    {
      id: 'timeouts',
      kind: 'process',
      parallelism: 2,
      params: {
        code: `function process(record, ctx) {
  ctx.state.value('seen').set(record.n);
  ctx.timers.eventTime(ctx.timestamp + 5000);
}
function onTimer(timestamp, ctx) {
  ctx.emit({ key: ctx.key, at: timestamp, seen: ctx.state.value('seen').get() });
}`,
      },
    },
    { id: 'out', kind: 'sink.jsonl', parallelism: 1, params: { path: 'out/stepped.jsonl' } },
  ],
  edges: [
    { id: 'events-to-upper', from: 'events', to: 'upper', partition: 'forward' },
    { id: 'upper-to-timeouts', from: 'upper', to: 'timeouts', partition: 'hash', key: 'k' },
    { id: 'timeouts-to-out', from: 'timeouts', to: 'out', partition: 'rebalance' },
  ],
};

let session: AppSession;
sessionPerFile((opened) => {
  session = opened;
});

const debuggerPanel = () => session.page.getByRole('tabpanel', { name: 'Debugger' });
const currentStep = () => debuggerPanel().getByRole('article', { name: 'Current step' });
const heading = () => currentStep().getByRole('heading', { level: 3 });

/** Steps once; the heading and the text of the step then shown. */
async function step(seq: number): Promise<{ heading: string; text: string }> {
  await runButton(session.page, 'Step').click();
  await expectStatus(session.page, `Paused at step ${seq}`);
  await eventually(async () => expect(await heading().textContent()).toMatch(new RegExp(`^Step ${seq}:`)));
  return { heading: (await heading().textContent()) ?? '', text: await currentStep().innerText() };
}

/** Buttons of the step whose accessible name (aria-label) lacks the words they show (WCAG 2.5.3). */
async function namesWithoutTheirWords(): Promise<string[]> {
  return currentStep()
    .getByRole('button')
    .evaluateAll((buttons) =>
      buttons
        .map((b) => ({ label: b.getAttribute('aria-label'), text: (b.textContent ?? '').trim() }))
        .filter((b) => b.label !== null && !b.label.toLowerCase().includes(b.text.toLowerCase()))
        .map((b) => `${b.label} / ${b.text}`),
    );
}

/**
 * Steps taken forward: records 0 to 5 are three steps each (made, mapped, at timeouts), then the
 * watermark of record 5 fires record 0's timer, whose output reaches out.
 */
const STEPS = 24;
const steps: { heading: string; text: string }[] = [];

describe('stepping an event-time job', () => {
  test('a watermark that fires nothing is shown with the next step; one that fires a timer is a step', async () => {
    const { page } = session;
    writeFileSync(join(session.workDir, 'events.jsonl'), `${LINES.join('\n')}\n`);
    const jobFile = join(session.workDir, 'stepped.job.json');
    writeFileSync(jobFile, `${JSON.stringify(JOB, null, 2)}\n`);
    await page.getByRole('button', { name: 'Open job file…' }).click();
    await answerFileDialog(page, 'Open job', jobFile, 'Open');
    await operator(page, 'timeouts').waitFor();
    await runButton(page, 'Debug').click();
    await expectStatus(page, 'Paused before the first step');
    await openTab(page, 'Debugger');

    for (let seq = 1; seq <= STEPS; seq++) steps.push(await step(seq));
    const watermarkSteps = steps.filter((s) => /, watermark /.test(s.heading));
    const timerSteps = steps.filter((s) => /timer .* fires/.test(s.heading));
    // Every record makes a watermark at upper and at timeouts: as steps, one in three would be one.
    expect(watermarkSteps.length).toBeLessThan(steps.length / 6);
    // Those that are steps fired a timer: each is followed by a timer of its subtask.
    expect(timerSteps.length).toBeGreaterThan(0);
    for (const w of watermarkSteps) {
      const at = steps.indexOf(w);
      const subtask = /: (\w+#\d),/.exec(w.heading)![1];
      const next = steps.slice(at + 1).find((s) => s.heading.includes(`: ${subtask},`));
      expect(next?.heading, w.heading).toMatch(/timer .* fires/);
    }
    // The others are there, with the step after them.
    // (innerText is as shown: the section's heading is in capitals.)
    const carrying = steps.filter((s) => /watermarks before this step/i.test(s.text));
    expect(carrying.length).toBeGreaterThan(steps.length / 6);
    const shown = currentStep();
    const withWatermarks = steps.findLastIndex((s) => /watermarks before this step/i.test(s.text));
    expect(steps[withWatermarks]!.text).toMatch(
      /(upper|timeouts)#\d: watermark 2024-01-01 12:00:\d\d over edge (events-to-upper|upper-to-timeouts) from upstream subtask 0; the subtask's watermark (2024-01-01 12:00:\d\d|none yet .*)/,
    );

    // Back over them: each step as it was shown, watermarks and all.
    for (let back = steps.length - 1; back >= steps.length - 8; back--) {
      await runButton(page, 'Step back').click();
      await expectStatus(page, `Paused at step ${back}`);
      await eventually(async () => expect(await shown.innerText()).toBe(steps[back - 1]!.text));
    }
    await session.screenshot('debugger-watermarks-with-step');
    expectNoPageErrors(session);
  });

  test('at the sink, the record a step took is an output record, traced to the line its state came from', async () => {
    const { page } = session;
    // On from where stepping back left off, to the first record out took.
    let seq = STEPS - 8;
    while (!/^Step \d+: out#0, record delivered$/.test((await heading().textContent()) ?? '')) {
      expect(seq, 'no record reached out').toBeLessThan(STEPS + 12);
      seq = Number(/^Step (\d+):/.exec((await step(seq + 1)).heading)![1]);
    }
    // Its accessible name says what it shows.
    expect(await namesWithoutTheirWords()).toEqual([]);
    await currentStep().getByRole('button', { name: 'Trace this output record', exact: true }).click();
    const output = currentStep().getByRole('region', { name: 'Trace of this output record' });
    await output.waitFor();
    const record = JSON.parse(
      (await currentStep().getByRole('region', { name: 'Record' }).locator('pre').textContent()) ?? '',
    ) as { seen: number };
    // A timer's output has no input record of its own: it descends from the record whose state
    // onTimer read, named by the line that record came from.
    expect(
      await output
        .getByText(/^No input record: made at step \d+ by timeouts#\d, from the state read below\.$/)
        .count(),
    ).toBe(1);
    const read = await output.getByRole('list', { name: /^State read at step \d+$/ }).innerText();
    const line =
      /^read seen of "K\d", written at step \d+ by timeouts#\d from events\.jsonl line (\d+) /.exec(read);
    expect(line, read).not.toBeNull();
    expect(Number(line![1]) - 1).toBe(record.seen);
    await session.screenshot('debugger-trace-received');
    await runButton(page, 'Stop').click();
    await expectStatus(page, /^Stopped/);
    expectNoPageErrors(session);
  });

  test('the record a step took is traced at any operator, to its line of the file, in view', async () => {
    const { page } = session;
    // The first record upper took: step 2 (events made it at step 1).
    await runButton(page, 'Debug').click();
    await expectStatus(page, 'Paused before the first step');
    await step(1);
    expect((await step(2)).heading).toBe('Step 2: upper#0, record delivered');
    // Every button is named by the words it shows (WCAG 2.5.3).
    expect(await namesWithoutTheirWords()).toEqual([]);
    const trace = currentStep().getByRole('button', { name: 'Trace this record', exact: true });
    // Pressed at the bottom edge of what shows: the trace opens below it, and is brought into view.
    await trace.evaluate((element) => element.scrollIntoView({ block: 'end' }));
    await trace.click();
    const region = currentStep().getByRole('region', { name: 'Trace of this record' });
    await region.waitFor();
    await eventually(async () => expect(await inView(region)).toBe(true));
    const inputs = await region
      .getByRole('table', { name: 'Trace inputs' })
      .locator('tbody tr')
      .evaluateAll((rows) => rows.map((row) => [...row.querySelectorAll('td')].map((td) => td.textContent)));
    expect(inputs).toEqual([['events#0', 'events.jsonl line 1', LINES[0]]]);
    expect(
      await region.getByRole('list', { name: 'Trace path' }).locator(':scope > li').allInnerTexts(),
    ).toEqual(['step 1: events#0', 'step 2: upper#0']);
    await runButton(page, 'Stop').click();
    await expectStatus(page, /^Stopped/);
    expectNoPageErrors(session);
  });

  test('a watermark breakpoint still stops at every watermark, at the step that shows it', async () => {
    const { page } = session;
    const panel = debuggerPanel();
    await panel.getByRole('combobox', { name: 'Breakpoint type' }).selectOption('watermark');
    await panel.getByRole('combobox', { name: 'Breakpoint operator' }).selectOption('upper');
    await panel.getByRole('button', { name: 'Add breakpoint' }).click();
    await panel.getByRole('list', { name: 'Breakpoint list' }).waitFor();
    // Debug runs to the first breakpoint hit, Resume to each next.
    await runButton(page, 'Debug').click();
    // Upper has no timers: none of its watermarks is a step, and each stops the run all the same,
    // shown with the step that came after it: the one of record n says 12:00:0n.
    const watermarks = currentStep().getByRole('region', { name: 'Watermarks before this step' });
    let stopped = 0;
    for (let n = 0; n < 3; n++) {
      if (n > 0) await runButton(page, 'Resume').click();
      // Just after Resume the status may still name the stop before: wait for a later one.
      let seq = 0;
      await eventually(async () => {
        const status = await expectStatus(page, /^Paused at step \d+ \(breakpoint bp1\)$/);
        seq = Number(/step (\d+)/.exec(status)![1]);
        expect(seq).toBeGreaterThan(stopped);
      });
      stopped = seq;
      await eventually(async () =>
        expect(await heading().textContent()).toMatch(new RegExp(`^Step ${seq}:`)),
      );
      expect(await heading().textContent()).not.toMatch(/watermark/);
      expect(await watermarks.getByRole('listitem').allInnerTexts()).toContainEqual(
        expect.stringMatching(
          new RegExp(`^upper#0: watermark 2024-01-01 12:00:0${n} over edge events-to-upper `),
        ),
      );
    }
    await runButton(page, 'Stop').click();
    await expectStatus(page, /^Stopped/);
    expectNoPageErrors(session);
  });
});
