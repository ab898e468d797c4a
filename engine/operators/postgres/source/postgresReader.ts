// source.postgres's reader: on a fresh start the slot and publication are made and the table's
// rows read as of the slot's start (op "insert", before null); then the slot's changes of the
// table, in commit order, as { op, before, after }. Where it stands is the end of the last
// transaction it emitted whole plus the last change it emitted of the next, so a restore (or a
// reconnect after the server came back) starts streaming at that transaction and skips the
// changes of it already emitted. The slot is told a position only once a checkpoint holding it
// is complete: the server keeps the log from there, so a restore can always go back to it.
// The snapshot's rows are emitted by snapshotRecords.ts, the stream's messages decoded and queued
// by changeQueue.ts: here are where the reader stands, its connections and its checkpoints.
import type pg from 'pg';
import { JobError } from '../../../graph/jobError.js';
import type { ParamsOf } from '../../../graph/schema.js';
import type { SubtaskEnvironment } from '../../../runtime/operatorLogic.js';
import type { RecordSource } from '../../../runtime/recordSource.js';
import type { SourceReader } from '../../../runtime/source.js';
import { describeCause, ServerRetry } from '../../connectors/serverRetry.js';
import { isTransientPgError, postgresServer, sqlState } from '../pgErrors.js';
import { PgClient } from '../pgPackages.js';
import { ChangeQueue } from './changeQueue.js';
import { formatLsn, parseLsn } from './lsn.js';
import { SESSION_OPTIONS } from './pgValues.js';
import type { PostgresSplit } from './postgresSplit.js';
import { ReplicationStream } from './replicationStream.js';
import { createSlot, SnapshotCursor } from './snapshotCursor.js';
import { SnapshotRecords } from './snapshotRecords.js';
import {
  checkPublication,
  checkWalLevel,
  currentLsn,
  dropLeftoverSlot,
  ensurePublication,
  preparedTransactions,
  qualifiedName,
  resolveTable,
  setupProblem,
} from './tableSetup.js';

/** How long a poll with nothing to emit waits for the server before it returns 0. */
const IDLE_WAIT_MS = 100;
/** How long a bounded read waits short of its stop position before it writes to the log. */
const NUDGE_MS = 1000;

type Phase = 'snapshot' | 'stream' | 'done';

/** Whether the server may yet come back (refused, reset, restarting) or the slot is still held by a dead run's connection. */
function transient(error: unknown): boolean {
  return isTransientPgError(error) || sqlState(error) === '55006';
}

export class PostgresReader implements SourceReader<PostgresSplit> {
  private readonly operatorId: string;
  private readonly server: string;
  private readonly retry: ServerRetry;
  private phase: Phase = 'done';
  private split: PostgresSplit | undefined;
  /** The table's rows, while a fresh start emits them. */
  private snapshot: SnapshotRecords | undefined;
  private stream: ReplicationStream | undefined;
  /** What the stream decoded, made anew at each (re)connection. */
  private changes: ChangeQueue | undefined;
  /** Changes of the first transaction after a (re)start already emitted: skipped by LSN. */
  private skipThrough: bigint | undefined;
  private stopLsn: bigint | undefined;
  private failure: Error | undefined;
  private wake: (() => void) | undefined;
  /** The position each checkpoint holds, acknowledged once that checkpoint completes. */
  private readonly checkpointed = new Map<number, bigint>();
  private acknowledged = 0n;
  private lastPing = 0;
  /** When the idle bounded read last wrote to the log (nudgeLog). */
  private nudged: number | undefined;
  private readonly changeSource: RecordSource;

  constructor(
    private readonly env: SubtaskEnvironment,
    private readonly params: ParamsOf<'source.postgres'>,
  ) {
    this.operatorId = env.operator.id;
    this.server = postgresServer(params.connection);
    this.retry = new ServerRetry({
      operatorId: this.operatorId,
      server: this.server,
      timeoutMs: params.retryTimeoutMs,
      reportWait: env.reportWait,
      isTransient: transient,
    });
    this.changeSource = {
      kind: 'at',
      operatorId: this.operatorId,
      label: `table "${params.table}" change at LSN`,
    };
  }

  /** A server error no retry mends, as one line naming the operator. */
  private problem(error: unknown): JobError {
    if (error instanceof JobError) return error;
    const slot = this.split?.slot ?? '';
    const line =
      setupProblem(error, this.operatorId, slot) ??
      `operator "${this.operatorId}": ${this.server}: ${describeCause(error)}`;
    return new JobError(line, this.operatorId);
  }

