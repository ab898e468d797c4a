// One logical replication stream (START_REPLICATION ... LOGICAL over a `pg` replication
// connection), decoded with pg-logical-replication's pgoutput parser. This handles the copy-both
// protocol itself rather than through that library's LogicalReplicationService, because the
// service acknowledges on its own (every message by default, and on a timer the newest LSN
// received), and writes "LSN + 1" as the flushed position, which can skip a transaction whose
// commit record starts right where the acknowledged one ended. Here the only position ever
// acknowledged is the one the reader gives (a completed checkpoint's), exactly.
import type pg from 'pg';
import type { Pgoutput, PgoutputPlugin } from 'pg-logical-replication';
import { pgoutputPlugin } from '../pgPackages.js';
import { formatLsn, readLsn } from './lsn.js';
import { replicationClient } from './snapshotCursor.js';

/** Microseconds between 1970-01-01 and 2000-01-01 (PostgreSQL's epoch). */
const PG_EPOCH_US = 946_684_800_000_000n;

export interface StreamListener {
  /** A decoded message and the LSN its header gives (a change's own; a commit's end). */
  message(lsn: bigint, message: Pgoutput.Message): void;
  /** The server's keepalive: everything before `lsn` has been decoded and sent. */
  keepalive(lsn: bigint): void;
  /** The connection broke or the server ended the stream (not after close()). */
  failed(error: Error): void;
}

export class ReplicationStream {
  private readonly client: pg.Client;
  private readonly plugin: PgoutputPlugin;
  private closing = false;
  private paused = false;

  constructor(
    connection: string,
    private readonly slot: string,
    publication: string,
    private readonly listener: StreamListener,
  ) {
    this.client = replicationClient(connection);
    this.plugin = new (pgoutputPlugin())({ protoVersion: 1, publicationNames: [publication] });
    this.publicationList = `"${publication.replaceAll('"', '""')}"`;
  }

  private readonly publicationList: string;

  async connect(): Promise<void> {
    this.client.on('error', (error) => this.fail(error));
    await this.client.connect();
  }

  /**
   * Starts streaming the slot's changes of transactions that commit at `from` or later: resolves
   * once the server streams, rejects as it refuses (slot missing, or still held by a connection
   * of a run that was killed).
   */
  start(from: bigint, acknowledged: bigint): Promise<void> {
    this.acknowledged = acknowledged;
    // biome-ignore lint/suspicious/noExplicitAny: pg's connection is not in its types
    const connection = (this.client as any).connection as {
      on(event: 'copyData', listener: (message: { chunk: Buffer }) => void): void;
      once(event: 'replicationStart', listener: () => void): void;
      sendCopyFromChunk(chunk: Buffer): void;
      stream: { pause(): void; resume(): void };
    };
    this.connection = connection;
    connection.on('copyData', ({ chunk }) => this.receive(chunk));
    const sql = `START_REPLICATION SLOT "${this.slot}" LOGICAL ${formatLsn(from)} (proto_version '1', publication_names '${this.publicationList.replaceAll("'", "''")}')`;
    return new Promise<void>((resolve, reject) => {
      let started = false;
      connection.once('replicationStart', () => {
        started = true;
        this.acknowledge(acknowledged);
        resolve();
      });
      this.client.query(sql).then(
        () => this.fail(new Error('the server ended the replication stream')),
        (error: Error) => {
          if (started) {
            this.fail(error);
          } else {
            this.closing = true;
            this.client.end().catch(() => {});
            reject(error);
          }
        },
      );
    });
  }

  private connection:
    | { sendCopyFromChunk(chunk: Buffer): void; stream: { pause(): void; resume(): void } }
    | undefined;

  private receive(chunk: Buffer): void {
    if (this.closing) return;
    try {
      if (chunk[0] === 0x77) {
        // XLogData: 'w', start LSN, end of WAL, send time, then the pgoutput message.
        this.listener.message(readLsn(chunk, 1), this.plugin.parse(chunk.subarray(25)));
      } else if (chunk[0] === 0x6b) {
        // Primary keepalive: 'k', the LSN sent up to, send time, reply requested.
        this.listener.keepalive(readLsn(chunk, 1));
        if (chunk[17] === 1) this.acknowledge(this.acknowledged);
      }
    } catch (error) {
      this.fail(error as Error);
    }
  }

  private acknowledged = 0n;

  /**
   * Standby status update: `lsn` as written, flushed and applied (the slot may discard the log
   * before it); `ping` asks the server for a keepalive at once (where its decoding stands).
   */
  acknowledge(lsn: bigint, ping = false): void {
    if (lsn > this.acknowledged) this.acknowledged = lsn;
    if (this.connection === undefined || this.closing) return;
    const update = Buffer.alloc(34);
    update[0] = 0x72; // 'r'
    update.writeBigUInt64BE(this.acknowledged, 1);
    update.writeBigUInt64BE(this.acknowledged, 9);
    update.writeBigUInt64BE(this.acknowledged, 17);
    update.writeBigUInt64BE(BigInt(Date.now()) * 1000n - PG_EPOCH_US, 25);
    update[33] = ping ? 1 : 0;
    this.connection.sendCopyFromChunk(update);
  }

  /** Backpressure: stop reading the socket while the reader's queue is long. */
  pause(): void {
    if (this.paused || this.connection === undefined) return;
    this.paused = true;
    this.connection.stream.pause();
  }

  resume(): void {
    if (!this.paused || this.connection === undefined) return;
    this.paused = false;
    this.connection.stream.resume();
  }

  private fail(error: Error): void {
    if (this.closing) return;
    this.closing = true;
    this.listener.failed(error);
    this.client.end().catch(() => {});
  }

  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    await this.client.end().catch(() => {});
  }
}
