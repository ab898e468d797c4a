import { describe, expect, it } from 'vitest';
import { WaitLines } from './waitNotices.js';

const wait = (subtask: number, message?: string) => ({
  operatorId: 'orders',
  subtask,
  parallelism: 2,
  ...(message === undefined ? {} : { message }),
});

describe('the CLI lines of a wait', () => {
  it('say a wait when it begins, again at most every repeatMs while it changes, and "resumed" when it ends', () => {
    const lines = new WaitLines(1000);
    expect(lines.next(wait(0), 0), 'no wait to end').toBeUndefined();
    expect(lines.next(wait(0, 'retry 1'), 0)).toBe('operator "orders" (subtask 1 of 2): retry 1');
    expect(lines.next(wait(1, 'retry 1'), 500)).toBe('operator "orders" (subtask 2 of 2): retry 1');
    expect(lines.next(wait(0, 'retry 2'), 700), 'changed, too soon').toBeUndefined();
    expect(lines.next(wait(0, 'retry 2'), 1000), 'its time came').toBe(
      'operator "orders" (subtask 1 of 2): retry 2',
    );
    expect(lines.next(wait(0, 'retry 2'), 2500), 'unchanged').toBeUndefined();
    expect(lines.next(wait(0), 2600)).toBe('operator "orders" (subtask 1 of 2): resumed');
    expect(lines.next(wait(0, 'retry 1'), 2700), 'a new wait').toBe(
      'operator "orders" (subtask 1 of 2): retry 1',
    );
  });
});
