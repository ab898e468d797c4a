// The debugger on a transaction job, as a user meets it: the ledger example's job over a few
// transfers. A "Transaction row" breakpoint on accounts/a2 stops at the first step whose
// transaction touched a2: the step lists the transaction's rows with the subtask owning each
// and their balances before → after; Resume goes on to the transfer that would overdraw,
// shown as "aborted: reason" with no balance changed; the State panel shows the table's rows
// per subtask.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import type { AppSession } from './appHarness.js';
import { answerFileDialog, eventually, expectNoPageErrors, operator, sessionPerFile } from './helpers.js';
import { expectStatus, openTab, runButton } from './runSupport.js';

const EXAMPLE = join(import.meta.dirname, '..', 'assets', 'examples', 'ledger');
const JOB = JSON.parse(readFileSync(join(EXAMPLE, 'ledger.job.json'), 'utf8')) as {
  settings: Record<string, unknown>;
  operators: { id: string; params: Record<string, unknown> }[];
};
const TRANSFERS = [
  { id: 1, to: 'a1', amount: 100 },
  { id: 2, to: 'a2', amount: 20 },
  { id: 3, from: 'a1', to: 'a2', amount: 30 },
  { id: 4, from: 'a2', to: 'a1', amount: 500 },
];

let session: AppSession;
sessionPerFile((opened) => {
  session = opened;
});

const debuggerPanel = () => session.page.getByRole('tabpanel', { name: 'Debugger' });
const currentStep = () => debuggerPanel().getByRole('article', { name: 'Current step' });

function cells(table: ReturnType<typeof currentStep>) {
  return table
    .locator('tbody tr')
    .evaluateAll((rows) =>
      rows.map((row) => [...row.querySelectorAll('th, td')].map((cell) => (cell.textContent ?? '').trim())),
    );
}

describe('the debugger on a transaction job', () => {
  test('a row breakpoint stops at the transaction that touched the row, showing its rows before → after', async () => {
    const { page } = session;
    writeFileSync(
      join(session.workDir, 'transfers.jsonl'),
      `${TRANSFERS.map((t) => JSON.stringify(t)).join('\n')}\n`,
    );
    const jobFile = join(session.workDir, 'ledger.job.json');
    writeFileSync(jobFile, `${JSON.stringify(JOB, null, 2)}\n`);
    await page.getByRole('button', { name: 'Open job file…' }).click();
    await answerFileDialog(page, 'Open job', jobFile, 'Open');
    await operator(page, 'ledger').waitFor();

    const panel = await openTab(page, 'Debugger');
    await panel.getByRole('combobox', { name: 'Breakpoint type' }).selectOption('row');
    await panel.getByRole('combobox', { name: 'Breakpoint operator' }).selectOption('ledger');
    await panel.getByRole('textbox', { name: 'Row' }).fill('accounts/a2');
    await panel.getByRole('button', { name: 'Add breakpoint' }).click();
    const list = panel.getByRole('list', { name: 'Breakpoint list' });
    await list.waitFor();
    expect(await list.getByRole('listitem').allInnerTexts()).toEqual([
      'bp1\nledger: a transaction touches row accounts/a2\nRemove',
    ]);

    await runButton(page, 'Debug').click();
    await expectStatus(page, /^Paused at step \d+ \(breakpoint bp1\)$/);
    // The deposit into a2: one row, written, from nothing to 20.
    const transaction = currentStep().getByRole('region', { name: 'Transaction' });
    await transaction.waitFor();
    expect(await transaction.locator('p').innerText()).toMatch(
      /^committed, emitted 1 record \(order .+\) record /,
    );
    const deposit = await cells(transaction.getByRole('table'));
    expect(deposit).toEqual([
      ['accounts/a2', expect.stringMatching(/^ledger#[0-3]$/), 'read, written', '(none) → 20'],
    ]);

    // The transfer a1 → a2: both rows, each with the subtask that owns it.
    await runButton(page, 'Resume').click();
    await expectStatus(page, /^Paused at step \d+ \(breakpoint bp1\)$/);
    await eventually(async () =>
      expect(await cells(transaction.getByRole('table'))).toEqual([
        ['accounts/a1', expect.stringMatching(/^ledger#[0-3]$/), 'read, written', '100 → 70'],
        ['accounts/a2', deposit[0]![1], 'read, written', '20 → 50'],
      ]),
    );
    await transaction.scrollIntoViewIfNeeded();
    await session.screenshot('debugger-transaction');

    // The transfer that would overdraw a2: aborted with the reason, no balance changed.
    await runButton(page, 'Resume').click();
    await expectStatus(page, /^Paused at step \d+ \(breakpoint bp1\)$/);
    await eventually(async () =>
      expect(await transaction.locator('p').innerText()).toMatch(/^aborted: a2 has 50, cannot send 500 /),
    );
    expect(await cells(transaction.getByRole('table'))).toEqual([
      ['accounts/a2', deposit[0]![1], 'read', '50'],
      ['accounts/a1', expect.stringMatching(/^ledger#[0-3]$/), 'read', '70'],
    ]);

    // The State panel: the table's rows per subtask, two in all.
    const state = await openTab(page, 'State');
    const tables = state.getByRole('table', { name: 'Table sizes of ledger' });
    await eventually(async () => {
      const rows = await cells(tables);
      expect(rows.filter((r) => r[1] !== 'all').map((r) => r[0])).toEqual(Array(4).fill('accounts'));
      expect(rows.find((r) => r[1] === 'all')?.slice(0, 3)).toEqual(['accounts', 'all', '2']);
    });
    expectNoPageErrors(session);
  });
});
