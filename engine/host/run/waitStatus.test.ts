import { describe, expect, it } from 'vitest';
import { WaitStatus } from './waitStatus.js';

const wait = (subtask: number, message?: string) => ({
  operatorId: 'orders',
  subtask,
  parallelism: 2,
  ...(message === undefined ? {} : { message }),
});

describe('the run status while a connector waits', () => {
  it('shows the wait, each change of it, and the plain status once every wait ended', () => {
    const shown: (string | undefined)[] = [];
    const status = new WaitStatus((message) => shown.push(message));
    status.change(wait(1, 'waiting for Kafka at k:9092 (refused): retry 1 in 100 ms'));
    status.change(wait(1, 'waiting for Kafka at k:9092 (refused): retry 1 in 100 ms'));
    status.change(wait(0, 'a'));
    status.change(wait(1));
    status.change(wait(0));
    expect(shown).toEqual([
      'operator "orders" (subtask 2 of 2): waiting for Kafka at k:9092 (refused): retry 1 in 100 ms',
      'operator "orders" (subtask 2 of 2): waiting for Kafka at k:9092 (refused): retry 1 in 100 ms (and 1 more waiting)',
      'operator "orders" (subtask 1 of 2): a',
      undefined,
    ]);
  });

  it('shows a wait again at its next change after the run sent a status of its own', () => {
    const shown: (string | undefined)[] = [];
    const status = new WaitStatus((message) => shown.push(message));
    status.change(wait(0, 'retry 1'));
    status.replaced();
    status.change(wait(0, 'retry 1'));
    expect(shown).toEqual([
      'operator "orders" (subtask 1 of 2): retry 1',
      'operator "orders" (subtask 1 of 2): retry 1',
    ]);
  });
});
