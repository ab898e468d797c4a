// Job files from strangers in the designer (docs/security.md): one opened from disk that writes
// outside its folder, reads an environment variable or connects to a server opens in restricted
// mode (a banner, no Run, Debug or Test connection); "Trust this job…" lists what it will do, and
// trusting it turns Run on, and is remembered for that file and text, until someone else edits
// the file. A job made in the designer, and one that stays in its folder, need no trust.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { AppSession } from './appHarness.js';
import {
  answerFileDialog,
  dropFromPalette,
  eventually,
  expectNoPageErrors,
  fileDialog,
  inspector,
  MOD,
  operator,
  saveWithShortcut,
  sessionPerFile,
  typeInto,
} from './helpers.js';
import { enabledRunButtons, expectStatus, runButton } from './runSupport.js';

let session: AppSession;

sessionPerFile((opened) => {
  session = opened;
});

const SECRET_VAR = 'PIPEWRIGHT_E2E_TRUST_SECRET';
const SECRET = 'e2e-s3cret';

// The browser form's host runs in this process: the job reads this process's environment.
beforeAll(() => {
  process.env[SECRET_VAR] = SECRET;
});
afterAll(() => {
  delete process.env[SECRET_VAR];
});

const banner = (page: Page) => page.getByRole('region', { name: 'Restricted mode' });
const trustDialog = (page: Page) => page.getByRole('dialog', { name: 'Trust this job' });

/** Opens a file through Ctrl+O, answering "Don't save" if the current document asks. */
async function open(path: string): Promise<void> {
  const { page } = session;
  // The start screen has its own button; the workbench takes Ctrl+O.
  const startOpen = page.getByRole('button', { name: 'Open job file…' });
  if (await startOpen.isVisible()) await startOpen.click();
  else await page.keyboard.press(`${MOD}+O`);
  const prompt = page.getByRole('dialog', { name: 'Unsaved changes' });
  await Promise.race([prompt.waitFor(), fileDialog(page, 'Open job').waitFor()]);
  if (await prompt.isVisible()) await prompt.getByRole('button', { name: "Don't save" }).click();
  await answerFileDialog(page, 'Open job', path, 'Open');
  await eventually(async () =>
    expect(await page.title()).toMatch(new RegExp(`^${basename(path).replace('.', '\\.')} — `)),
  );
}

function jobText(sinkPath: string, code: string, extra: { id: string }[] = []): string {
  const operators = [
    { id: 'in', kind: 'source.jsonl', parallelism: 1, params: { path: 'in.jsonl' } },
    { id: 'tag', kind: 'map', parallelism: 1, params: { code } },
    { id: 'out', kind: 'sink.jsonl', parallelism: 1, params: { path: sinkPath } },
    ...extra,
  ];
  return `${JSON.stringify(
    {
      format: 'pipewright.job/1',
      name: 'stranger',
      settings: { checkpointIntervalMs: 0 },
      operators,
      edges: [
        { id: 'e1', from: 'in', to: 'tag', partition: 'forward' },
        { id: 'e2', from: 'tag', to: 'out', partition: 'forward' },
      ],
      editor: {
        positions: Object.fromEntries(operators.map((op, i) => [op.id, { x: 260 * i, y: 40 }])),
      },
    },
    null,
    2,
  )}\n`;
}

const LEAKING_CODE = `function map(r) { return { ...r, token: '\${env:${SECRET_VAR}}' }; }`;

