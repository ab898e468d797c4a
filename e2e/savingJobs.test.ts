// Where a job goes when it is first saved, as a user meets it: the file dialog opens in the
// folder the designer was started from (not the home folder), or in the job's own folder; a
// template saved elsewhere takes its input data with it, so its first Run reads it; and a job
// file too large for the host protocol is refused with one line, the designer staying connected.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, test } from 'vitest';
import type { AppSession } from './appHarness.js';
import {
  eventually,
  expectNoPageErrors,
  fileDialog,
  MOD,
  operator,
  problemMessages,
  sessionPerFile,
  toolbar,
} from './helpers.js';

let session: AppSession;

sessionPerFile((opened) => {
  session = opened;
});

const EXAMPLES = join(import.meta.dirname, '..', 'assets', 'examples');

/** The folder the app's file dialog shows (the line above its listing). */
async function dialogFolder(page: Page, title: string): Promise<string> {
  const dialog = fileDialog(page, title);
  await dialog.waitFor();
  return dialog.locator('p.muted').first().innerText();
}

async function cancelDialog(page: Page, title: string): Promise<void> {
  const dialog = fileDialog(page, title);
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await dialog.waitFor({ state: 'detached' });
}

/** Goes back to the start screen by reloading (nothing here is unsaved that matters). */
async function startScreen(page: Page): Promise<void> {
  await page.reload();
  await page.getByRole('button', { name: 'New job' }).waitFor();
}

describe('where the file dialog starts', () => {
  test('a new job is saved from the folder the designer was started from, not the home folder', async () => {
    const { page } = session;
    await page.getByRole('button', { name: 'New job' }).click();
    await toolbar(page).getByRole('button', { name: 'Save', exact: true }).click();
    expect(await dialogFolder(page, 'Save job as')).toBe(session.startDir);
    await session.screenshot('save-dialog-start-folder');
    await cancelDialog(page, 'Save job as');
    await toolbar(page).getByRole('button', { name: 'Open', exact: true }).click();
    const discard = page.getByRole('dialog', { name: 'Unsaved changes' });
    if (await discard.isVisible()) await discard.getByRole('button', { name: "Don't save" }).click();
    expect(await dialogFolder(page, 'Open job')).toBe(session.startDir);
    await cancelDialog(page, 'Open job');
    expectNoPageErrors(session);
  });
});

describe('a template saved elsewhere', () => {
  test('Run asks to save it, says its input file goes with it, copies it, and the run reads it', async () => {
    const { page } = session;
    await startScreen(page);
    await page.getByRole('button', { name: 'Open template word-count' }).click();
    await operator(page, 'words').waitFor();
    await page
      .getByRole('toolbar', { name: 'Run' })
      .getByRole('button', { name: 'Run', exact: true })
      .click();
    const ask = page.getByRole('dialog', { name: 'Save before running' });
    await ask.waitFor();
    expect(await ask.innerText()).toContain('lines.jsonl');
    await session.screenshot('save-before-running-template');
    await ask.getByRole('button', { name: 'Save…' }).click();
    const dialog = fileDialog(page, 'Save job as');
    await dialog.waitFor();
    expect(await dialogFolder(page, 'Save job as')).toBe(session.startDir);
    expect(await dialog.innerText()).toContain('lines.jsonl');
    const saved = join(session.workDir, 'my-count.job.json');
    await dialog.getByLabel('File path').fill(saved);
    await dialog.getByRole('button', { name: 'Save', exact: true }).click();
    await dialog.waitFor({ state: 'detached' });

    const status = page.getByRole('status', { name: 'Run status' });
    await eventually(async () => expect(await status.innerText()).toMatch(/^Finished/), 60_000);
    expect(readFileSync(join(session.workDir, 'lines.jsonl'), 'utf8')).toBe(
      readFileSync(join(EXAMPLES, 'word-count', 'lines.jsonl'), 'utf8'),
    );
    expect(existsSync(join(session.workDir, 'out', 'word-counts.jsonl'))).toBe(true);
    expect(await problemMessages(page)).toEqual([]);
    expectNoPageErrors(session);
  });

  test('a file of that name already there is kept, and the notice says so', async () => {
    const { page } = session;
    await startScreen(page);
    const mine = '{"line":"my own words"}\n';
    writeFileSync(join(session.workDir, 'lines.jsonl'), mine);
    await page.getByRole('button', { name: 'Open template word-count' }).click();
    await operator(page, 'words').waitFor();
    await page.keyboard.press(`${MOD}+S`);
    const dialog = fileDialog(page, 'Save job as');
    await dialog.waitFor();
    await dialog.getByLabel('File path').fill(join(session.workDir, 'again.job.json'));
    await dialog.getByRole('button', { name: 'Save', exact: true }).click();
    const notice = page.getByRole('status', { name: 'Notice' });
    await notice.waitFor();
    expect(await notice.innerText()).toContain('lines.jsonl');
    expect(readFileSync(join(session.workDir, 'lines.jsonl'), 'utf8')).toBe(mine);
    expectNoPageErrors(session);
  });
});

