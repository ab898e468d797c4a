// The table's rows as of the slot's start, as source.postgres emits them before any change: each
// row an insert ({ op: "insert", before: null, after: row }), fetched a batch at a time from the
// snapshot's cursor and numbered in the order read (the record's position, for messages).
import { JobError } from '../../../graph/jobError.js';
import type { SubtaskEnvironment } from '../../../runtime/operatorLogic.js';
import type { RecordSource } from '../../../runtime/recordSource.js';
import { describeCause } from '../../connectors/serverRetry.js';
import type { SnapshotCursor } from './snapshotCursor.js';

/** Rows a snapshot fetch asks for: as many as the sink writes a statement (insertStatements.ts). */
const SNAPSHOT_BATCH = 5000;

export class SnapshotRecords {
  private rows: Record<string, unknown>[] = [];
  private rowIndex = 0;
  private read = false;
  private records = 0;
  private readonly source: RecordSource;

  constructor(
    /** The snapshot's cursor: closing it is the reader's, once poll says every row is emitted. */
    readonly cursor: SnapshotCursor,
    private readonly env: SubtaskEnvironment,
    table: string,
    private readonly server: string,
  ) {
    this.source = { kind: 'at', operatorId: env.operator.id, label: `table "${table}" snapshot row` };
  }

  /** Emits up to `limit` rows (fetching a batch when none is left); undefined once all are emitted. */
  poll(limit: number): number | Promise<number> | undefined {
    if (this.rowIndex < this.rows.length) return this.emitRows(limit);
    if (this.read) return undefined;
    return this.cursor.next(SNAPSHOT_BATCH).then(
      (rows) => {
        this.rows = rows;
        this.rowIndex = 0;
        if (rows.length < SNAPSHOT_BATCH) this.read = true;
        return this.emitRows(limit);
      },
      (error: unknown) => {
        const operatorId = this.env.operator.id;
        throw new JobError(
          `operator "${operatorId}": ${this.server}: reading the table's snapshot failed (${describeCause(error)}); the snapshot cannot be resumed, so the job starts over from a fresh run or its last checkpoint`,
          operatorId,
        );
      },
    );
  }

  private emitRows(limit: number): number {
    const emitter = this.env.emitter;
    let emitted = 0;
    while (emitted < limit && this.rowIndex < this.rows.length) {
      const row = this.rows[this.rowIndex++]!;
      emitter.lineage.source = this.source;
      emitter.lineage.position = this.records++;
      emitter.emit({ op: 'insert', before: null, after: row });
      emitted++;
      if (emitter.blocked) break;
    }
    if (this.rowIndex >= this.rows.length) this.rows = [];
    return emitted;
  }
}