  async open(splits: readonly PostgresSplit[]): Promise<void> {
    const split = splits[0];
    if (split === undefined) return;
    try {
      if (split.fresh) {
        await this.retry.run('making its replication slot', () => this.freshStart(split));
      } else {
        // The names the checkpoint recorded, whatever the default is now; the publication must
        // still publish the table (a checkpoint of the versions whose jobs shared default names
        // may name another job's).
        await this.retry.run('checking its publication', () =>
          this.withClient((client) =>
            checkPublication(
              client,
              split.publication,
              { schema: split.schema!, name: split.name! },
              this.operatorId,
            ),
          ),
        );
        this.split = split;
        this.phase = 'stream';
        this.acknowledged = parseLsn(split.lsn!);
        this.skipThrough = split.changeLsn === undefined ? undefined : parseLsn(split.changeLsn);
        if (this.params.stopAt === 'current' && split.stopLsn === undefined) {
          this.split = {
            ...split,
            stopLsn: await this.retry.run('reading the log position', () => this.withClient(currentLsn)),
          };
        }
      }
    } catch (error) {
      throw this.problem(error);
    }
    this.stopLsn = this.split?.stopLsn === undefined ? undefined : parseLsn(this.split.stopLsn);
  }

  private async withClient<T>(use: (client: pg.Client) => Promise<T>): Promise<T> {
    const client = new PgClient({ connectionString: this.params.connection, options: SESSION_OPTIONS });
    client.on('error', () => {});
    try {
      await client.connect();
      return await use(client);
    } finally {
      await client.end().catch(() => {});
    }
  }

  /** Publication if absent, a leftover slot of a crashed fresh start dropped, the slot made (and the snapshot opened). */
  private async freshStart(fresh: PostgresSplit): Promise<void> {
    const table = await this.withClient(async (client) => {
      await checkWalLevel(client, this.operatorId);
      const resolved = await resolveTable(client, this.params.table, this.operatorId);
      await ensurePublication(client, fresh.publication, resolved, this.operatorId);
      await dropLeftoverSlot(client, fresh.slot);
      const prepared = await preparedTransactions(client);
      if (prepared > 0) {
        this.env.reportWait?.(
          `waiting for ${prepared} prepared transaction(s) on ${this.server} to be committed or rolled back: a replication slot starts only after every transaction in progress`,
        );
      }
      return resolved;
    });
    let consistentPoint: string;
    if (this.params.snapshot === false) {
      consistentPoint = await createSlot(this.params.connection, fresh.slot);
    } else {
      const cursor = await SnapshotCursor.open(this.params.connection, fresh.slot, qualifiedName(table));
      this.snapshot = new SnapshotRecords(cursor, this.env, this.params.table, this.server);
      consistentPoint = cursor.consistentPoint;
    }
    const stopLsn = this.params.stopAt === 'current' ? await this.withClient(currentLsn) : undefined;
    this.split = {
      slot: fresh.slot,
      publication: fresh.publication,
      schema: table.schema,
      name: table.name,
      lsn: consistentPoint,
      ...(stopLsn === undefined ? {} : { stopLsn }),
    };
    this.env.reportWait?.(undefined);
    this.acknowledged = parseLsn(consistentPoint);
    this.phase = this.snapshot === undefined ? 'stream' : 'snapshot';
  }

  readyForSnapshot(): boolean {
    return this.phase !== 'snapshot';
  }

  poll(limit: number): number | Promise<number> {
    if (this.failure !== undefined) throw this.failure;
    if (this.phase === 'snapshot') return this.pollSnapshot(limit);
    if (this.phase === 'stream') return this.pollStream(limit);
    return -1;
  }

  // ------------------------------------------------------------------------------- the snapshot

  private pollSnapshot(limit: number): number | Promise<number> {
    const snapshot = this.snapshot!;
    const polled = snapshot.poll(limit);
    if (polled !== undefined) return polled;
    this.snapshot = undefined;
    this.phase = 'stream';
    return snapshot.cursor.close().then(() => 0);
  }

  // ------------------------------------------------------------------------------ the stream

