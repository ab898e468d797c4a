// sink.postgres in mode "append", exactly once: each subtask writes the records between two
// barriers in one transaction of its own, and at the barrier prepares it (PREPARE TRANSACTION,
// durable but invisible) and hands its id to the checkpoint; the committer commits it once the
// checkpoint is complete. The writer keeps the rows of its open transaction until they are
// prepared: when the connection breaks before that, the server has rolled the transaction back,
// and the writer redoes it on a new connection from those rows (past HELD_ROWS_LIMIT rows it
// keeps no more, and a break then fails the job, whose restore redoes them from the checkpoint).
import type pg from 'pg';
import { JobError } from '../../../graph/jobError.js';
import type { Envelope } from '../../../runtime/envelope.js';
import type { SubtaskEnvironment } from '../../../runtime/operatorLogic.js';
import type { Committable, SinkWriter } from '../../../runtime/sink.js';
import type { MaybePromise } from '../../../state/maybePromise.js';
import { insertStatements, ROWS_PER_STATEMENT } from './insertStatements.js';
import { openSinkTable, type SinkPostgresParams } from './openSinkTable.js';
import { PgSession } from './pgSession.js';
import type { PgTable } from './pgTable.js';
import { KIND, type PreparedLedger, type PreparedPayload } from './preparedLedger.js';
import { isDataError, rejectedValue } from './rejectedValue.js';
import { type SinkRow, toRow } from './sinkRow.js';
import { WriteQueue } from './writeQueue.js';

/** Rows of an open transaction kept to redo it; beyond, a broken connection fails the job. */
export const HELD_ROWS_LIMIT = 500_000;

/** The rows between two barriers: one transaction. */
interface Epoch {
  rows: SinkRow[];
  /** How many of `rows` the open transaction holds. */
  sent: number;
  /** The connection the transaction began on (undefined: none began). */
  client: pg.Client | undefined;
  /** Whether `rows` holds every row of the transaction (false once past HELD_ROWS_LIMIT). */
  whole: boolean;
  /** PREPARE TRANSACTION was sent (its answer may have been lost with the connection). */
  preparing: boolean;
  /** How many of `rows` are queued for sending. */
  queued: number;
}

const newEpoch = (): Epoch => ({
  rows: [],
  sent: 0,
  client: undefined,
  whole: true,
  preparing: false,
  queued: 0,
});

export class PostgresAppendWriter implements SinkWriter {
  readonly waitsOnWorld = true;
  private readonly session: PgSession;
  private readonly queue = new WriteQueue();
  private readonly operatorId: string;
  private readonly subtask: number;
  private table: PgTable | undefined;
  private epoch = newEpoch();

  constructor(
    env: SubtaskEnvironment,
    private readonly params: SinkPostgresParams,
    private readonly ledger: PreparedLedger,
    private readonly sweep: () => Promise<void>,
  ) {
    this.operatorId = env.operator.id;
    this.subtask = env.subtask;
    this.session = new PgSession({
      operatorId: this.operatorId,
      connection: params.connection,
      retryTimeoutMs: params.retryTimeoutMs,
      reportWait: env.reportWait,
    });
  }

  async open(): Promise<void> {
    try {
      this.table = await openSinkTable(this.session, this.params, this.operatorId);
      // What an earlier run left prepared goes before this one prepares anything.
      await this.ledger.sweepOnce(this.sweep);
    } catch (error) {
      // Its connection goes with the failure (the committer's goes as the run ends: close()).
      await this.session.close();
      throw error;
    }
  }

  write(envelope: Envelope): void | Promise<void> {
    this.queue.check();
    const epoch = this.epoch;
    epoch.rows.push(toRow(envelope.value, this.table!, this.params.table, this.operatorId));
    if (epoch.rows.length - epoch.queued >= ROWS_PER_STATEMENT) {
      epoch.queued = epoch.rows.length;
      return this.queue.push(() => this.send(epoch));
    }
  }

  private action(what: string): string {
    return `${what} (table "${this.params.table}", subtask ${this.subtask})`;
  }

