// The replication slot made over a replication connection, and the table's rows as of the
// slot's start: CREATE_REPLICATION_SLOT ... (SNAPSHOT 'use') inside a REPEATABLE READ
// transaction makes that transaction see exactly what the slot's first change follows, and a
// cursor reads the table in it, a batch at a time. The snapshot lives as long as this one
// connection: if it breaks, the rows cannot be read on from where they stopped.
import type pg from 'pg';
import { PgClient } from '../pgPackages.js';
import { SESSION_OPTIONS, valueParser } from './pgValues.js';
import { quoteIdent } from './tableSetup.js';

/**
 * pgValues' parsers in place of pg's own, so that the row pg builds is the record: a second object
 * made from pg's row per row took a third of the snapshot's decoding and its garbage.
 */
const FIELD_PARSERS = { getTypeParser: valueParser };

/** A walsender connection ("replication=database": replication commands and plain SQL). */
export function replicationClient(connection: string): pg.Client {
  // pg supports `replication` but its types do not list it.
  const config = { connectionString: connection, replication: 'database', options: SESSION_OPTIONS };
  return new PgClient(config as pg.ClientConfig);
}

/** Makes the slot with no snapshot (snapshot: false): its consistent point. */
export async function createSlot(connection: string, slot: string): Promise<string> {
  const client = replicationClient(connection);
  client.on('error', () => {});
  try {
    await client.connect();
    const result = await client.query(
      `CREATE_REPLICATION_SLOT ${quoteIdent(slot)} LOGICAL pgoutput (SNAPSHOT 'nothing')`,
    );
    return (result.rows[0] as { consistent_point: string }).consistent_point;
  } finally {
    await client.end().catch(() => {});
  }
}

export class SnapshotCursor {
  /** The batch after the one last handed out, being read while the job takes that one. */
  private ahead: Promise<Record<string, unknown>[]> | undefined;
  /** Set when the connection broke (the snapshot is gone with it). */
  broken: Error | undefined;

  private constructor(
    private readonly client: pg.Client,
    readonly consistentPoint: string,
  ) {}

  /** Makes the slot and opens a cursor over `qualifiedTable` as of the slot's start. */
  static async open(connection: string, slot: string, qualifiedTable: string): Promise<SnapshotCursor> {
    const client = replicationClient(connection);
    let cursor: SnapshotCursor | undefined;
    client.on('error', (error) => {
      if (cursor !== undefined) cursor.broken = error;
    });
    try {
      await client.connect();
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
      const result = await client.query(
        `CREATE_REPLICATION_SLOT ${quoteIdent(slot)} LOGICAL pgoutput (SNAPSHOT 'use')`,
      );
      const consistentPoint = (result.rows[0] as { consistent_point: string }).consistent_point;
      await client.query(`DECLARE pipewright_snapshot NO SCROLL CURSOR FOR SELECT * FROM ${qualifiedTable}`);
      cursor = new SnapshotCursor(client, consistentPoint);
      return cursor;
    } catch (error) {
      await client.end().catch(() => {});
      throw error;
    }
  }

  /**
   * The next `count` rows at most (fewer: the last of them), each as column -> field. A full
   * batch has the one after it read meanwhile: the job would otherwise wait a round trip to
   * the server every batch.
   */
  next(count: number): Promise<Record<string, unknown>[]> {
    const batch = this.ahead ?? this.fetch(count);
    this.ahead = undefined;
    return batch.then((rows) => {
      if (rows.length === count) {
        this.ahead = this.fetch(count);
        // Its failure is the next call's; unawaited when the job stops first.
        this.ahead.catch(() => {});
      }
      return rows;
    });
  }

  private async fetch(count: number): Promise<Record<string, unknown>[]> {
    const result = await this.client.query({
      text: `FETCH ${count} FROM pipewright_snapshot`,
      types: FIELD_PARSERS,
    });
    return result.rows as Record<string, unknown>[];
  }

  async close(): Promise<void> {
    await this.client.query('COMMIT').catch(() => {});
    await this.client.end().catch(() => {});
  }
}
