// What the designer knows and must say in the Problems panel, as a user meets it: a source whose
// input file is missing (a warning as the job opens, gone once the file is there and the job
// saved); an input whose text is no value (listed, and a save says it left it out); a run that
// failed (its whole message, and the operator it names marked on the canvas); and the status
// line, which stops repeating that failure once the job has been changed; two sinks on one file.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { describe, expect, test } from 'vitest';
import type { AppSession } from './appHarness.js';
import {
  answerFileDialog,
  eventually,
  expectNoPageErrors,
  expectNoProblems,
  inspector,
  openWithShortcut,
  operator,
  problemList,
  problemMessages,
  readText,
  saveWithShortcut,
  sessionPerFile,
  typeInto,
} from './helpers.js';
import { expectStatus, runButton, runStatus } from './runSupport.js';

const WHY =
  'this record cannot be processed because its field bad is set; fix the input file and run the job again';

const CODE = [
  'function process(record, ctx) {',
  `  if (record.bad) throw new Error('${WHY}');`,
  '  ctx.emit(record);',
  '}',
].join('\n');

const JOB = {
  format: 'pipewright.job/1',
  name: 'said',
  operators: [
    { id: 'src', kind: 'source.jsonl', parallelism: 1, params: { path: 'events.jsonl' } },
    { id: 'p1', kind: 'process', parallelism: 1, params: { code: CODE } },
    { id: 'out', kind: 'sink.jsonl', parallelism: 1, params: { path: 'out/result.jsonl' } },
  ],
  edges: [
    { id: 'e1', from: 'src', to: 'p1', partition: 'forward' },
    { id: 'e2', from: 'p1', to: 'out', partition: 'forward' },
  ],
};

const FAILURE = `operator "p1" failed on the record from events.jsonl:2: ${WHY}`;

let session: AppSession;
const file = (name: string) => join(session.workDir, name);
const jobFile = () => file('said.job.json');

sessionPerFile((opened) => {
  session = opened;
});

/** The Problems panel's row whose message starts so. */
function problemRow(page: Page, start: string): Locator {
  return problemList(page)
    .locator('li.problem')
    .filter({ has: page.locator('.problem-message', { hasText: start }) });
}

const failedOnCanvas = (page: Page) =>
  page.locator('.op-card.op-failed').evaluateAll((els) => els.map((e) => e.getAttribute('data-id')));

