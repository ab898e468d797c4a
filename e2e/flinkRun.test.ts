// Run ▸ Run on Flink… as a user meets it (issue 28, item 4): a keyed job opened from its file,
// sent to the Flink session cluster `npm run services` starts, through a dialog that remembers
// the address. While it runs the status says where, Pause is off (Flink has none), and the
// Metrics tab shows the keyed operator's two subtasks with where their time went as Flink
// measures it; it finishes with the local engine's output, and the Checkpoints tab lists Flink's
// checkpoints with each subtask's bytes. Stop takes a savepoint, which the next Run on Flink…
// offers to go on from.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { expect, test } from 'vitest';
import { describeWithServer, FLINK_URL } from '../test/connectors/servers.js';
import { writeCountingJob } from '../test/flinkCountingJob.js';
import { FLINK_TIMEOUT } from '../test/flinkHarness.js';
import type { AppSession } from './appHarness.js';
import {
  answerFileDialog,
  eventually,
  expectNoPageErrors,
  menu,
  operator,
  sessionPerFile,
  toolbar,
} from './helpers.js';
import { enabledRunButtons, expectStatus, openTab, runButton } from './runSupport.js';

let session: AppSession;
sessionPerFile((opened) => {
  session = opened;
});

/** Enough for Flink's per-second task metrics to be read while it runs, on an idle machine too. */
const RECORDS = 600_000;
/** Enough for Stop to come while the job runs, on an idle machine too. */
const STOPPED_RECORDS = 2_000_000;

/** Writes the counting job into the session's folder and opens it (from the start page, or the toolbar). */
async function openCounting(page: Page, records = RECORDS): Promise<void> {
  const { path } = writeCountingJob(session.workDir, records);
  const start = page.getByRole('button', { name: 'Open job file…' });
  // Whichever the page shows once it has rendered: the start page's button or the toolbar's.
  await start
    .or(toolbar(page).getByRole('button', { name: 'Open', exact: true }))
    .first()
    .click();
  await answerFileDialog(page, 'Open job', path, 'Open');
  await operator(page, 'count').waitFor();
}

await describeWithServer('flink', 'Run on Flink… in the designer', () => {
  test(
    'sends the job to the cluster, shows its subtasks and checkpoints, and writes the output',
    async () => {
      const { page } = session;
      await openCounting(page);
      await menu(page, 'Run', 'Run on Flink…');
      const dialog = page.getByRole('dialog', { name: 'Run on Flink' });
      const address = dialog.getByRole('textbox', { name: 'Cluster (REST address)' });
      expect(await address.inputValue()).toBe('http://127.0.0.1:8081');
      // A wrong address is said beside the field, and nothing starts.
      await address.fill('localhost:8081');
      await dialog.getByRole('button', { name: 'Run on Flink' }).click();
      expect(await dialog.getByRole('alert').innerText()).toBe(
        'The cluster’s REST address, such as http://127.0.0.1:8081',
      );
      await address.fill(FLINK_URL);
      await dialog.getByRole('button', { name: 'Run on Flink' }).click();
      await expectStatus(
        page,
        /^Running on Flink — job [0-9a-f]{32} at \S+ \(Flink 2\.\d+\.\d+\)$/,
        FLINK_TIMEOUT,
      );
      expect(await enabledRunButtons(page)).not.toContain('Pause');
      expect(await enabledRunButtons(page)).toContain('Stop');

      const metrics = await openTab(page, 'Metrics');
      const load = metrics.getByRole('table', { name: 'Busy, backpressured and idle per subtask' });
      await eventually(async () => {
        // Two rows of the keyed operator, each busy, backpressured and idle of a whole second.
        const cells = await load.locator('tr[data-operator="count"] td.load-number').allInnerTexts();
        expect(cells).toHaveLength(6);
        const shares = cells.map((t) => Number(t.replace('%', '')));
        expect(Math.abs(shares[0]! + shares[1]! + shares[2]! - 100)).toBeLessThanOrEqual(2);
      }, 60_000);
      await session.screenshot('flink-run-metrics');

      await expectStatus(page, `Finished — done on Flink at ${FLINK_URL}`, FLINK_TIMEOUT);
      const written = readFileSync(join(session.workDir, 'out.jsonl'), 'utf8').trim().split('\n');
      expect(written).toHaveLength(RECORDS);

      const checkpoints = await openTab(page, 'Checkpoints');
      const history = checkpoints.getByRole('table', { name: 'Checkpoint history' });
      await history.waitFor();
      expect(await history.locator('tbody tr').count()).toBeGreaterThan(0);
      expect(await checkpoints.innerText()).toContain(`Kept by the Flink cluster at ${FLINK_URL}`);
      await session.screenshot('flink-run-checkpoints');
      const state = await openTab(page, 'State');
      expect(await state.innerText()).toMatch(
        /^A run on Flink keeps its state in the cluster’s TaskManagers/,
      );

      // The address given is the one offered next time.
      await menu(page, 'Run', 'Run on Flink…');
      expect(await address.inputValue()).toBe(FLINK_URL);
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      expectNoPageErrors(session);
    },
    FLINK_TIMEOUT,
  );

  test(
    'stops with a savepoint, and a second Run on Flink… goes on from it to the whole output',
    async () => {
      const { page } = session;
      await openCounting(page, STOPPED_RECORDS);
      await menu(page, 'Run', 'Run on Flink…');
      const dialog = page.getByRole('dialog', { name: 'Run on Flink' });
      // Nothing to go on from yet.
      expect(await dialog.getByRole('button', { name: 'Go on from the last stop’s savepoint' }).count()).toBe(
        0,
      );
      await dialog.getByRole('button', { name: 'Run on Flink' }).click();
      await expectStatus(page, /^Running on Flink — job [0-9a-f]{32} at /, FLINK_TIMEOUT);
      await runButton(page, 'Stop').click();
      await expectStatus(page, /^Stopped — stopped with a savepoint at \S+$/, 120_000);

      await menu(page, 'Run', 'Run on Flink…');
      const from = dialog.getByRole('textbox', { name: 'From savepoint (empty: from the start)' });
      expect(await from.inputValue()).toBe('');
      await dialog.getByRole('button', { name: 'Go on from the last stop’s savepoint' }).click();
      expect(await from.inputValue()).toMatch(/savepoint-/);
      await dialog.getByRole('button', { name: 'Run on Flink' }).click();
      await expectStatus(page, `Finished — done on Flink at ${FLINK_URL}`, FLINK_TIMEOUT);
      const written = readFileSync(join(session.workDir, 'out.jsonl'), 'utf8').trim().split('\n');
      expect(written).toHaveLength(STOPPED_RECORDS);
      // Each key counted 1, 2, 3, … once each: nothing lost at the stop, nothing twice.
      const last = new Map<string, number>();
      const outOfStep = written.filter((line) => {
        const { k, n } = JSON.parse(line) as { k: string; n: number };
        const expected = (last.get(k) ?? 0) + 1;
        last.set(k, n);
        return n !== expected;
      });
      expect(outOfStep).toEqual([]);
      expectNoPageErrors(session);
    },
    FLINK_TIMEOUT,
  );
});
