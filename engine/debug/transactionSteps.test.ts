// Transactions in a debug run (a small transfers job, real LevelDB in a temp folder): each
// transaction is reported in the step in which its leader ran it, with every row, the subtask
// owning it and its value before and after, read and written; an overdraft is aborted with its
// reason and changes no row. Row breakpoints stop there. Stepping back over transaction steps
// puts the tables (and every counter) back exactly as they were, and stepping forward again
// makes the same steps with the same reports. A record a transaction emitted traces back to
// the steps that last wrote the rows it read.
import { describe, expect, it } from 'vitest';
import { counters, debugSession, jobFolder, stepToEnd } from '../../test/debugJobs.js';
import { ledgerJob, ledgerRecords, serialLedger } from '../../test/transactionJobs.js';
import { keyGroupRange } from '../graph/keyGroups.js';
import type { StepView, TransactionView } from '../protocol/runProtocol.js';
import type { DebugSession } from './debugSession.js';

const PARALLELISM = 3;
const records = ledgerRecords({ accounts: 6, transfers: 24, seed: 15 });
const input = `${records.map((r) => JSON.stringify(r)).join('\n')}\n`;
const job = ledgerJob({ parallelism: PARALLELISM });

async function session(options: Parameters<typeof debugSession>[2] = {}): Promise<DebugSession> {
  return debugSession(job, await jobFolder({ 'input.jsonl': input }), options);
}

/** Every row of table accounts, per subtask, as the live stores hold them now. */
async function tables(debug: DebugSession): Promise<Record<string, unknown>[]> {
  const { readStatePage } = await import('../host/stateBrowser.js');
  const result: Record<string, unknown>[] = [];
  for (let subtask = 0; subtask < PARALLELISM; subtask++) {
    const store = debug.stateStore('ledger', subtask)!;
    const page = await readStatePage(
      await store.browse(),
      keyGroupRange(subtask, PARALLELISM, job.settings.maxParallelism),
      { limit: 1000 },
    );
    result.push(Object.fromEntries(page.entries.map((e) => [`${e.state}/${String(e.key)}`, e.value])));
  }
  return result;
}

const transactionsOf = (views: readonly StepView[]): TransactionView[] =>
  views.flatMap((v) => v.transactions ?? []);