describe('problems the designer knows', () => {
  test('a source whose input file is missing is a warning as the job opens, gone once the file is there and saved', async () => {
    const { page } = session;
    writeFileSync(jobFile(), `${JSON.stringify(JOB, null, 2)}\n`);
    await page.getByRole('button', { name: 'Open job file…' }).click();
    await answerFileDialog(page, 'Open job', jobFile(), 'Open');
    await operator(page, 'p1').waitFor();

    const warning = 'operator "src": input file events.jsonl not found next to the job file';
    await eventually(async () => expect(await problemMessages(page)).toEqual([warning]));
    const row = problemRow(page, warning);
    expect(await row.getAttribute('class')).toContain('problem-warning');
    expect(await row.locator('.problem-icon').innerText()).toContain('Warning:');
    // The tab counts it, in the colour of a warning.
    expect(await page.getByRole('tab', { name: 'Problems 1' }).locator('.tab-badge-warning').count()).toBe(1);
    // The row leads to the operator whose parameter names the file.
    await row.getByRole('button').click();
    await inspector(page).getByRole('heading', { name: 'Operator src' }).waitFor();

    writeFileSync(file('events.jsonl'), '{"n":1}\n{"n":2,"bad":true}\n');
    await saveWithShortcut(page, jobFile());
    await expectNoProblems(page);
    expectNoPageErrors(session);
  });

  test('letters in Parallelism are a problem naming the operator and field, and Ctrl+S says the change was not applied', async () => {
    const { page } = session;
    const panel = inspector(page);
    // The test before selected src from the Problems panel, which brings it into view: a click
    // while the canvas still moves can land on src. Clicked again until p1 is what it selected.
    await eventually(async () => {
      await operator(page, 'p1').click();
      await panel.getByRole('heading', { name: 'Operator p1' }).waitFor({ timeout: 2000 });
    });
    const parallelism = panel.getByRole('textbox', { name: 'Parallelism' });
    await typeInto(parallelism, 'abc', 'none');
    const listed = 'operator "p1": Parallelism "abc" is not applied: "abc" is not a number. The job keeps 1.';
    await eventually(async () => expect(await problemMessages(page)).toEqual([listed]));
    expect(await parallelism.getAttribute('aria-invalid')).toBe('true');

    // Saved with the focus still in the field: the file keeps 1, and the app says so.
    await saveWithShortcut(page, jobFile());
    expect(JSON.parse(readText(jobFile())).operators[1].parallelism).toBe(1);
    const notice = page.getByRole('status', { name: 'Notice' });
    expect(await notice.locator('.doc-notice-text').innerText()).toBe(
      'Saved without your change to Parallelism of operator "p1": "abc" is not a number. The file keeps 1.',
    );

    await session.screenshot('problems-save-notice');
    // A value again: the problem goes; the notice goes when dismissed.
    await typeInto(parallelism, '1', 'none');
    await expectNoProblems(page);
    await notice.getByRole('button', { name: 'Dismiss' }).click();
    expect(await notice.count()).toBe(0);
    expectNoPageErrors(session);
  });

  test('a failed run is in the Problems panel in full, and its operator is marked on the canvas', async () => {
    const { page } = session;
    await runButton(page, 'Run').click();
    await expectStatus(page, /^Failed: /);
    const message = `last run failed: ${FAILURE}`;
    await eventually(async () => expect(await problemMessages(page)).toEqual([message]));
    // The status line cuts it short; the panel shows every word, wrapped inside the row.
    const shown = problemRow(page, 'last run failed').locator('.problem-message');
    expect(
      await shown.evaluate(
        (e: { scrollWidth: number; clientWidth: number }) => e.scrollWidth <= e.clientWidth,
      ),
    ).toBe(true);
    expect(
      await runStatus(page).evaluate(
        (e: { scrollWidth: number; clientWidth: number }) => e.scrollWidth > e.clientWidth,
      ),
    ).toBe(true);
    expect(await failedOnCanvas(page)).toEqual(['p1']);
    expect(await page.getByRole('tab', { name: 'Problems 1' }).count()).toBe(1);
    await problemRow(page, 'last run failed').getByRole('button').click();
    await inspector(page).getByRole('heading', { name: 'Operator p1' }).waitFor();
    await session.screenshot('problems-run-failed');
    expectNoPageErrors(session);
  });

  test('once the cause is fixed and saved, the status line and the panel stop saying the old failure', async () => {
    const { page } = session;
    writeFileSync(file('good.jsonl'), '{"n":1}\n{"n":2}\n');
    await operator(page, 'src').click();
    await typeInto(inspector(page).getByRole('textbox', { name: 'Path' }), 'good.jsonl');
    await saveWithShortcut(page, jobFile());
    await expectStatus(page, 'Not running (the last run failed; the job has changed since)');
    await expectNoProblems(page);
    expect(await failedOnCanvas(page)).toEqual([]);
    // And the job now runs through.
    await runButton(page, 'Run').click();
    await expectStatus(page, /^Finished — done: 2 records from the sources/);
    expect(readText(file('out/result.jsonl')).trim().split('\n')).toHaveLength(2);
    expectNoPageErrors(session);
  });

  test('two sinks on one file, one path absolute, are a problem naming both, resolved against the job folder', async () => {
    const { page } = session;
    const shared = file('shared.job.json');
    const job = {
      format: 'pipewright.job/1',
      name: 'shared',
      operators: [
        { id: 'src', kind: 'source.jsonl', parallelism: 1, params: { path: 'good.jsonl' } },
        { id: 'a', kind: 'sink.jsonl', parallelism: 1, params: { path: 'same.jsonl' } },
        { id: 'b', kind: 'sink.jsonl', parallelism: 1, params: { path: file('same.jsonl') } },
      ],
      edges: [
        { id: 'e1', from: 'src', to: 'a', partition: 'forward' },
        { id: 'e2', from: 'src', to: 'b', partition: 'forward' },
      ],
    };
    writeFileSync(shared, `${JSON.stringify(job, null, 2)}\n`);
    await openWithShortcut(page, shared);
    await operator(page, 'b').waitFor();
    const said = `operators "a" and "b" both write the file ${JSON.stringify(file('same.jsonl'))} (written "same.jsonl" and ${JSON.stringify(file('same.jsonl'))})`;
    await eventually(async () => {
      const messages = await problemMessages(page);
      expect(messages).toHaveLength(1);
      expect(messages[0]).toContain(said);
    });
    await problemRow(page, said).getByRole('button').click();
    await inspector(page).getByRole('heading', { name: 'Operator b' }).waitFor();
    // Another file for b: the problem goes.
    await typeInto(inspector(page).getByRole('textbox', { name: 'Path' }), 'other.jsonl');
    await expectNoProblems(page);
    expectNoPageErrors(session);
  });
});
