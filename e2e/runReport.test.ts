// What the designer says about a run once it is over, as a user reads it: a failure of many
// words leaves the header and the workbench where they were, cut with "…" in the status line and
// whole in the Problems panel; the Checkpoints panel says what its two sizes count and stays true
// after the run (no "No checkpoint yet in this run" once it has ended, the checkpoints let go
// marked as such); and the Metrics panel shows no rate of a run that is over.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { describe, expect, test } from 'vitest';
import type { AppSession } from './appHarness.js';
import {
  answerFileDialog,
  eventually,
  expectNoPageErrors,
  MOD,
  operator,
  problemMessages,
  sessionPerFile,
} from './helpers.js';
import { expectStatus, openTab, runButton, runStatus } from './runSupport.js';

let session: AppSession;

sessionPerFile((opened) => {
  session = opened;
});

interface Box {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

async function box(locator: Locator): Promise<Box> {
  const b = await locator.boundingBox();
  if (b === null) throw new Error('not visible');
  return b;
}

const WHY = `this record is not one the map takes: ${'it has no amount, '.repeat(30)}and that is all`;

/** A generator of `count` records (at `ratePerSec`, if given) into a map with `code`, into a file. */
function job(
  name: string,
  code: string,
  count: number,
  settings: Record<string, number>,
  ratePerSec?: number,
) {
  return {
    format: 'pipewright.job/1',
    name,
    settings,
    operators: [
      {
        id: 'gen',
        kind: 'source.generator',
        params: {
          code: 'function generate(i) { return { i }; }',
          count,
          ...(ratePerSec === undefined ? {} : { ratePerSec }),
        },
      },
      { id: 'work', kind: 'map', params: { code } },
      { id: 'out', kind: 'sink.jsonl', params: { path: 'out.jsonl' } },
    ],
    edges: [
      { id: 'e1', from: 'gen', to: 'work', partition: 'forward' },
      { id: 'e2', from: 'work', to: 'out', partition: 'forward' },
    ],
  };
}

async function openJob(page: Page, name: string, content: unknown): Promise<void> {
  const path = join(session.workDir, `${name}.job.json`);
  writeFileSync(path, `${JSON.stringify(content, null, 2)}\n`);
  const start = page.getByRole('button', { name: 'Open job file…' });
  if (await start.isVisible()) await start.click();
  else await page.keyboard.press(`${MOD}+O`);
  await answerFileDialog(page, 'Open job', path, 'Open');
  await eventually(async () => expect(await page.title()).toBe(`${name}.job.json — Pipewright`));
  await operator(page, 'work').waitFor();
}

describe('a run that fails with a long message', () => {
  test('leaves the header and the workbench where they were; the status is cut, Problems has it whole', async () => {
    const { page } = session;
    await page.setViewportSize({ width: 1400, height: 900 });
    const code = `function map(record, ctx) {\n  throw new Error(${JSON.stringify(WHY)});\n}\n`;
    await openJob(page, 'fails', job('fails', code, 3, {}));
    const header = page.locator('header.topbar');
    const canvasArea = page.getByRole('region', { name: 'Canvas' });
    const before = { header: await box(header), canvas: await box(canvasArea) };
    await runButton(page, 'Run').click();
    await expectStatus(page, /^Failed: /, 30_000);
    await session.screenshot('long-failure');
    expect(await box(header)).toEqual(before.header);
    expect(await box(canvasArea)).toEqual(before.canvas);
    // One line, cut with an ellipsis: the text is wider than the room it has.
    const status = runStatus(page);
    const cut = await status.evaluate((e: { scrollWidth: number; clientWidth: number }) => ({
      scrollWidth: e.scrollWidth,
      clientWidth: e.clientWidth,
    }));
    expect(cut.scrollWidth).toBeGreaterThan(cut.clientWidth);
    expect((await box(status)).height).toBeLessThan(24);
    // The whole message, in the Problems panel.
    await page.getByRole('tab', { name: /^Problems/ }).click();
    const messages = await problemMessages(page);
    expect(messages.some((m) => m.includes(WHY))).toBe(true);
    expectNoPageErrors(session);
  });
});

describe('the Checkpoints and Metrics panels after a run', () => {
  test('say what each size counts, and mark the checkpoints let go once the run is over', async () => {
    const { page } = session;
    const code = 'function map(record, ctx) {\n  return record;\n}\n';
    // About 1.5 s of records, a checkpoint every 300 ms, the newest two kept.
    const settings = { checkpointIntervalMs: 300, checkpointsRetained: 2 };
    await openJob(page, 'paced', job('paced', code, 300, settings, 200));
    await runButton(page, 'Run').click();
    await expectStatus(page, /^Finished/, 60_000);
    const panel = await openTab(page, 'Checkpoints');
    const table = panel.getByRole('table', { name: 'Checkpoint history' });
    await table.waitFor();
    const headers = await table.locator('thead th').allInnerTexts();
    expect(headers).toContain('Written');
    expect(headers).toContain('State size');
    expect(headers).not.toContain('Persisted');
    expect(headers).not.toContain('Full size');
    const written = table.locator('thead th', { hasText: 'Written' });
    const size = table.locator('thead th', { hasText: 'State size' });
    expect(await written.getAttribute('title')).toMatch(/changes since the checkpoint before/);
    expect(await size.getAttribute('title')).toMatch(/timers/i);
    expect(await panel.locator('.checkpoint-legend').innerText()).toMatch(
      /Written can be larger than State size/,
    );
    const rows = table.locator('tbody tr');
    const count = await rows.count();
    expect(count).toBeGreaterThanOrEqual(3);
    // Newest first: the newest two kept, the older ones let go.
    const statuses = await table.locator('tbody tr td:nth-child(3)').allInnerTexts();
    expect(statuses.slice(0, 2).every((s) => s === 'completed')).toBe(true);
    expect(statuses.slice(2).every((s) => s.startsWith('completed, let go'))).toBe(true);
    await session.screenshot('checkpoints-after-run');

    // No rate of a run that is over: what went through, in all.
    const metrics = await openTab(page, 'Metrics');
    const caption = metrics.locator('figcaption').first();
    await caption.waitFor();
    expect(await caption.innerText()).not.toMatch(/\/s/);
    expect(await caption.innerText()).toMatch(/in all/);
    await session.screenshot('metrics-after-run');
    expectNoPageErrors(session);
  });

  test('a run that ended before its first checkpoint was due lists the one its end took, not "No checkpoint yet"', async () => {
    const { page } = session;
    const code = 'function map(record, ctx) {\n  return record;\n}\n';
    await openJob(page, 'quick', job('quick', code, 3, { checkpointIntervalMs: 60_000 }));
    await runButton(page, 'Run').click();
    await expectStatus(page, /^Finished/, 60_000);
    const panel = await openTab(page, 'Checkpoints');
    const text = await panel.innerText();
    expect(text).not.toContain('No checkpoint yet');
    // The end of a bounded job is a checkpoint of its own, whenever it comes (docs/checkpoints.md).
    expect(text).toContain('1 completed, 0 failed');
    expectNoPageErrors(session);
  });
});
