import { describe, expect, it } from 'vitest';
import type { WaitSample } from '../metrics/waitNotices.js';
import { WaitStatus } from './waitStatus.js';

const sample = (...waits: (string | undefined)[]): WaitSample => ({
  operators: [
    {
      id: 'orders',
      subtasks: waits.map((wait, subtask) => ({ subtask, ...(wait === undefined ? {} : { wait }) })),
    },
  ],
});

describe('the run status while a connector waits', () => {
  it('shows the wait, each change of it, and the plain status once it ends', () => {
    const shown: (string | undefined)[] = [];
    const status = new WaitStatus((message) => shown.push(message));
    status.look(sample(undefined, undefined));
    status.look(sample(undefined, 'waiting for Kafka at k:9092 (refused): retry 1 in 100 ms'));
    status.look(sample(undefined, 'waiting for Kafka at k:9092 (refused): retry 1 in 100 ms'));
    status.look(sample('a', 'b'));
    status.look(sample(undefined, undefined));
    status.look(sample(undefined, undefined));
    expect(shown).toEqual([
      'operator "orders" (subtask 2 of 2): waiting for Kafka at k:9092 (refused): retry 1 in 100 ms',
      'operator "orders" (subtask 1 of 2): a (and 1 more waiting)',
      undefined,
    ]);
  });

  it('shows a wait again after the run sent a status of its own', () => {
    const shown: (string | undefined)[] = [];
    const status = new WaitStatus((message) => shown.push(message));
    status.look(sample('w'));
    status.replaced();
    status.look(sample('w'));
    expect(shown).toEqual(['operator "orders" (subtask 1 of 1): w', 'operator "orders" (subtask 1 of 1): w']);
  });
});
