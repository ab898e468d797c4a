import { describe, expect, it } from 'vitest';
import { WaitLines, type WaitSample, waitLines, waitSummary } from './waitNotices.js';

function sample(waits: readonly (string | undefined)[], parallelism?: number): WaitSample {
  return {
    operators: [
      { id: 'gen', parallelism: 1, subtasks: [{ subtask: 0 }] },
      {
        id: 'orders',
        ...(parallelism === undefined ? {} : { parallelism }),
        subtasks: waits.map((wait, subtask) => ({ subtask, ...(wait === undefined ? {} : { wait }) })),
      },
    ],
  };
}

describe('wait notices', () => {
  it('name the operator and the subtask, one based', () => {
    expect(waitLines(sample([undefined, 'waiting for Kafka: retry 1 in 100 ms'], 2))).toEqual([
      'operator "orders" (subtask 2 of 2): waiting for Kafka: retry 1 in 100 ms',
    ]);
    // The designer's metrics list every subtask and give no parallelism.
    expect(waitSummary(sample(['a', 'b']))).toBe(
      'operator "orders" (subtask 1 of 2): a (and 1 more waiting)',
    );
    expect(waitSummary(sample([undefined, undefined]))).toBeUndefined();
  });

  it('say a wait when it begins, again at most every repeatMs while it changes, and "resumed" when it ends', () => {
    const lines = new WaitLines(1000);
    const wait = (subtask: number, message?: string) => ({
      operatorId: 'orders',
      subtask,
      parallelism: 2,
      ...(message === undefined ? {} : { message }),
    });
    expect(lines.next(wait(0), 0), 'no wait to end').toBeUndefined();
    expect(lines.next(wait(0, 'retry 1'), 0)).toBe('operator "orders" (subtask 1 of 2): retry 1');
    expect(lines.next(wait(1, 'retry 1'), 500)).toBe('operator "orders" (subtask 2 of 2): retry 1');
    expect(lines.next(wait(0, 'retry 2'), 700), 'changed, too soon').toBeUndefined();
    expect(lines.next(wait(0, 'retry 2'), 1000), 'its time came').toBe(
      'operator "orders" (subtask 1 of 2): retry 2',
    );
    expect(lines.next(wait(0, 'retry 2'), 2500), 'unchanged').toBeUndefined();
    expect(lines.next(wait(0), 1100)).toBe('operator "orders" (subtask 1 of 2): resumed');
    expect(lines.next(wait(0, 'retry 1'), 1200), 'a new wait').toBe(
      'operator "orders" (subtask 1 of 2): retry 1',
    );
  });
});
