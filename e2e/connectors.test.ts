// A user puts a connector into a job: the palette lists the six connector kinds, a Redis stream
// source is dropped on the canvas, its params edited through the form (an environment reference
// shown as such, a password typed into the URL warned of), and Test connection asks the server
// through the host: an unreachable port, a variable that is not set, and the real Redis and
// PostgreSQL servers when they run on this machine.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { Locator, Page } from 'playwright-core';
import { createClient } from 'redis';
import { describe, expect, test } from 'vitest';
import { describeWithServer, PG_URL, REDIS_URL } from '../test/connectors/servers.js';
import type { AppSession } from './appHarness.js';
import {
  canvas,
  dropFromPalette,
  eventually,
  expectNoPageErrors,
  inspector,
  operator,
  palette,
  sessionPerFile,
  typeInto,
} from './helpers.js';

let session: AppSession;

sessionPerFile((opened) => {
  session = opened;
});

const urlField = (page: Page) => inspector(page).getByRole('textbox', { name: 'Url' });
const streamField = (page: Page) => inspector(page).getByRole('textbox', { name: 'Stream' });
const testButton = (page: Page) => inspector(page).getByRole('button', { name: 'Test connection' });
const answer = (page: Page) => inspector(page).getByRole('status', { name: 'Connection test' });

/** The notes under a field (its problems, warnings and help), as its aria-describedby names them. */
async function notesOf(page: Page, field: Locator): Promise<string> {
  const id = await field.getAttribute('aria-describedby');
  return page.locator(`[id="${id}"]`).innerText();
}

/** Presses Test connection and waits for the host's answer: its tone and its line. */
async function testConnection(page: Page): Promise<{ tone: string; text: string }> {
  await testButton(page).click();
  await eventually(
    async () => expect(await answer(page).getAttribute('class')).not.toMatch(/tone-(idle|testing)/),
    15_000,
  );
  const tone = /tone-(\w+)/.exec((await answer(page).getAttribute('class')) ?? '')?.[1] ?? '';
  return { tone, text: await answer(page).innerText() };
}

describe('connectors in the designer', () => {
  test('the palette lists the six connector kinds under Sources and Sinks', async () => {
    const { page } = session;
    await page.getByRole('button', { name: 'New job' }).click();
    await canvas(page).waitFor();
    const group = (title: string) => palette(page).getByRole('region', { name: title });
    for (const kind of ['source.kafka', 'source.postgres', 'source.redis']) {
      expect(
        await group('Sources')
          .getByRole('button', { name: new RegExp(`\\(${kind.replace('.', '\\.')}\\)$`) })
          .count(),
        kind,
      ).toBe(1);
    }
    for (const kind of ['sink.kafka', 'sink.postgres', 'sink.redis']) {
      expect(
        await group('Sinks')
          .getByRole('button', { name: new RegExp(`\\(${kind.replace('.', '\\.')}\\)$`) })
          .count(),
        kind,
      ).toBe(1);
    }
    expectNoPageErrors(session);
  });

  test('a Redis stream source dropped from the palette: its URL is an environment reference, a typed password is warned of', async () => {
    const { page } = session;
    const pane = (await page.locator('.react-flow__pane').boundingBox())!;
    await dropFromPalette(page, 'source.redis', {
      x: pane.x + pane.width * 0.3,
      y: pane.y + pane.height * 0.4,
    });
    await operator(page, 'redis1').waitFor();
    await operator(page, 'redis1').click();
    await inspector(page).getByRole('heading', { name: 'Operator redis1' }).waitFor();

    // A new operator starts with the kind's ${env:REDIS_URL}: shown as read from the environment.
    const url = urlField(page);
    expect(await url.inputValue()).toBe('${env:REDIS_URL}');
    const badge = inspector(page).locator('.field-badge');
    expect(await badge.innerText()).toBe('env');
    expect(await notesOf(page, url)).toContain(
      'REDIS_URL: read from the environment when the job runs; never stored in the job file.',
    );

    // A password typed into the URL would be saved in the job file: warned of, and the kind's own
    // reference offered instead.
    await typeInto(url, 'redis://reader:s3cret@127.0.0.1:6379');
    await eventually(async () =>
      expect(await notesOf(page, url)).toContain('A password in the job file: use ${env:NAME}.'),
    );
    expect(await badge.count()).toBe(0);
    await session.screenshot('connector-password-warning');
    await inspector(page).getByRole('button', { name: 'Use ${env:REDIS_URL}' }).click();
    await eventually(async () => expect(await url.inputValue()).toBe('${env:REDIS_URL}'));
    expect(await notesOf(page, url)).not.toContain('A password in the job file');
    expectNoPageErrors(session);
  });

  test('Test connection against a port where nothing listens: a red line naming the server', async () => {
    const { page } = session;
    await typeInto(urlField(page), 'redis://127.0.0.1:1');
    await typeInto(streamField(page), 'events');
    const result = await testConnection(page);
    expect(result.tone).toBe('failed');
    // The Redis connector's words: the server by its address, and that it does not answer.
    expect(result.text).toMatch(/^Redis at 127\.0\.0\.1:1 does not answer/);
    expect(result.text).not.toContain('\n');
    expectNoPageErrors(session);
  });

  test('a variable that is not set is named, and an edit drops the answer about the old params', async () => {
    const { page } = session;
    await typeInto(urlField(page), '${env:PIPEWRIGHT_E2E_NOT_SET}');
    const result = await testConnection(page);
    expect(result).toEqual({
      tone: 'failed',
      text: 'operator "redis1": param "url" names the environment variable PIPEWRIGHT_E2E_NOT_SET, which is not set',
    });
    await typeInto(streamField(page), 'other');
    await eventually(async () => expect(await answer(page).innerText()).toBe(''));
    expectNoPageErrors(session);
  });
});