  private pollStream(limit: number): number | Promise<number> {
    if (this.stream === undefined) return this.connect().then(() => 0);
    const changes = this.changes!;
    const emitter = this.env.emitter;
    let emitted = 0;
    while (emitted < limit) {
      const item = changes.take();
      if (item === undefined) break;
      if (item.type === 'end') {
        this.finish();
        return emitted > 0 ? emitted : -1;
      }
      if (item.type === 'commit') {
        this.split = { ...this.split!, lsn: formatLsn(item.end), changeLsn: undefined };
        this.skipThrough = undefined;
        continue;
      }
      if (this.skipThrough !== undefined && item.lsn <= this.skipThrough) continue;
      this.split = { ...this.split!, changeLsn: formatLsn(item.lsn) };
      emitter.lineage.source = this.changeSource;
      emitter.lineage.position = Number(item.lsn);
      emitter.emit(item.record);
      emitted++;
      if (emitter.blocked) break;
    }
    changes.settle();
    if (emitted > 0) return emitted;
    if (this.stopLsn !== undefined && Date.now() - this.lastPing >= IDLE_WAIT_MS) {
      // Ask where the server's decoding stands: a keepalive past the stop position ends the read.
      this.lastPing = Date.now();
      this.stream.acknowledge(this.acknowledged, true);
      this.nudgeLog();
    }
    return new Promise<number>((resolve) => {
      const timer = setTimeout(() => resolve(0), IDLE_WAIT_MS);
      this.wake = () => {
        clearTimeout(timer);
        resolve(0);
      };
    });
  }

  /**
   * A bounded read on a server that writes nothing more: the end of the log it stops at may lie
   * just past a page header that no record has been decoded beyond, so keepalives would stay
   * short of it. After a second of waiting, one tiny non-transactional logical message (ignored
   * by pgoutput) moves the log past it; a user not allowed to write one waits for other writes.
   */
  private nudgeLog(): void {
    if (this.nudged !== undefined && Date.now() - this.nudged < NUDGE_MS) return;
    if (this.nudged === undefined) {
      this.nudged = Date.now();
      return;
    }
    this.nudged = Date.now();
    void this.withClient((client) =>
      client.query("SELECT pg_logical_emit_message(false, 'pipewright', '')"),
    ).catch(() => {});
  }

  private finish(): void {
    this.phase = 'done';
    const stream = this.stream;
    this.stream = undefined;
    void stream?.close();
  }

  /** (Re)starts streaming at the last transaction not emitted whole; what of it was emitted is skipped. */
  private async connect(): Promise<void> {
    const split = this.split!;
    const changes = new ChangeQueue({ schema: split.schema!, name: split.name! }, this.stopLsn, {
      pause: () => this.stream?.pause(),
      resume: () => this.stream?.resume(),
      queued: () => {
        const wake = this.wake;
        this.wake = undefined;
        wake?.();
      },
    });
    this.changes = changes;
    this.skipThrough = split.changeLsn === undefined ? undefined : parseLsn(split.changeLsn);
    try {
      await this.retry.run('streaming changes', async () => {
        const stream: ReplicationStream = new ReplicationStream(
          this.params.connection,
          split.slot,
          split.publication,
          {
            message: (lsn, message) => {
              if (this.stream === stream) changes.receive(lsn, message);
            },
            keepalive: (lsn) => {
              if (this.stream === stream) changes.keepalive(lsn);
            },
            failed: (error) => {
              if (this.stream === stream) this.streamFailed(error);
            },
          },
        );
        // Current before it starts: the server may send the first changes in the very packet
        // that says streaming has started, and they must not be taken for a stale stream's.
        this.stream = stream;
        try {
          await stream.connect();
          await stream.start(parseLsn(split.lsn!), this.acknowledged);
        } catch (error) {
          if (this.stream === stream) this.stream = undefined;
          await stream.close();
          throw error;
        }
      });
    } catch (error) {
      throw this.problem(error);
    }
  }

  private streamFailed(error: Error): void {
    this.stream = undefined;
    this.wake?.();
    // The server away: the next poll reconnects (with backoff) from the position emitted so far.
    if (!transient(error)) this.failure = this.problem(error);
  }

  snapshotSplits(checkpointId: number): readonly PostgresSplit[] {
    if (this.split === undefined || this.phase === 'done') {
      this.checkpointed.set(checkpointId, this.acknowledged);
      return [];
    }
    this.checkpointed.set(checkpointId, parseLsn(this.split.lsn!));
    return [this.split];
  }

  checkpointComplete(checkpointId: number): void {
    const lsn = this.checkpointed.get(checkpointId);
    for (const id of this.checkpointed.keys()) if (id <= checkpointId) this.checkpointed.delete(id);
    if (lsn === undefined || lsn <= this.acknowledged) return;
    this.acknowledged = lsn;
    this.stream?.acknowledge(lsn);
  }

  async close(): Promise<void> {
    this.phase = 'done';
    const cursor = this.snapshot?.cursor;
    const stream = this.stream;
    this.snapshot = undefined;
    this.stream = undefined;
    await cursor?.close();
    await stream?.close();
  }
}
