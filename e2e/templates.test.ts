// Every template the start screen offers (each folder of assets/examples with a job file) opens
// on the canvas as the file describes it: its operators, edges, positions, name and description,
// with no problems, as a new unsaved job that is never saved over the example.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { KINDS, type OperatorKind, validateJob } from '../engine/graph/index.js';
import type { AppSession } from './appHarness.js';
import {
  canvasSnapshot,
  eventually,
  expectNoPageErrors,
  expectNoProblems,
  fileDialog,
  inspector,
  isMarkedUnsaved,
  MOD,
  sessionPerFile,
} from './helpers.js';

const EXAMPLES = join(import.meta.dirname, '..', 'assets', 'examples');

interface TemplateFile {
  readonly folder: string;
  readonly path: string;
  readonly text: string;
  readonly job: {
    name: string;
    description: string;
    operators: { id: string; kind: OperatorKind; parallelism?: number }[];
    edges: {
      id: string;
      from: string;
      to: string;
      partition: string;
      key?: string | string[];
      feedback?: boolean;
    }[];
    editor: { positions: Record<string, { x: number; y: number }> };
  };
}

const TEMPLATES: TemplateFile[] = readdirSync(EXAMPLES, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort()
  .flatMap((folder) => {
    const file = readdirSync(join(EXAMPLES, folder))
      .filter((name) => name.endsWith('.job.json'))
      .sort()[0];
    if (file === undefined) return [];
    const path = join(EXAMPLES, folder, file);
    const text = readFileSync(path, 'utf8');
    return [{ folder, path, text, job: JSON.parse(text) }];
  });

/** How the canvas names an edge (see renderer/canvas/edgeLabel.ts), from the file's own fields. */
function edgeName(e: TemplateFile['job']['edges'][number]): string {
  const partition =
    e.partition === 'hash' ? `hash(${Array.isArray(e.key) ? e.key.join(', ') : e.key})` : e.partition;
  return `Edge ${e.id} from ${e.from} to ${e.to}, ${partition}${e.feedback === true ? ', feedback' : ''}`;
}

let session: AppSession;
let opened = false;

sessionPerFile((opened) => {
  session = opened;
});

/** Back to the start screen: the page reloaded, confirming the browser's leave prompt if it asks. */
async function backToStart(): Promise<string | undefined> {
  const { page } = session;
  let asked: string | undefined;
  const onDialog = (dialog: import('playwright-core').Dialog) => {
    asked = dialog.type();
    void dialog.accept();
  };
  page.on('dialog', onDialog);
  try {
    await page.reload();
  } finally {
    page.off('dialog', onDialog);
  }
  await page.getByRole('heading', { name: 'Templates' }).waitFor();
  return asked;
}

describe('templates', () => {
  test('there are templates to test, each valid for the engine', () => {
    expect(TEMPLATES.length).toBeGreaterThan(0);
    for (const t of TEMPLATES) expect(validateJob(t.job).problems).toEqual([]);
  });

  test('the start screen offers every template, by name and description', async () => {
    const { page } = session;
    const offered = page
      .getByRole('list', { name: 'Templates' })
      .getByRole('button', { name: /^Open template / });
    await offered.first().waitFor();
    expect(await offered.evaluateAll((els) => els.map((e) => e.getAttribute('aria-label')))).toEqual(
      TEMPLATES.map((t) => `Open template ${t.job.name}`),
    );
    for (const t of TEMPLATES) {
      const button = page.getByRole('button', { name: `Open template ${t.job.name}` });
      expect(await button.textContent()).toBe(`${t.job.name}${t.job.description}`);
    }
    expectNoPageErrors(session);
  });

  for (const template of TEMPLATES) {
    test(`${template.folder} opens as drawn in its file, without problems, as a new unsaved job`, async () => {
      const { page } = session;
      // From the second template on, back to the start screen: leaving an unsaved job asks first.
      if (opened) expect(await backToStart()).toBe('beforeunload');
      await page.getByRole('button', { name: `Open template ${template.job.name}` }).click();
      await page.getByRole('region', { name: 'Canvas' }).waitFor();
      const { job } = template;
      const expected = {
        operators: job.operators.map(
          (op) => `Operator ${op.id}, ${KINDS[op.kind].title}, parallelism ${op.parallelism ?? 1}`,
        ),
        edges: job.edges.map(edgeName),
        positions: job.editor.positions,
      };
      await eventually(async () => expect(await canvasSnapshot(page)).toEqual(expected));
      await expectNoProblems(page);
      // A template is a new job: unsaved, named after the template, and its job form shows it.
      expect(await page.title()).toBe(`● ${job.name} (unsaved) — Pipewright`);
      expect(await isMarkedUnsaved(page)).toBe(true);
      const panel = inspector(page);
      await panel.getByRole('heading', { name: 'Job' }).waitFor();
      expect(
        await panel.getByText(`${job.operators.length} operators, ${job.edges.length} edges`).count(),
      ).toBe(1);
      expect(await panel.getByRole('textbox', { name: 'Name' }).inputValue()).toBe(job.name);
      expect(await panel.getByRole('textbox', { name: 'Description' }).inputValue()).toBe(job.description);
      await session.screenshot(`template-${template.folder}`);

      // Saving asks for a new place: the suggested path is not the example's own.
      await page.keyboard.press(`${MOD}+S`);
      const dialog = fileDialog(page, 'Save job as');
      await dialog.waitFor();
      const suggested = await dialog.getByLabel('File path').inputValue();
      expect(suggested).toMatch(new RegExp(`[\\\\/]${job.name}\\.job\\.json$`));
      expect(suggested).not.toBe(template.path);
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await dialog.waitFor({ state: 'detached' });
      expect(readFileSync(template.path, 'utf8')).toBe(template.text);

      opened = true;
      expectNoPageErrors(session);
    });
  }
});