describe('transactions in the debugger', () => {
  it("reports each transaction once, in its leader's step, as the serial program runs it", async () => {
    const views = await stepToEnd(await session());
    const txSteps = views.filter((v) => v.transactions !== undefined);
    for (const view of txSteps) expect(view.operator).toBe('ledger');
    const reported = transactionsOf(views);
    expect(reported.map((tx) => (tx.record as { id: number }).id).sort((a, b) => a - b)).toEqual(
      records.map((r) => r.id),
    );
    // In serial order the rows' before and after are the serial program's balances.
    const balances = new Map<string, number>();
    const byId = new Map(reported.map((tx) => [(tx.record as { id: number }).id, tx]));
    let aborted = 0;
    for (const record of records) {
      const tx = byId.get(record.id)!;
      const step = txSteps.find((v) => v.transactions!.includes(tx))!;
      expect(step.subtask, `leader of ${record.id}`).toBe(tx.rows[0]!.subtask);
      for (const row of tx.rows) {
        expect(row.table).toBe('accounts');
        expect(row.before, `${record.id} ${row.key} before`).toEqual(balances.get(String(row.key)));
        expect(row.read).toBe(true);
      }
      if (tx.aborted !== undefined) {
        aborted++;
        expect(tx.aborted).toMatch(/^a\d+ has \d+, cannot send \d+$/);
        for (const row of tx.rows) expect(row).toMatchObject({ written: false, after: row.before });
        continue;
      }
      for (const row of tx.rows) {
        expect(row.written).toBe(true);
        balances.set(String(row.key), row.after as number);
      }
    }
    expect(aborted).toBeGreaterThan(0);
    const serial = serialLedger(records);
    expect(serial.aborted.length).toBe(aborted);
    // Rows live on different subtasks: some transactions span two.
    expect(reported.some((tx) => new Set(tx.rows.map((r) => r.subtask)).size === 2)).toBe(true);
  });

  it('stops at a row breakpoint after the step whose transaction touched the row', async () => {
    const views = await stepToEnd(await session());
    const touching = views.filter((v) =>
      v.transactions?.some((tx) => tx.rows.some((row) => row.key === 'a3')),
    );
    expect(touching.length).toBeGreaterThan(2);
    const debug = await session({
      breakpoints: [{ id: 'row', type: 'row', operator: 'ledger', table: 'accounts', key: 'a3' }],
    });
    expect(debug.breakpointProblems).toEqual([]);
    for (const expected of touching.slice(0, 3)) {
      expect(await debug.continue()).toEqual({ ...expected, breakpoint: 'row' });
    }
    await debug.close();
  });

  it('steps back over transactions exactly: tables and counters as they were, the same reports again', async () => {
    const debug = await session();
    const views: StepView[] = [];
    const state: Record<string, unknown>[][] = [];
    const metrics: unknown[] = [];
    // Forward over the first 12 transactions (through a checkpoint or two).
    while (transactionsOf(views).length < 12) {
      const view = await debug.step();
      expect(view).toBeDefined();
      views.push(view!);
      state.push(await tables(debug));
      metrics.push(counters(debug.metrics()));
    }
    const txSteps = views.filter((v) => v.transactions !== undefined);
    const back = txSteps.at(-6)!.seq - 1;
    for (let at = views.length - 1; at >= back; at--) {
      expect(await debug.stepBack(), `back to step ${at}`).toEqual(views[at - 1]);
      expect(await tables(debug), `tables at step ${at}`).toEqual(state[at - 1]);
      expect(counters(debug.metrics()), `counters at step ${at}`).toEqual(metrics[at - 1]);
    }
    for (let at = back + 1; at <= views.length; at++) {
      expect(await debug.step(), `step ${at} again`).toEqual(views[at - 1]);
      expect(await tables(debug), `tables after step ${at} again`).toEqual(state[at - 1]);
    }
    expect(debug.replaysFromStart).toBe(0);
    await debug.close();
  });

  it("traces a transaction's output to the steps that last wrote the rows it read", async () => {
    const debug = await session();
    const views = await stepToEnd(debug);
    /** The step of the last transaction before step `seq` that wrote `key`. */
    const lastWriter = (key: unknown, seq: number) =>
      views
        .filter(
          (v) =>
            v.seq < seq &&
            v.transactions?.some(
              (t) => t.aborted === undefined && t.rows.some((r) => r.key === key && r.written),
            ),
        )
        .at(-1);
    // Transfers whose rows had been written before, one of them by a transaction led on another
    // subtask than the row's owner: the owner wrote the row in a step of its own, yet the trace
    // names the transaction's step.
    const transfers = views.filter((v) => {
      const tx = v.transactions?.length === 1 ? v.transactions[0]! : undefined;
      if (tx === undefined || tx.aborted !== undefined || tx.rows.length !== 2) return false;
      if (!v.emitted.some((e) => e.port === 'out')) return false;
      const writers = tx.rows.map((row) => lastWriter(row.key, v.seq));
      return (
        writers.every((w) => w !== undefined) && tx.rows.some((row, i) => writers[i]!.subtask !== row.subtask)
      );
    });
    expect(transfers.length).toBeGreaterThan(0);
    for (const view of transfers) {
      const out = view.emitted.findIndex((e) => e.port === 'out');
      const hop = debug.trace(view.seq, out).path.at(-1)!;
      expect(hop.step).toBe(view.seq);
      const writers = (hop.stateFrom ?? []).map((w) => [w.state, w.key, w.step]);
      expect(writers, `writers at step ${view.seq}`).toEqual(
        view.transactions![0]!.rows.map((row) => ['accounts', row.key, lastWriter(row.key, view.seq)!.seq]),
      );
    }
    await debug.close();
  });
});
