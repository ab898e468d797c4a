import { describe, expect, it } from 'vitest';
import type { TransactionView } from '../../engine/protocol/protocol.js';
import { rowName, transactionOutcome, transactionRows } from './transactionFormat';

const transfer: TransactionView = {
  order: '0:3@3',
  record: { from: 'a7', to: 'b2', amount: 5 },
  rows: [
    { table: 'accounts', key: 'a7', subtask: 1, before: 10, after: 5, read: true, written: true },
    { table: 'accounts', key: 'b2', subtask: 0, after: 5, read: true, written: true },
    { table: 'audit', key: 7, subtask: 2, before: 'x', read: false, written: true },
    { table: 'accounts', key: 'c1', subtask: 2, before: 3, after: 3, read: true, written: false },
  ],
  emitted: 1,
};

describe('a transaction step as text', () => {
  it('lists each row with its owning subtask, access and before → after', () => {
    expect(transactionRows('tx', transfer)).toEqual([
      { row: 'accounts/a7', owner: 'tx#1', access: 'read, written', change: '10 → 5' },
      { row: 'accounts/b2', owner: 'tx#0', access: 'read, written', change: '(none) → 5' },
      { row: 'audit/7', owner: 'tx#2', access: 'written', change: '"x" → (deleted)' },
      { row: 'accounts/c1', owner: 'tx#2', access: 'read', change: '3' },
    ]);
    expect(transactionOutcome(transfer)).toBe('committed, emitted 1 record');
    expect(rowName({ table: 'accounts', key: 7 })).toBe('accounts/7');
  });

  it('an aborted transaction: its reason, and rows that kept their values', () => {
    const aborted = { ...transfer, aborted: 'a7 has 10, cannot send 50', emitted: 1 };
    expect(transactionOutcome(aborted)).toBe('aborted: a7 has 10, cannot send 50');
    expect(transactionRows('tx', aborted).map((r) => r.change)).toEqual(['10', '(none)', '"x"', '3']);
  });
});