await describeWithServer('redis', 'Test connection against the real Redis', () => {
  test('the server answers and the stream is there (green); a stream that is not, red', async () => {
    const { page } = session;
    const stream = `pw-e2e-${randomUUID()}`;
    const client = createClient({ url: REDIS_URL });
    await client.connect();
    process.env.PIPEWRIGHT_E2E_REDIS_URL = REDIS_URL;
    try {
      await client.xAdd(stream, '*', { json: '{"n":1}' });
      await typeInto(urlField(page), '${env:PIPEWRIGHT_E2E_REDIS_URL}');
      await typeInto(streamField(page), stream);
      const found = await testConnection(page);
      expect(found.tone).toBe('ok');
      await session.screenshot('connector-test-connection');
      // The server (with its version), and the stream with the one entry written above.
      expect(found.text).toMatch(/^Redis \S+ at 127\.0\.0\.1:6379 answers; /);
      expect(found.text).toContain(`stream "${stream}" has 1 entries`);

      await typeInto(streamField(page), `${stream}-missing`);
      const missing = await testConnection(page);
      expect(missing.tone).toBe('failed');
      expect(missing.text).toContain(`stream "${stream}-missing" does not exist`);
    } finally {
      delete process.env.PIPEWRIGHT_E2E_REDIS_URL;
      await client.del(stream);
      await client.quit();
    }
    expectNoPageErrors(session);
  });
});

await describeWithServer('postgres', 'Test connection against the real PostgreSQL', () => {
  test('a PostgreSQL sink: the table and its key columns found (green); a table that is not there, red', async () => {
    const { page } = session;
    const table = `pw_e2e_${randomUUID().replaceAll('-', '_')}`;
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    process.env.PIPEWRIGHT_E2E_PG_URL = PG_URL;
    try {
      await client.query(`CREATE TABLE ${table} (id integer PRIMARY KEY, n integer)`);
      const pane = (await page.locator('.react-flow__pane').boundingBox())!;
      await dropFromPalette(page, 'sink.postgres', {
        x: pane.x + pane.width * 0.6,
        y: pane.y + pane.height * 0.6,
      });
      const sink = canvas(page).getByRole('group', { name: /^Operator pg-out\d*, / });
      await sink.click();
      await inspector(page)
        .getByRole('heading', { name: /^Operator pg-out/ })
        .waitFor();
      await typeInto(
        inspector(page).getByRole('textbox', { name: 'Connection' }),
        '${env:PIPEWRIGHT_E2E_PG_URL}',
      );
      const tableField = inspector(page).getByRole('textbox', { name: 'Table' });
      await typeInto(tableField, table);
      const found = await testConnection(page);
      expect(found.tone).toBe('ok');
      expect(found.text).toContain('answers');
      expect(found.text).toContain(table);

      await typeInto(tableField, `${table}_missing`);
      const missing = await testConnection(page);
      expect(missing.tone).toBe('failed');
      expect(missing.text).toContain(`${table}_missing`);
      expect(missing.text).not.toContain('\n');
    } finally {
      delete process.env.PIPEWRIGHT_E2E_PG_URL;
      await client.query(`DROP TABLE IF EXISTS ${table}`);
      await client.end();
    }
    expectNoPageErrors(session);
  });

  test('a PostgreSQL sink asks for its key columns, required, when it upserts; not when it appends', async () => {
    const { page } = session;
    const pane = (await page.locator('.react-flow__pane').boundingBox())!;
    await dropFromPalette(page, 'sink.postgres', {
      x: pane.x + pane.width * 0.4,
      y: pane.y + pane.height * 0.75,
    });
    await canvas(page)
      .getByRole('group', { name: /^Operator pg-out\d*, / })
      .last()
      .click();
    await inspector(page)
      .getByRole('heading', { name: /^Operator pg-out/ })
      .waitFor();
    const keyColumns = inspector(page).locator('.field', {
      has: page.getByText('Key columns', { exact: true }),
    });
    expect(await keyColumns.locator('.field-head').innerText()).toMatch(/^Key columns\s*required/);

    const mode = inspector(page).getByRole('combobox', { name: 'Mode' });
    await mode.selectOption('append');
    await eventually(async () => expect(await keyColumns.count()).toBe(0));
    await mode.selectOption('upsert');
    await eventually(async () =>
      expect(await keyColumns.locator('.field-head').innerText()).toMatch(/^Key columns\s*required/),
    );
    expectNoPageErrors(session);
  });
});
