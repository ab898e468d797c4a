// One connection to PostgreSQL as a sink uses it: opened on first use, every call through
// ServerRetry (an outage is waited out, with the run's status saying so), and dropped when it
// breaks so that the next attempt connects afresh. What a call does on a new connection after a
// break is the caller's business: an upsert batch is simply sent again (it is idempotent), an
// append transaction is redone from the rows its writer holds.
import type pg from 'pg';
import { JobError } from '../../../graph/jobError.js';
import type { MaybePromise } from '../../../state/maybePromise.js';
import { describeCause, ServerRetry } from '../../connectors/serverRetry.js';
import { isTransientPgError, postgresServer } from '../pgErrors.js';
import { PgClient } from '../pgPackages.js';

export interface SessionTarget {
  readonly operatorId: string;
  readonly connection: string;
  readonly retryTimeoutMs: number | undefined;
  readonly reportWait?: ((message: string | undefined) => void) | undefined;
}

export class PgSession {
  readonly server: string;
  private readonly retry: ServerRetry;
  private client: pg.Client | undefined;
  private closed = false;
  private connecting: MaybePromise<pg.Client>;

  constructor(private readonly target: SessionTarget) {
    this.server = postgresServer(target.connection);
    this.retry = new ServerRetry({
      operatorId: target.operatorId,
      server: this.server,
      timeoutMs: target.retryTimeoutMs,
      reportWait: target.reportWait,
      isTransient: isTransientPgError,
    });
  }

  /**
   * `call` with a connected client until it succeeds; a transient failure drops the connection
   * and, after a backoff, calls again on a new one. `action` says what it does ("writing 1000 rows").
   */
  run<T>(action: string, call: (client: pg.Client) => Promise<T>): Promise<T> {
    return this.retry.run(action, async () => {
      const client = await this.connected();
      try {
        return await call(client);
      } catch (error) {
        if (isTransientPgError(error)) this.drop();
        throw error;
      }
    });
  }

  /** A non-transient failure as the one line a user sees: the operator, the server, the cause. */
  failure(error: unknown, action: string): JobError {
    if (error instanceof JobError) return error;
    return new JobError(
      `operator "${this.target.operatorId}": ${action} in ${this.server} failed: ${describeCause(error)}`,
      this.target.operatorId,
    );
  }

  private connected(): Promise<pg.Client> {
    if (this.closed) return Promise.reject(new Error('the sink has closed its connection'));
    if (this.client !== undefined) return Promise.resolve(this.client);
    this.connecting ??= (async () => {
      const client = new PgClient({
        connectionString: this.target.connection,
        connectionTimeoutMillis: 10_000,
        // Whose connection it is, in pg_stat_activity.
        application_name: `pipewright ${this.target.operatorId}`.slice(0, 63),
      });
      // A connection that breaks between calls must not crash the process: the next call finds out.
      client.on('error', () => {
        if (this.client === client) this.client = undefined;
      });
      try {
        await client.connect();
      } catch (error) {
        await client.end().catch(() => {});
        throw error;
      }
      this.client = client;
      return client;
    })().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  /** Forgets the connection (the server rolls back a transaction it held open). */
  drop(): void {
    const client = this.client;
    this.client = undefined;
    client?.end().catch(() => {});
  }

  /** For good: a retry still waiting fails instead of connecting again. */
  async close(): Promise<void> {
    this.closed = true;
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => {});
  }
}
