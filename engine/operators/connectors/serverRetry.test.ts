import { describe, expect, it } from 'vitest';
import { JobError } from '../../graph/jobError.js';
import { describeCause, ServerRetry } from './serverRetry.js';

const refused = () =>
  Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9092'), { code: 'ECONNREFUSED' });
const transient = (e: unknown) => (e as { code?: string }).code === 'ECONNREFUSED';

describe('ServerRetry', () => {
  it('retries a transient failure with backoff, saying what it waits for, then clears the status', async () => {
    const reports: (string | undefined)[] = [];
    const retry = new ServerRetry({
      operatorId: 'in',
      server: 'Kafka at localhost:9092',
      timeoutMs: 10_000,
      reportWait: (m) => reports.push(m),
      isTransient: transient,
    });
    let calls = 0;
    const value = await retry.run('reading partitions', async () => {
      if (++calls < 4) throw refused();
      return 42;
    });
    expect(value).toBe(42);
    expect(calls).toBe(4);
    expect(reports.slice(0, 3)).toEqual([
      'waiting for Kafka at localhost:9092 (connect ECONNREFUSED 127.0.0.1:9092) while reading partitions: retry 1 in 100 ms',
      'waiting for Kafka at localhost:9092 (connect ECONNREFUSED 127.0.0.1:9092) while reading partitions: retry 2 in 200 ms',
      'waiting for Kafka at localhost:9092 (connect ECONNREFUSED 127.0.0.1:9092) while reading partitions: retry 3 in 400 ms',
    ]);
    expect(reports.at(-1)).toBeUndefined();
  });

  it('fails at once on an error that is not transient', async () => {
    const retry = new ServerRetry({
      operatorId: 'in',
      server: 'S',
      timeoutMs: 10_000,
      isTransient: transient,
    });
    let calls = 0;
    await expect(
      retry.run('x', async () => {
        calls++;
        throw new Error('password authentication failed for user "x"');
      }),
    ).rejects.toThrow('password authentication failed');
    expect(calls).toBe(1);
  });

  it('fails with one line naming the operator, the server and the cause once the timeout has passed', async () => {
    const retry = new ServerRetry({
      operatorId: 'orders',
      server: 'PostgreSQL at db:5432',
      timeoutMs: 300,
      isTransient: transient,
    });
    const failure = await retry.run('writing rows', () => Promise.reject(refused())).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(JobError);
    expect((failure as JobError).operatorId).toBe('orders');
    expect((failure as Error).message).toMatch(
      /^operator "orders": PostgreSQL at db:5432 did not answer for \d+ ms while writing rows \(retryTimeoutMs 300\): connect ECONNREFUSED 127\.0\.0\.1:9092$/,
    );
  });

  it('describes a cause by its first line and its cause', () => {
    expect(describeCause(new Error('a\nb'))).toBe('a');
    expect(describeCause(new Error('outer', { cause: new Error('inner\nstack') }))).toBe('outer (inner)');
    expect(describeCause('text')).toBe('text');
  });
});
