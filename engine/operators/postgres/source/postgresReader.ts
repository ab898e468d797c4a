// source.postgres's reader: on a fresh start the slot and publication are made and the table's
// rows read as of the slot's start (op "insert", before null); then the slot's changes of the
// table, in commit order, as { op, before, after }. Where it stands is the end of the last
// transaction it emitted whole plus the last change it emitted of the next, so a restore (or a
// reconnect after the server came back) starts streaming at that transaction and skips the
// changes of it already emitted. The slot is told a position only once a checkpoint holding it
// is complete: the server keeps the log from there, so a restore can always go back to it.
import pg from 'pg';
import type { Pgoutput } from 'pg-logical-replication';
import { JobError } from '../../../graph/jobError.js';
import type { ParamsOf } from '../../../graph/schema.js';
import type { SubtaskEnvironment } from '../../../runtime/operatorLogic.js';
import type { RecordSource } from '../../../runtime/recordSource.js';
import type { SourceReader } from '../../../runtime/source.js';
import { describeCause, ServerRetry } from '../../connectors/serverRetry.js';
import { isTransientPgError, postgresServer, sqlState } from '../pgErrors.js';
import { changeRecord } from './changeRecord.js';
import { formatLsn, parseLsn } from './lsn.js';
import { SESSION_OPTIONS, valueParser } from './pgValues.js';
import type { PostgresSplit } from './postgresSplit.js';
import { ReplicationStream } from './replicationStream.js';
import { createSlot, SnapshotCursor } from './snapshotCursor.js';
import {
  checkWalLevel,
  currentLsn,
  dropLeftoverSlot,
  ensurePublication,
  preparedTransactions,
  qualifiedName,
  resolveTable,
  setupProblem,
} from './tableSetup.js';

/** Rows a snapshot fetch asks for: as many as the sink writes a statement (insertStatements.ts). */
const SNAPSHOT_BATCH = 5000;
/** Decoded changes queued before the socket is paused, and the length at which it resumes. */
const QUEUE_HIGH = 20_000;
const QUEUE_LOW = 2_000;
/** How long a poll with nothing to emit waits for the server before it returns 0. */
const IDLE_WAIT_MS = 100;
/** How long a bounded read waits short of its stop position before it writes to the log. */
const NUDGE_MS = 1000;

