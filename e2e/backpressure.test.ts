// Backpressure in the designer (issue 33, item 1), as a user meets it: the job of the issue, a
// generator asked for 5,000 records a second, a map that burns a few ms per record and a JSONL
// sink, Run with the default settings. The map is the bottleneck and it shows at a glance: it is
// tinted busy, the edge into it held back, the edge after it not, the tooltips give the numbers,
// and the Metrics tab lists busy, backpressured and idle per subtask. The same job without the
// slow work holds no edge back, and the generator keeps its rate.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { describe, expect, test } from 'vitest';
import { sqrtIterationsFor } from '../test/machineSpeed.js';
import type { AppSession } from './appHarness.js';
import {
  answerFileDialog,
  edge,
  eventually,
  expectNoPageErrors,
  openWithShortcut,
  operator,
  sessionPerFile,
  toolbar,
} from './helpers.js';
import { expectStatus, openTab, runButton } from './runSupport.js';

const RATE = 5000;
/**
 * The quick job's rate: well within what a trivial map takes on a loaded machine, so what the
 * test sees held back is the canvas's mistake, not a machine with no time to spare.
 */
const QUICK_RATE = 1000;
/** About 1 ms a record on this machine unloaded (a loaded one only makes it slower): 1,000 a second at most. */
const SLOW = `function map(r) {
  let x = 0;
  for (let j = 0; j < ${sqrtIterationsFor(1)}; j++) x += Math.sqrt(j + r.i);
  return { i: r.i, big: x > 1000 };
}`;
const QUICK = 'function map(r) {\n  return { i: r.i, big: r.i > 1000 };\n}';

/** gen → slow → out, default settings (checkpoints included), every operator at parallelism 1. */
function pressureJob(name: string, code: string, rate = RATE) {
  return {
    format: 'pipewright.job/1',
    name,
    operators: [
      {
        id: 'gen',
        kind: 'source.generator',
        parallelism: 1,
        params: { code: 'function generate(i) {\n  return { i };\n}', ratePerSec: rate },
      },
      { id: 'slow', kind: 'map', parallelism: 1, params: { code } },
      { id: 'out', kind: 'sink.jsonl', parallelism: 1, params: { path: 'out.jsonl' } },
    ],
    edges: [
      { id: 'into-slow', from: 'gen', to: 'slow', partition: 'forward' },
      { id: 'after-slow', from: 'slow', to: 'out', partition: 'forward' },
    ],
  };
}

let session: AppSession;
sessionPerFile((opened) => {
  session = opened;
});

/** What the canvas shows of an operator's load: its tint's level (0..10) and its tooltip. */
async function operatorLoad(page: Page, id: string): Promise<{ level: number | undefined; tip: string }> {
  const card = operator(page, id).locator('.op-card');
  const level = await card.getAttribute('data-busy-level');
  return { level: level === null ? undefined : Number(level), tip: (await card.getAttribute('title')) ?? '' };
}

/** What the canvas shows of an edge: how held back its producer is (0..10) and its label's tooltip. */
async function edgeLoad(page: Page, id: string): Promise<{ level: number | undefined; tip: string }> {
  const [level, tip] = await edge(page, id)
    .locator('g.edge-label')
    .evaluate(
      (g: {
        getAttribute(name: string): string | null;
        querySelector(s: string): { textContent: string | null } | null;
      }) => [g.getAttribute('data-held-level'), g.querySelector('title')?.textContent ?? ''],
    );
  return { level: level === null ? undefined : Number(level), tip: tip ?? '' };
}

/** A share in a tooltip ("busy 97%") as a number. */
function share(tip: string, what: 'busy' | 'backpressured' | 'idle'): number {
  const m = new RegExp(`${what} (\\d+)%`).exec(tip);
  if (m === null) throw new Error(`no "${what}" in "${tip}"`);
  return Number(m[1]);
}

/** The Metrics tab's row of a subtask: busy, backpressured and idle, as shown. */
async function loadRow(panel: Locator, id: string): Promise<string[]> {
  const table = panel.getByRole('table', { name: 'Busy, backpressured and idle per subtask' });
  return table.locator(`tr[data-operator="${id}"] td.load-number`).allInnerTexts();
}

/**
 * Opens the job from the start page's button, or (a job open already) with Ctrl+O, runs it, and
 * looks at it with `body`; then stops it, whether `body` saw what it expected or not, so that a
 * failure leaves no run going for the next test (one run at a time).
 */
