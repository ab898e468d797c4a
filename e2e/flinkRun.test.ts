// Run ▸ Run on Flink… as a user meets it (issue 28, item 4): a keyed job opened from its file,
// sent to the Flink session cluster `npm run services` starts, through a dialog that remembers
// the address. While it runs the status says where, Pause is off (Flink has none), and the
// Metrics tab shows the keyed operator's two subtasks with where their time went as Flink
// measures it; it finishes with the local engine's output, and the Checkpoints tab lists Flink's
// checkpoints with each subtask's bytes.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { expect, test } from 'vitest';
import { describeWithServer, FLINK_URL } from '../test/connectors/servers.js';
import { FLINK_TIMEOUT } from '../test/flinkHarness.js';
import type { AppSession } from './appHarness.js';
import {
  answerFileDialog,
  eventually,
  expectNoPageErrors,
  menu,
  operator,
  sessionPerFile,
} from './helpers.js';
import { enabledRunButtons, expectStatus, openTab } from './runSupport.js';

let session: AppSession;
sessionPerFile((opened) => {
  session = opened;
});

const RECORDS = 300_000;
const CODE =
  'async function process(r, ctx) {\n  const s = ctx.state.value("n");\n  const n = ((await s.get()) ?? 0) + 1;\n  await s.set(n);\n  ctx.emit({ k: r.k, n });\n}\n';

function openCounting(page: Page): Promise<void> {
  const dir = session.workDir;
  const lines = Array.from({ length: RECORDS }, (_, i) => JSON.stringify({ k: `k${i % 97}`, i }));
  writeFileSync(join(dir, 'in.jsonl'), `${lines.join('\n')}\n`);
  const job = {
    format: 'pipewright.job/1',
    name: 'counting',
    settings: { checkpointIntervalMs: 500, maxParallelism: 128 },
    operators: [
      { id: 'in', kind: 'source.jsonl', parallelism: 1, params: { path: 'in.jsonl' } },
      { id: 'count', kind: 'process', parallelism: 2, params: { code: CODE } },
      { id: 'out', kind: 'sink.jsonl', parallelism: 1, params: { path: 'out.jsonl' } },
    ],
    edges: [
      { id: 'e1', from: 'in', to: 'count', partition: 'hash', key: 'k' },
      { id: 'e2', from: 'count', to: 'out', partition: 'rebalance' },
    ],
  };
  const path = join(dir, 'counting.job.json');
  writeFileSync(path, `${JSON.stringify(job, null, 2)}\n`);
  return (async () => {
    await page.getByRole('button', { name: 'Open job file…' }).click();
    await answerFileDialog(page, 'Open job', path, 'Open');
    await operator(page, 'count').waitFor();
  })();
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
});
