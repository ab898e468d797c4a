import { describe, expect, it } from 'vitest';
import { WaitChanges, type WaitSample, waitLines, waitSummary } from './waitNotices.js';

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
    const changes = new WaitChanges(1000);
    expect(changes.next(sample([undefined, undefined], 2), 0)).toEqual([]);
    expect(changes.next(sample(['retry 1', undefined], 2), 0)).toEqual([
      'operator "orders" (subtask 1 of 2): retry 1',
    ]);
    expect(changes.next(sample(['retry 2', 'retry 1'], 2), 500)).toEqual([
      'operator "orders" (subtask 2 of 2): retry 1',
    ]);
    expect(changes.next(sample(['retry 2', 'retry 1'], 2), 700), 'changed, too soon').toEqual([]);
    expect(changes.next(sample(['retry 3', 'retry 2'], 2), 1000)).toEqual([
      'operator "orders" (subtask 1 of 2): retry 3',
    ]);
    expect(changes.next(sample([undefined, 'retry 2'], 2), 1100)).toEqual([
      'operator "orders" (subtask 1 of 2): resumed',
    ]);
    expect(changes.next(sample(['retry 1', 'retry 2'], 2), 1200), 'a new wait').toEqual([
      'operator "orders" (subtask 1 of 2): retry 1',
    ]);
  });
});