async function whileRunning(page: Page, file: string, job: object, body: () => Promise<void>): Promise<void> {
  writeFileSync(file, `${JSON.stringify(job, null, 2)}\n`);
  const start = page.getByRole('button', { name: 'Open job file…' });
  // The start page or the editor, once the page has rendered one of them.
  await start.or(toolbar(page)).first().waitFor();
  if ((await start.count()) > 0) {
    await start.click();
    await answerFileDialog(page, 'Open job', file, 'Open');
  } else {
    await openWithShortcut(page, file);
  }
  await operator(page, 'slow').waitFor();
  await runButton(page, 'Run').click();
  await expectStatus(page, /^Running/, 20_000);
  try {
    await body();
  } finally {
    const stop = runButton(page, 'Stop');
    if (await stop.isEnabled()) await stop.click();
    await expectStatus(page, /^Stopped/, 20_000);
  }
}

describe('backpressure on the canvas and in the Metrics tab', () => {
  test('a slow map: it is tinted busy, the edge into it held back, the edge after it not', async () => {
    const { page } = session;
    await whileRunning(
      page,
      join(session.workDir, 'pressure.job.json'),
      pressureJob('pressure', SLOW),
      async () => {
        const panel = await openTab(page, 'Metrics');
        // The first second of a run begins with its start: the tints settle within a few.
        await eventually(async () => {
          const slow = await operatorLoad(page, 'slow');
          expect(slow.level).toBeGreaterThanOrEqual(8);
          expect(share(slow.tip, 'busy')).toBeGreaterThanOrEqual(80);
          const into = await edgeLoad(page, 'into-slow');
          expect(into.level).toBeGreaterThanOrEqual(6);
          expect(into.tip).toMatch(/^backpressured \d+%: “gen” held back \d+% of the last second$/);
          expect(share(into.tip, 'backpressured')).toBeGreaterThanOrEqual(60);
          const after = await edgeLoad(page, 'after-slow');
          expect(after.level).toBeLessThanOrEqual(2);
          expect(share(after.tip, 'backpressured')).toBeLessThanOrEqual(20);
          // The generator is held back, not busy: it is tinted idle's end of the scale.
          const gen = await operatorLoad(page, 'gen');
          expect(share(gen.tip, 'backpressured')).toBeGreaterThanOrEqual(60);
          expect(gen.level).toBeLessThanOrEqual(2);
        }, 30_000);
        // The Metrics tab says the same per subtask, the three adding up to the whole second.
        const [busy, held, idle] = (await loadRow(panel, 'slow')).map((t) => Number(t.replace('%', '')));
        expect(busy).toBeGreaterThanOrEqual(80);
        expect(busy! + held! + idle!).toBe(100);
        expect(await loadRow(panel, 'gen')).toHaveLength(3);
        expect(await loadRow(panel, 'out')).toHaveLength(3);
        await session.screenshot('backpressure-slow-map');
      },
    );
    // An ended run holds nothing back: the tints go.
    await eventually(async () => {
      expect((await edgeLoad(page, 'into-slow')).level).toBeUndefined();
      expect((await operatorLoad(page, 'slow')).level).toBeUndefined();
    });
    expectNoPageErrors(session);
  });

  test('without the slow work: no edge held back, and the generator at its rate', async () => {
    const { page } = session;
    await whileRunning(
      page,
      join(session.workDir, 'quick.job.json'),
      pressureJob('quick', QUICK, QUICK_RATE),
      async () => {
        const panel = await openTab(page, 'Metrics');
        const genCaption = panel
          .locator('figure figcaption')
          .filter({ has: page.getByText('gen', { exact: true }) });
        await eventually(async () => {
          for (const id of ['into-slow', 'after-slow']) {
            const held = await edgeLoad(page, id);
            expect(held.level, id).toBeLessThanOrEqual(2);
            expect(share(held.tip, 'backpressured'), id).toBeLessThanOrEqual(20);
          }
          // "gen in 0/s, out 1,000/s": a loaded machine may fire the pacer's timers late.
          const out = /out ([\d,.]+)\/s/.exec(await genCaption.innerText());
          expect(out).not.toBeNull();
          const rate = Number(out![1]!.replace(/,/g, ''));
          expect(rate).toBeGreaterThanOrEqual(0.8 * QUICK_RATE);
          expect(rate).toBeLessThanOrEqual(1.1 * QUICK_RATE);
        }, 30_000);
        await session.screenshot('backpressure-quick-map');
      },
    );
    expectNoPageErrors(session);
  });
});
