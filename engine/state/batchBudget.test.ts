import { describe, expect, it } from 'vitest';
import { BatchBudget } from './batchBudget.js';

describe('BatchBudget', () => {
  it('holds small entries rewritten again and again: only distinct ones count', () => {
    const budget = new BatchBudget();
    // 100,000 keys written ten times each: a keyed job's read-modify-writes.
    for (let round = 0; round < 10; round++)
      for (let k = 0; k < 100_000; k++) budget.note(round === 0, 10, '{"n":1,"sum":500}');
    expect(budget.full(100_000)).toBe(false);
    expect(budget.full(131_072)).toBe(true);
  });

  it('cuts once the distinct entries hold about 16 MB', () => {
    const budget = new BatchBudget();
    const value = 'x'.repeat(200);
    let entries = 0;
    while (!budget.full(entries) && entries < 200_000) {
      budget.note(true, 40, value);
      entries++;
    }
    // 64 + 40 + 200 bytes an entry.
    expect(entries).toBe(Math.ceil((16 * 1024 * 1024) / 304));
  });

  it('cuts after 1 MB of large values, new or rewritten, and starts again when reset', () => {
    const budget = new BatchBudget();
    const large = 'x'.repeat(1000);
    for (let i = 0; i < 1048; i++) budget.note(i % 2 === 0, 20, large);
    expect(budget.full(524)).toBe(false);
    budget.note(false, 20, large);
    expect(budget.full(524)).toBe(true);
    budget.reset();
    expect(budget.full(0)).toBe(false);
    budget.note(true, 20, null);
    expect(budget.full(1)).toBe(false);
  });
});