/** A valid job file of about `mib` MiB: its description pads it. */
function bigJob(path: string, mib: number): void {
  const job = {
    format: 'pipewright.job/1',
    name: 'big',
    description: 'x'.repeat(mib * 1024 * 1024),
    operators: [
      {
        id: 'gen',
        kind: 'source.generator',
        params: { code: 'function generate(i) { return { i }; }', count: 3 },
      },
    ],
    edges: [],
  };
  writeFileSync(path, JSON.stringify(job));
}

describe('a large job file', () => {
  test('opening one sends its text to the host no more with the input check (it asks only about files)', async () => {
    const { page } = session;
    await startScreen(page);
    const path = join(session.workDir, 'one.job.json');
    bigJob(path, 1);
    const checks: number[] = [];
    page.on('websocket', (socket) =>
      socket.on('framesent', (frame) => {
        const text = typeof frame.payload === 'string' ? frame.payload : frame.payload.toString();
        if (text.includes('"method":"job.checkFiles"')) checks.push(text.length);
      }),
    );
    // The page's socket opened with it: reload so that its frames are seen.
    await page.reload();
    await page.getByRole('button', { name: 'Open job file…' }).click();
    const dialog = fileDialog(page, 'Open job');
    await dialog.getByLabel('File path').fill(path);
    await dialog.getByRole('button', { name: 'Open', exact: true }).click();
    await operator(page, 'gen').waitFor();
    await eventually(async () => expect(await page.title()).toBe('one.job.json — Pipewright'));
    // The check was asked, with the names of the files the job reads, not its megabyte of text.
    await eventually(() => expect(checks.length).toBeGreaterThan(0));
    expect(Math.max(...checks)).toBeLessThan(4096);
    expectNoPageErrors(session);
  });

  test('one larger than the protocol carries is refused with one line, and the designer stays connected', async () => {
    const { page } = session;
    const path = join(session.workDir, 'huge.job.json');
    bigJob(path, 70);
    await page.keyboard.press(`${MOD}+O`);
    const dialog = fileDialog(page, 'Open job');
    await dialog.getByLabel('File path').fill(path);
    await dialog.getByRole('button', { name: 'Open', exact: true }).click();
    const message = page.getByRole('dialog', { name: 'Could not open' });
    await message.waitFor({ timeout: 30_000 });
    expect(await message.locator('p').innerText()).toBe(
      `Cannot open ${path}: it is 70 MiB, and the designer opens job files of up to 32 MiB`,
    );
    await session.screenshot('large-file-refused');
    await message.getByRole('button', { name: 'OK' }).click();
    expect(await page.title()).toBe('one.job.json — Pipewright');
    // Still connected: the host answers the next request.
    await page.keyboard.press(`${MOD}+O`);
    expect(await dialogFolder(page, 'Open job')).toBe(session.workDir);
    await cancelDialog(page, 'Open job');
    expectNoPageErrors(session);
  });
});
