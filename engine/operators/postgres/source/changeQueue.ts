// The slot's changes of the table as source.postgres's polls take them: pgoutput's messages,
// decoded into change records and the ends of their transactions, queued in commit order; for a
// bounded read, up to the first transaction that commits at or past its stop position (or a
// keepalive past it between transactions), where an end is queued. The socket is paused while
// the queue is long, and resumed once polls have taken it short again.
import type { Pgoutput } from 'pg-logical-replication';
import { changeRecord } from './changeRecord.js';
import { parseLsn } from './lsn.js';
import { valueParser } from './pgValues.js';

export type QueuedChange =
  | { readonly type: 'change'; readonly lsn: bigint; readonly record: unknown }
  | { readonly type: 'commit'; readonly end: bigint }
  | { readonly type: 'end' };

/** Decoded changes queued before the socket is paused, and the length at which it resumes. */
const QUEUE_HIGH = 20_000;
const QUEUE_LOW = 2_000;

/** What the queue asks of the stream that fills it, and tells the poll that waits on it. */
export interface ChangeFlow {
  pause(): void;
  resume(): void;
  /** An item was queued. */
  queued(): void;
}

export class ChangeQueue {
  private items: QueuedChange[] = [];
  private head = 0;
  private inTransaction = false;
  private ended = false;

  constructor(
    private readonly table: { readonly schema: string; readonly name: string },
    private readonly stopLsn: bigint | undefined,
    private readonly flow: ChangeFlow,
  ) {}

  /** The next item, taken off the queue; undefined when none is queued. */
  take(): QueuedChange | undefined {
    return this.head < this.items.length ? this.items[this.head++] : undefined;
  }

  /** After a poll's takes: drops what was taken once all of it was, and resumes a short queue's socket. */
  settle(): void {
    if (this.head >= this.items.length) {
      this.items = [];
      this.head = 0;
    }
    if (this.items.length - this.head < QUEUE_LOW) this.flow.resume();
  }

  receive(lsn: bigint, message: Pgoutput.Message): void {
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
        const record = changeRecord(message, this.table.schema, this.table.name);
        if (record !== undefined) this.push({ type: 'change', lsn, record });
        return;
      }
    }
  }

  keepalive(lsn: bigint): void {
    if (this.stopLsn !== undefined && !this.inTransaction && lsn >= this.stopLsn) this.end();
  }

  private push(item: QueuedChange): void {
    this.items.push(item);
    if (this.items.length - this.head > QUEUE_HIGH) this.flow.pause();
    this.flow.queued();
  }

  private end(): void {
    if (this.ended) return;
    this.ended = true;
    this.push({ type: 'end' });
  }
}
