// A transaction as the debugger shows it, from the leader's report: a copy of the record and
// rows (changing the report's values afterwards changes nothing shown), rows absent before or
// after shown without a value, an aborted one's reason; its rows as state accesses for traces
// (an aborted one wrote nothing); and row breakpoints: `accounts/a7` hits a step whose
// transaction touched that row (a number key as its text), a table no transaction operator has
// is a problem, not a breakpoint.
import { describe, expect, it } from 'vitest';
import { fn, generator, makeJob, sink } from '../../test/debugJobs.js';
import { planJob } from '../graph/plan.js';
import type { StepView } from '../protocol/runProtocol.js';
import type { TransactionReport } from '../runtime/transactionReport.js';
import { Breakpoints } from './breakpoints.js';
import { touchesRow, transactionAccesses, transactionView } from './transactionView.js';

function transfer(overrides: Partial<TransactionReport> = {}): TransactionReport {
  return {
    operator: 'tx',
    subtask: 1,
    order: '0/000003',
    record: { from: 'a7', to: 'b2', amount: 5 },
    rows: [
      {
        table: 'accounts',
        key: 'a7',
        subtask: 1,
        before: { balance: 10 },
        after: { balance: 5 },
        read: true,
        written: true,
      },
      {
        table: 'accounts',
        key: 'b2',
        subtask: 0,
        before: undefined,
        after: { balance: 5 },
        read: true,
        written: true,
      },
      { table: 'audit', key: 7, subtask: 2, before: undefined, after: 1, read: false, written: true },
    ],
    aborted: undefined,
    emitted: 1,
    ...overrides,
  };
}

function step(transactions: StepView['transactions'], operator = 'tx'): StepView {
  return { seq: 4, operator, subtask: 1, kind: 'record', emitted: [], state: [], transactions };
}

const ledger = () =>
  planJob(
    makeJob(
      'ledger',
      [
        generator('gen', 'function generate(i) { return { from: "a" + i, to: "b" + i, amount: 1 }; }', 3),
        {
          id: 'tx',
          kind: 'transaction',
          parallelism: 3,
          params: {
            tables: ['accounts', 'audit'],
            code: 'function keys(r) { return [["accounts", r.from]]; }\nfunction transact(r, tx) { }',
          },
        },
        fn('tag', 'map', 'function map(r) { return r; }', 1),
        sink('out', 'out.jsonl'),
      ],
      [
        { id: 'e1', from: 'gen', to: 'tx', partition: 'rebalance' },
        { id: 'e2', from: 'tx', to: 'tag', partition: 'rebalance' },
        { id: 'e3', from: 'tag', to: 'out', partition: 'rebalance' },
      ],
    ),
  );

describe('a transaction step', () => {
  it('shows a copy of the report: rows with before and after, none where the row was absent', () => {
    const report = transfer();
    const view = transactionView(report);
    (report.record as { amount: number }).amount = 99;
    (report.rows[0]!.after as { balance: number }).balance = 99;
    expect(view).toEqual({
      order: '0/000003',
      record: { from: 'a7', to: 'b2', amount: 5 },
      rows: [
        {
          table: 'accounts',
          key: 'a7',
          subtask: 1,
          before: { balance: 10 },
          after: { balance: 5 },
          read: true,
          written: true,
        },
        { table: 'accounts', key: 'b2', subtask: 0, after: { balance: 5 }, read: true, written: true },
        { table: 'audit', key: 7, subtask: 2, after: 1, read: false, written: true },
      ],
      emitted: 1,
    });
    expect('before' in view.rows[1]!).toBe(false);
    expect(transactionView(transfer({ aborted: 'overdrawn' })).aborted).toBe('overdrawn');
  });

  it('reads the rows it read and writes those it wrote, as value state of the table; aborted, it wrote nothing', () => {
    expect(transactionAccesses(transfer())).toEqual([
      { state: 'accounts', type: 'value', op: 'read', key: 'a7' },
      { state: 'accounts', type: 'value', op: 'read', key: 'b2' },
      { state: 'accounts', type: 'value', op: 'write', key: 'a7' },
      { state: 'accounts', type: 'value', op: 'write', key: 'b2' },
      { state: 'audit', type: 'value', op: 'write', key: 7 },
    ]);
    expect(transactionAccesses(transfer({ aborted: 'overdrawn' })).map((a) => a.op)).toEqual([
      'read',
      'read',
    ]);
  });

  it('touches a row named as table and key, a number key by its text', () => {
    const view = transactionView(transfer());
    expect(touchesRow(view, 'accounts', 'a7')).toBe(true);
    expect(touchesRow(view, 'audit', '7')).toBe(true);
    expect(touchesRow(view, 'accounts', '7')).toBe(false);
    expect(touchesRow(view, 'audit', 'a7')).toBe(false);
  });
});

describe('row breakpoints', () => {
  it('hit a step whose transaction touched the row, on any operator or the one named', () => {
    const breakpoints = new Breakpoints();
    const problems = breakpoints.set(
      [
        { id: 'b1', type: 'row', operator: 'tx', table: 'accounts', key: 'b2' },
        { id: 'b2', type: 'row', table: 'audit', key: '7' },
      ],
      ledger(),
    );
    expect(problems).toEqual([]);
    const view = transactionView(transfer());
    expect(breakpoints.hit(step([view]))).toBe('b1');
    expect(breakpoints.hit(step([{ ...view, rows: view.rows.slice(2) }]))).toBe('b2');
    expect(breakpoints.hit(step([{ ...view, rows: view.rows.slice(0, 1) }]))).toBeUndefined();
    expect(breakpoints.hit(step(undefined))).toBeUndefined();
    // An aborted transaction touched its rows too: it read them.
    expect(breakpoints.hit(step([{ ...view, aborted: 'overdrawn' }]))).toBe('b1');
  });

  it('naming a table no transaction operator has, or an operator that is none, are problems', () => {
    const problems = new Breakpoints().set(
      [
        { id: 'b1', type: 'row', table: 'acounts', key: 'a7' },
        { id: 'b2', type: 'row', operator: 'tag', table: 'accounts', key: 'a7' },
        { id: 'b3', type: 'row', operator: 'tx', table: 'accounts', key: 'a7' },
      ],
      ledger(),
    );
    expect(problems).toEqual([
      {
        id: 'b1',
        message:
          'breakpoint "b1": no transaction operator of the job has a table "acounts" (tables: accounts, audit)',
      },
      {
        id: 'b2',
        message: 'breakpoint "b2": operator "tag" is no transaction operator: only transactions have rows',
      },
    ]);
  });
});
