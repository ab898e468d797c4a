// Every template the start screen offers (each folder of assets/examples with a job file) opens
// on the canvas as the file describes it: its operators, edges, positions, name and description,
// with no problems, as a new unsaved job that is never saved over the example.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, test } from 'vitest';
import { KINDS, type OperatorKind, validateJob } from '../engine/graph/index.js';
import type { AppSession } from './appHarness.js';
import {
  canvasSnapshot,
  edge,
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
      fromPort?: string;
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

/**
 * How the canvas names an edge (see renderer/canvas/edgeLabel.ts), from the file's own fields:
 * into a transaction the engine broadcasts whatever the file says, and the canvas says so.
 */
function edgeName(job: TemplateFile['job'], e: TemplateFile['job']['edges'][number]): string {
  const intoTransaction = job.operators.find((op) => op.id === e.to)?.kind === 'transaction' && !e.feedback;
  const partition = intoTransaction
    ? 'broadcast'
    : e.partition === 'hash'
      ? `hash(${Array.isArray(e.key) ? e.key.join(', ') : e.key})`
      : e.partition;
  return `Edge ${e.id} from ${e.from} to ${e.to}, ${partition}${e.feedback === true ? ', feedback' : ''}`;
}

/**
 * From now on, notes each edge's path as it is first put in the page (a mutation observer runs
 * right after React commits, before React Flow measures anything). The canvas tells React Flow
 * where cards and handles are before drawing them (renderer/canvas/cardGeometry.ts); React Flow
 * then measures the real ones, and any difference would make edges jump once the job is shown.
 */
async function noteFirstEdgePaths(page: Page): Promise<void> {
  await page.evaluate(`(() => {
    window.__edgeObserver?.disconnect();
    const first = (window.__firstEdgePaths = {});
    window.__edgeObserver = new MutationObserver(() => {
      for (const path of document.querySelectorAll('.react-flow__edge .react-flow__edge-path')) {
        const id = path.closest('.react-flow__edge').dataset.id;
        first[id] ??= path.getAttribute('d');
      }
    });
    window.__edgeObserver.observe(document.body, { childList: true, subtree: true });
  })()`);
}

/** A path's coordinates to a tenth of a pixel: measured ones carry float noise (77.99999). */
function pathPoints(d: string): number[] {
  return (d.match(/-?\d+(\.\d+)?/g) ?? []).map((n) => Math.round(Number(n) * 10) / 10);
}

/** Each edge's path as first drawn and as drawn now, by edge id. */
async function edgePaths(page: Page, job: TemplateFile['job']) {
  const noted = (await page.evaluate('window.__firstEdgePaths')) as Record<string, string>;
  const first: Record<string, number[]> = {};
  const now: Record<string, number[]> = {};
  for (const e of job.edges) {
    first[e.id] = pathPoints(noted[e.id] ?? '');
    now[e.id] = pathPoints(
      (await edge(page, e.id).locator('.react-flow__edge-path').getAttribute('d')) ?? '',
    );
  }
  return { first, now };
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
      const button = page.getByRole('button', { name: `Open template ${t.job.name}`, exact: true });
      expect(await button.textContent()).toBe(`${t.job.name}${t.job.description}`);
    }
    expectNoPageErrors(session);
  });

  for (const template of TEMPLATES) {
    test(`${template.folder} opens as drawn in its file, without problems, as a new unsaved job`, async () => {
      const { page } = session;
      // From the second template on, back to the start screen: leaving an unsaved job asks first.
      if (opened) expect(await backToStart()).toBe('beforeunload');
      await noteFirstEdgePaths(page);
      await page.getByRole('button', { name: `Open template ${template.job.name}`, exact: true }).click();
      await page.getByRole('region', { name: 'Canvas' }).waitFor();
      const { job } = template;
      const expected = {
        operators: job.operators.map(
          (op) => `Operator ${op.id}, ${KINDS[op.kind].title}, parallelism ${op.parallelism ?? 1}`,
        ),
        edges: job.edges.map((e) => edgeName(job, e)),
        positions: job.editor.positions,
      };
      await eventually(async () => expect(await canvasSnapshot(page)).toEqual(expected));
      await expectNoProblems(page);
      // Edges are drawn where they stay: the cards' known geometry is the measured one.
      const paths = await edgePaths(page, job);
      expect(paths.first).toEqual(paths.now);
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

  test('zoomed far out, the last template’s cards are blocks without text, its edges unmoved and unlabelled', async () => {
    const { page } = session;
    const job = TEMPLATES.at(-1)!.job;
    const before = await edgePaths(page, job);
    expect(await page.locator('.op-far').count()).toBe(0);
    expect(await page.locator('.edge-label').count()).toBe(job.edges.length);
    const zoomOut = page.getByRole('button', { name: 'Zoom Out' });
    await eventually(async () => {
      await zoomOut.click();
      expect(await page.locator('.op-far').count()).toBe(job.operators.length);
    });
    expect(await page.locator('.op-card .op-id').count()).toBe(0);
    expect(await page.locator('.edge-label').count()).toBe(0);
    // Blocks keep their cards' size and handles, so the edges are drawn exactly where they were.
    expect((await edgePaths(page, job)).now).toEqual(before.now);
    // Still named for assistive technology, and back to cards once fitted again.
    expect((await canvasSnapshot(page)).operators).toHaveLength(job.operators.length);
    await page.keyboard.press('f');
    await eventually(async () =>
      expect(await page.locator('.op-card .op-id').count()).toBe(job.operators.length),
    );
    expectNoPageErrors(session);
  });
});