describe('a job from a stranger', () => {
  const folder = () => join(session.workDir, 'Downloads', 'stranger');
  const file = () => join(folder(), 'stranger.job.json');
  const outside = () => join(session.workDir, 'home', '.profile.jsonl');

  beforeAll(() => {
    mkdirSync(folder(), { recursive: true });
    mkdirSync(dirname(outside()), { recursive: true });
    writeFileSync(join(folder(), 'in.jsonl'), '{"n":1}\n{"n":2}\n');
    writeFileSync(file(), jobText('../../home/.profile.jsonl', LEAKING_CODE));
  });

  test('opens in restricted mode: a banner, and no Run or Debug', async () => {
    const { page } = session;
    await open(file());
    await banner(page).waitFor();
    expect(await banner(page).innerText()).toMatch(/Restricted mode\..*not run it or test its connections/s);
    expect(await runButton(page, 'Run').isDisabled()).toBe(true);
    expect(await runButton(page, 'Debug').isDisabled()).toBe(true);
    expect(await enabledRunButtons(page)).toEqual([]);
    expect(await runButton(page, 'Run').getAttribute('title')).toBe(
      'Restricted mode: trust this job to run it',
    );
    // F5 does not run it either: the app says why.
    await operator(page, 'tag').click();
    await page.keyboard.press('F5');
    const said = page.getByRole('dialog', { name: 'Restricted mode' });
    await said.waitFor();
    await said.getByRole('button', { name: 'OK' }).click();
    await expectStatus(page, 'Not running');
    await session.screenshot('trust-restricted');
    expectNoPageErrors(session);
  });

  test('"Trust this job…" lists the file it would write outside its folder and the variable it reads; Cancel changes nothing', async () => {
    const { page } = session;
    await banner(page).getByRole('button', { name: 'Trust this job…' }).click();
    const dialog = trustDialog(page);
    await dialog.waitFor();
    expect(
      await dialog.getByRole('region', { name: 'Write files outside its folder' }).innerText(),
    ).toContain(`${outside()} (operator out)`);
    expect(await dialog.getByRole('region', { name: 'Read environment variables' }).innerText()).toContain(
      `${SECRET_VAR} (operator tag)`,
    );
    expect(await dialog.getByRole('region', { name: 'Connect to' }).count()).toBe(0);
    expect(await dialog.innerText()).not.toContain(SECRET);
    await session.screenshot('trust-dialog');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(await banner(page).isVisible()).toBe(true);
    expect(await runButton(page, 'Run').isDisabled()).toBe(true);
    expectNoPageErrors(session);
  });

  test('trusted, Run is on and the job does what the dialog said', async () => {
    const { page } = session;
    await banner(page).getByRole('button', { name: 'Trust this job…' }).click();
    await trustDialog(page).getByRole('button', { name: 'Trust', exact: true }).click();
    await banner(page).waitFor({ state: 'detached' });
    expect(await runButton(page, 'Run').isEnabled()).toBe(true);
    await runButton(page, 'Run').click();
    await expectStatus(page, /^Finished/, 30_000);
    expect(readFileSync(outside(), 'utf8')).toBe(
      `{"n":1,"token":"${SECRET}"}\n{"n":2,"token":"${SECRET}"}\n`,
    );
    // Remembered for this file and this text.
    const trusted = JSON.parse(readFileSync(join(dirname(session.workDir), 'data', 'trusted.json'), 'utf8'));
    expect(Object.keys(trusted.jobs)).toEqual([file()]);
    expectNoPageErrors(session);
  });

  test('opened again it is trusted; edited on disk by someone else, it asks again', async () => {
    const { page } = session;
    await page.getByRole('button', { name: 'New', exact: true }).click();
    await open(file());
    await operator(page, 'tag').waitFor();
    await expectStatus(page, 'Not running');
    await eventually(async () => expect(await runButton(page, 'Run').isEnabled()).toBe(true));
    expect(await banner(page).count()).toBe(0);

    // Someone else points the sink somewhere else.
    writeFileSync(file(), jobText('../../home/.bashrc', LEAKING_CODE));
    await open(file());
    await banner(page).waitFor();
    expect(await runButton(page, 'Run').isDisabled()).toBe(true);
    await banner(page).getByRole('button', { name: 'Trust this job…' }).click();
    expect(await trustDialog(page).innerText()).toContain(join(session.workDir, 'home', '.bashrc'));
    await trustDialog(page).getByRole('button', { name: 'Cancel' }).click();
    expectNoPageErrors(session);
  });

  test('Test connection is off for a job that connects to a server, until it is trusted', async () => {
    const { page } = session;
    const redis = {
      id: 'cache',
      kind: 'sink.redis',
      parallelism: 1,
      params: { url: 'redis://127.0.0.1:1', stream: 's' },
    };
    const path = join(folder(), 'redis.job.json');
    writeFileSync(path, jobText('out.jsonl', 'function map(r) { return r; }', [redis]));
    await open(path);
    await banner(page).waitFor();
    await operator(page, 'cache').click();
    const test = inspector(page).getByRole('button', { name: 'Test connection' });
    await test.waitFor();
    expect(await test.isDisabled()).toBe(true);
    await banner(page).getByRole('button', { name: 'Trust this job…' }).click();
    expect(await trustDialog(page).getByRole('region', { name: 'Connect to' }).innerText()).toContain(
      '127.0.0.1:1 (operator cache)',
    );
    await trustDialog(page).getByRole('button', { name: 'Trust', exact: true }).click();
    await eventually(async () => expect(await test.isEnabled()).toBe(true));
    expectNoPageErrors(session);
  });
});

describe('jobs that need no trust', () => {
  test('a job that stays in its folder opens with Run on and no banner', async () => {
    const { page } = session;
    const folder = join(session.workDir, 'own');
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, 'in.jsonl'), '{"n":1}\n');
    const path = join(folder, 'own.job.json');
    writeFileSync(path, jobText('out/out.jsonl', 'function map(r) { return r; }'));
    await open(path);
    await operator(page, 'tag').waitFor();
    await eventually(async () => expect(await runButton(page, 'Run').isEnabled()).toBe(true));
    expect(await banner(page).count()).toBe(0);
    expectNoPageErrors(session);
  });

  test('a job made in the designer is trusted, writing outside its folder too, and stays trusted once saved', async () => {
    const { page } = session;
    const folder = join(session.workDir, 'made');
    mkdirSync(folder, { recursive: true });
    const path = join(folder, 'made.job.json');
    await page.getByRole('button', { name: 'New', exact: true }).click();
    const prompt = page.getByRole('dialog', { name: 'Unsaved changes' });
    if (await prompt.isVisible().catch(() => false))
      await prompt.getByRole('button', { name: "Don't save" }).click();
    await eventually(async () => expect(await page.title()).toMatch(/^untitled/));
    const pane = (await page.locator('.react-flow__pane').boundingBox())!;
    await dropFromPalette(page, 'sink.jsonl', { x: pane.x + pane.width / 2, y: pane.y + pane.height / 2 });
    await operator(page, 'sink1').waitFor();
    await typeInto(inspector(page).getByRole('textbox', { name: 'Path' }), '../elsewhere.jsonl');
    await eventually(async () => expect(await runButton(page, 'Run').isEnabled()).toBe(true));
    expect(await banner(page).count()).toBe(0);
    await saveWithShortcut(page, path, path);
    expect(readFileSync(path, 'utf8')).toContain('../elsewhere.jsonl');

    await page.getByRole('button', { name: 'New', exact: true }).click();
    await open(path);
    await operator(page, 'sink1').waitFor();
    await eventually(async () => expect(await runButton(page, 'Run').isEnabled()).toBe(true));
    expect(await banner(page).count()).toBe(0);
    expectNoPageErrors(session);
  });
});