type Item =
  | { readonly type: 'change'; readonly lsn: bigint; readonly record: unknown }
  | { readonly type: 'commit'; readonly end: bigint }
  | { readonly type: 'end' };

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
  private cursor: SnapshotCursor | undefined;
  private rows: Record<string, unknown>[] = [];
  private rowIndex = 0;
  private snapshotRead = false;
  private snapshotRecords = 0;
  private stream: ReplicationStream | undefined;
  private queue: Item[] = [];
  private queueHead = 0;
  /** Changes of the first transaction after a (re)start already emitted: skipped by LSN. */
  private skipThrough: bigint | undefined;
  private inTransaction = false;
  private ended = false;
  private stopLsn: bigint | undefined;
  private failure: Error | undefined;
  private wake: (() => void) | undefined;
  /** The position each checkpoint holds, acknowledged once that checkpoint completes. */
  private readonly checkpointed = new Map<number, bigint>();
  private acknowledged = 0n;
  private lastPing = 0;
  /** When the idle bounded read last wrote to the log (nudgeLog). */
  private nudged: number | undefined;
  private readonly snapshotSource: RecordSource;
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
    this.snapshotSource = {
      kind: 'at',
      operatorId: this.operatorId,
      label: `table "${params.table}" snapshot row`,
    };
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
    const client = new pg.Client({ connectionString: this.params.connection, options: SESSION_OPTIONS });
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
      await ensurePublication(client, fresh.publication, resolved);
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
      this.cursor = await SnapshotCursor.open(this.params.connection, fresh.slot, qualifiedName(table));
      consistentPoint = this.cursor.consistentPoint;
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
    this.phase = this.cursor === undefined ? 'stream' : 'snapshot';
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
    if (this.rowIndex < this.rows.length) return this.emitRows(limit);
    if (this.snapshotRead) {
      const cursor = this.cursor!;
      this.cursor = undefined;
      this.phase = 'stream';
      return cursor.close().then(() => 0);
    }
    return this.cursor!.next(SNAPSHOT_BATCH).then(
      (rows) => {
        this.rows = rows;
        this.rowIndex = 0;
        if (rows.length < SNAPSHOT_BATCH) this.snapshotRead = true;
        return this.emitRows(limit);
      },
      (error: unknown) => {
        throw new JobError(
          `operator "${this.operatorId}": ${this.server}: reading the table's snapshot failed (${describeCause(error)}); the snapshot cannot be resumed, so the job starts over from a fresh run or its last checkpoint`,
          this.operatorId,
        );
      },
    );
  }

  private emitRows(limit: number): number {
    const emitter = this.env.emitter;
    let emitted = 0;
    while (emitted < limit && this.rowIndex < this.rows.length) {
      const row = this.rows[this.rowIndex++]!;
      emitter.lineage.source = this.snapshotSource;
      emitter.lineage.position = this.snapshotRecords++;
      emitter.emit({ op: 'insert', before: null, after: row });
      emitted++;
      if (emitter.blocked) break;
    }
    if (this.rowIndex >= this.rows.length) this.rows = [];
    return emitted;
  }

  // ------------------------------------------------------------------------------ the stream

  private pollStream(limit: number): number | Promise<number> {
    if (this.stream === undefined) return this.connect().then(() => 0);
    const emitter = this.env.emitter;
    let emitted = 0;
    while (emitted < limit && this.queueHead < this.queue.length) {
      const item = this.queue[this.queueHead++]!;
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
    if (this.queueHead >= this.queue.length) {
      this.queue = [];
      this.queueHead = 0;
    }
    if (this.queue.length - this.queueHead < QUEUE_LOW) this.stream.resume();
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
    this.queue = [];
    this.queueHead = 0;
    this.inTransaction = false;
    this.ended = false;
    this.skipThrough = split.changeLsn === undefined ? undefined : parseLsn(split.changeLsn);
    try {
      await this.retry.run('streaming changes', async () => {
        const stream: ReplicationStream = new ReplicationStream(
          this.params.connection,
          split.slot,
          split.publication,
          {
            message: (lsn, message) => {
              if (this.stream === stream) this.receive(lsn, message);
            },
            keepalive: (lsn) => {
              if (this.stream === stream) this.keepalive(lsn);
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

  private push(item: Item): void {
    this.queue.push(item);
    if (this.queue.length - this.queueHead > QUEUE_HIGH) this.stream?.pause();
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  private end(): void {
    if (this.ended) return;
    this.ended = true;
    this.push({ type: 'end' });
  }

  private receive(lsn: bigint, message: Pgoutput.Message): void {
    if (this.ended) return;
    switch (message.tag) {
      case 'relation':
        for (const column of message.columns) column.parser = valueParser(column.typeOid);
        return;
      case 'begin':
        if (
          this.stopLsn !== undefined &&
          message.commitLsn !== null &&
          parseLsn(message.commitLsn) >= this.stopLsn
        ) {
          this.end();
          return;
        }
        this.inTransaction = true;
        return;
      case 'commit': {
        this.inTransaction = false;
        const end = parseLsn(message.commitEndLsn!);
        this.push({ type: 'commit', end });
        if (this.stopLsn !== undefined && end >= this.stopLsn) this.end();
        return;
      }
      default: {
        const record = changeRecord(message, this.split!.schema!, this.split!.name!);
        if (record !== undefined) this.push({ type: 'change', lsn, record });
        return;
      }
    }
  }

  private keepalive(lsn: bigint): void {
    if (this.stopLsn !== undefined && !this.inTransaction && lsn >= this.stopLsn) this.end();
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
    const cursor = this.cursor;
    const stream = this.stream;
    this.cursor = undefined;
    this.stream = undefined;
    await cursor?.close();
    await stream?.close();
  }
}
