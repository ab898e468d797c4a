// sink.postgres in mode "upsert": records go into batches of distinct keys (a later record of a
// key already in the batch merges into it, field by field, so the batch does what writing them
// one by one would: ON CONFLICT cannot touch one row twice in a statement), written as
// INSERT ... ON CONFLICT (keys) DO UPDATE. Every barrier flushes what is buffered before the
// checkpoint completes, so a completed checkpoint's rows are in the table; after a restore the
// records since it are written again, which leaves the same rows. A batch whose connection broke
// is sent again on a new one, for the same reason.
import type { Envelope } from '../../../runtime/envelope.js';
import type { SubtaskEnvironment } from '../../../runtime/operatorLogic.js';
import type { Committable, SinkWriter } from '../../../runtime/sink.js';
import type { MaybePromise } from '../../../state/maybePromise.js';
import { insertStatements, ROWS_PER_STATEMENT } from './insertStatements.js';
import { openSinkTable, type SinkPostgresParams } from './openSinkTable.js';
import { PgSession } from './pgSession.js';
import type { PgTable } from './pgTable.js';
import { isDataError, rejectedValue } from './rejectedValue.js';
import { keyOf, type PgValue, type SinkRow, toRow } from './sinkRow.js';
import { WriteQueue } from './writeQueue.js';

export class PostgresUpsertWriter implements SinkWriter {
  readonly waitsOnWorld = true;
  private readonly session: PgSession;
  private readonly queue = new WriteQueue();
  private readonly operatorId: string;
  private readonly keyColumns: readonly string[];
  private table: PgTable | undefined;
  /** The batch: its rows in order, and where each key's row is in it. */
  private rows: SinkRow[] = [];
  private readonly slots = new Map<PgValue, number>();

  constructor(
    env: SubtaskEnvironment,
    private readonly params: SinkPostgresParams,
  ) {
    this.operatorId = env.operator.id;
    this.keyColumns = params.keyColumns ?? [];
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
    } catch (error) {
      // Its connection goes with the failure: left open, it holds a session on the server and
      // keeps the run's thread alive.
      await this.session.close();
      throw error;
    }
  }

  write(envelope: Envelope): void | Promise<void> {
    this.queue.check();
    const row = toRow(envelope.value, this.table!, this.params.table, this.operatorId);
    const key = keyOf(row, this.keyColumns, this.params.table, this.operatorId);
    const slot = this.slots.get(key);
    if (slot !== undefined) Object.assign(this.rows[slot]!, row);
    else {
      this.slots.set(key, this.rows.length);
      this.rows.push(row);
    }
    if (this.rows.length >= ROWS_PER_STATEMENT) return this.flush();
  }

  private flush(): Promise<void> {
    // An array kept beside the keys: no iteration over the map to list the batch's rows.
    const rows = this.rows;
    this.rows = [];
    this.slots.clear();
    return this.queue.push(() => this.send(rows));
  }

  private async send(rows: readonly SinkRow[]): Promise<void> {
    const table = this.table!;
    const statements = insertStatements(table, rows, this.keyColumns);
    const action = `writing ${rows.length} rows to table "${this.params.table}"`;
    try {
      await this.session.run(action, async (client) => {
        for (const statement of statements) {
          try {
            await client.query(statement.text, statement.parameters);
          } catch (error) {
            if (!isDataError(error)) throw error;
            throw await rejectedValue(client, error, table, this.params.table, statement, this.operatorId);
          }
        }
      });
    } catch (error) {
      throw this.session.failure(error, action);
    }
  }

  prepareCommit(checkpointId: number | undefined): MaybePromise<Committable | undefined> {
    // The end of a bounded job: endInput wrote everything; the connection goes.
    if (checkpointId === undefined)
      return this.queue
        .drain()
        .then(() => this.session.close())
        .then(() => undefined);
    // The checkpoint completes only once the rows before its barrier are in the table.
    if (this.rows.length > 0) this.flush().catch(() => {});
    return this.queue.drain().then(() => undefined);
  }

  async endInput(): Promise<void> {
    if (this.rows.length > 0) this.flush().catch(() => {});
    await this.queue.drain();
  }

  async abort(): Promise<void> {
    this.rows = [];
    this.slots.clear();
    await this.session.close();
    await this.queue.settled();
  }
}