  /** Sends the epoch's rows not yet in its transaction, beginning (or redoing) it on `client`. */
  private async sendOn(client: pg.Client, epoch: Epoch): Promise<void> {
    if (epoch.client !== client) {
      if (epoch.client !== undefined && !epoch.whole) {
        throw new JobError(
          `operator "${this.operatorId}": the connection to ${this.session.server} broke in a transaction of more than ${HELD_ROWS_LIMIT} rows, more than subtask ${this.subtask} keeps to redo it; restore the job from its latest checkpoint (a shorter checkpointIntervalMs keeps transactions smaller)`,
          this.operatorId,
        );
      }
      epoch.sent = 0;
      await client.query('BEGIN');
      epoch.client = client;
    }
    const table = this.table!;
    while (epoch.sent < epoch.rows.length) {
      const rows = epoch.rows.slice(epoch.sent, epoch.sent + ROWS_PER_STATEMENT);
      for (const statement of insertStatements(table, rows, undefined)) {
        try {
          await client.query(statement.text, statement.parameters);
        } catch (error) {
          if (!isDataError(error)) throw error;
          throw await rejectedValue(client, error, table, this.params.table, statement, this.operatorId);
        }
      }
      epoch.sent += rows.length;
    }
    if (epoch.sent > HELD_ROWS_LIMIT) {
      epoch.whole = false;
      epoch.queued -= epoch.sent;
      epoch.rows = [];
      epoch.sent = 0;
    }
  }

  private async send(epoch: Epoch): Promise<void> {
    const action = this.action(`writing ${epoch.rows.length - epoch.sent} rows`);
    try {
      await this.session.run(action, (client) => this.sendOn(client, epoch));
    } catch (error) {
      throw this.session.failure(error, action);
    }
  }

  private async prepare(epoch: Epoch, gid: string, checkpointId: number | undefined): Promise<void> {
    const action = this.action('preparing its transaction');
    try {
      await this.session.run(action, async (client) => {
        if (epoch.preparing && epoch.client !== client) {
          // The answer to PREPARE was lost with the connection: prepared, or rolled back?
          const { rowCount } = await client.query('SELECT 1 FROM pg_prepared_xacts WHERE gid = $1', [gid]);
          if (rowCount !== null && rowCount > 0) return;
        }
        epoch.preparing = false;
        await this.sendOn(client, epoch);
        epoch.preparing = true;
        await client.query(`PREPARE TRANSACTION '${gid}'`);
      });
    } catch (error) {
      throw this.session.failure(error, action);
    }
    this.ledger.prepared(gid, checkpointId);
  }

  prepareCommit(checkpointId: number | undefined): MaybePromise<Committable | undefined> {
    const epoch = this.epoch;
    this.epoch = newEpoch();
    // The end of a bounded job (undefined): nothing more to write, the connection goes.
    const last = checkpointId === undefined;
    if (epoch.rows.length === 0 && epoch.client === undefined) {
      return this.queue.run(async () => {
        if (last) await this.session.close();
        return undefined;
      });
    }
    const gid = this.ledger.gid(this.subtask, checkpointId);
    return this.queue.run(async () => {
      await this.prepare(epoch, gid, checkpointId);
      if (last) await this.session.close();
      const payload: PreparedPayload = { gids: [gid] };
      return { state: { kind: KIND, payload }, bytes: 0 };
    });
  }

  async endInput(): Promise<void> {
    // Sent, not prepared: a checkpoint taken after the end prepares it, or else the job's end.
    const epoch = this.epoch;
    if (epoch.rows.length > epoch.sent) {
      epoch.queued = epoch.rows.length;
      this.queue.push(() => this.send(epoch)).catch(() => {});
    }
    await this.queue.drain();
  }

  /**
   * The open transaction goes with the connection (the server rolls it back). Prepared ones stay:
   * a checkpoint whose metadata is written may commit them at a restore, which decides.
   */
  async abort(): Promise<void> {
    this.epoch = newEpoch();
    await this.session.close();
    await this.queue.settled();
  }
}
