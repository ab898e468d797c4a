// Calling a server that may be away for a while (a broker restarting, a database failing over):
// retry with exponential backoff, the run's status saying what the operator waits for, and once
// the server has not answered for the operator's retryTimeoutMs, fail the job with one line naming
// the operator, the server and the last cause. Only what the connector calls transient is retried:
// bad credentials or a missing topic fail at once, since waiting cannot mend them.
import { JobError } from '../../graph/jobError.js';
import { DEFAULT_RETRY_TIMEOUT_MS } from '../../graph/kinds/connectorParams.js';

const FIRST_BACKOFF_MS = 100;
const MAX_BACKOFF_MS = 5_000;

export interface RetryTarget {
  readonly operatorId: string;
  /** The server in words, e.g. "Kafka at localhost:9092". */
  readonly server: string;
  /** The operator's retryTimeoutMs (undefined: the default). */
  readonly timeoutMs: number | undefined;
  readonly reportWait?: ((message: string | undefined) => void) | undefined;
  /** Whether an error is the server being away (refused, reset, timed out), worth waiting out. */
  readonly isTransient: (error: unknown) => boolean;
}

/** An error's message, first line only: a user sees the cause, never a stack. */
export function describeCause(error: unknown): string {
  const text = error instanceof Error ? error.message || error.name : String(error);
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : undefined;
  const first = text.split('\n', 1)[0]!.trim();
  return cause !== undefined && !first.includes(cause) ? `${first} (${cause.split('\n', 1)[0]})` : first;
}

function seconds(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 100) / 10} s`;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class ServerRetry {
  private readonly timeoutMs: number;

  constructor(private readonly target: RetryTarget) {
    this.timeoutMs = target.timeoutMs ?? DEFAULT_RETRY_TIMEOUT_MS;
  }

  /** `call` until it succeeds, a non-transient error, or the timeout; `action` says what it does. */
  async run<T>(action: string, call: () => Promise<T>): Promise<T> {
    const started = Date.now();
    let backoff = FIRST_BACKOFF_MS;
    let attempt = 0;
    for (;;) {
      try {
        const result = await call();
        if (attempt > 0) this.target.reportWait?.(undefined);
        return result;
      } catch (error) {
        if (!this.target.isTransient(error)) throw error;
        attempt++;
        const waited = Date.now() - started;
        if (waited >= this.timeoutMs) {
          this.target.reportWait?.(undefined);
          throw new JobError(
            `operator "${this.target.operatorId}": ${this.target.server} did not answer for ${seconds(waited)} while ${action} (retryTimeoutMs ${this.timeoutMs}): ${describeCause(error)}`,
            this.target.operatorId,
          );
        }
        const delay = Math.min(backoff, this.timeoutMs - waited);
        backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
        this.target.reportWait?.(
          `waiting for ${this.target.server} (${describeCause(error)}) while ${action}: retry ${attempt} in ${seconds(delay)}`,
        );
        await sleep(delay);
      }
    }
  }
}
