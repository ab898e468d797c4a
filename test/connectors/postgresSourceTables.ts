// For the source.postgres tests: a table with a random name on the shared server (REPLICA
// IDENTITY FULL, so updates and deletes carry the whole old row), the changes a test makes to it
// together with the records a run must give for them, and cleanup of the slot and publication.
import { readFile } from 'node:fs/promises';
import pg from 'pg';
import { waitUntil } from '../checkpointHelpers.js';
import { PG_URL } from './servers.js';

export interface Row {
  readonly id: number;
  readonly v: number;
  readonly note: string;
}

export interface ChangeRecord {
  readonly op: 'insert' | 'update' | 'delete';
  readonly before: Row | null;
  readonly after: Row | null;
}

export async function withClient<T>(use: (client: pg.Client) => Promise<T>, url = PG_URL): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

export const uniqueName = (base: string) =>
  `${base}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;

/**
 * A table whose rows the test knows: every change goes through it, and `records` lists what a
 * reader of the changes must emit for them, in order (the snapshot's rows first, as inserts).
 */
export class ModelTable {
  readonly rows = new Map<number, Row>();
  readonly records: ChangeRecord[] = [];

  constructor(
    readonly name: string,
    private readonly url = PG_URL,
  ) {}

  /** Creates the table with rows 1..count (v = id, note "s"): its snapshot, in id order. */
  async create(count: number): Promise<void> {
    await withClient(async (client) => {
      await client.query(`CREATE TABLE ${this.name} (id int PRIMARY KEY, v int NOT NULL, note text)`);
      await client.query(`ALTER TABLE ${this.name} REPLICA IDENTITY FULL`);
      await client.query(`INSERT INTO ${this.name} SELECT g, g, 's' FROM generate_series(1, ${count}) g`);
    }, this.url);
    for (let id = 1; id <= count; id++) {
      const row = { id, v: id, note: 's' };
      this.rows.set(id, row);
      this.records.push({ op: 'insert', before: null, after: row });
    }
  }

  /** One transaction per call: inserts, updates (v + 1, note given) and deletes, in that order. */
  async transaction(
    client: pg.Client,
    change: { insert?: number[]; update?: number[]; remove?: number[]; note?: string },
  ): Promise<void> {
    const note = change.note ?? 'u';
    const statements: string[] = [];
    for (const id of change.insert ?? []) {
      statements.push(`INSERT INTO ${this.name} VALUES (${id}, ${id}, 'i')`);
      const row = { id, v: id, note: 'i' };
      this.rows.set(id, row);
      this.records.push({ op: 'insert', before: null, after: row });
    }
    for (const id of change.update ?? []) {
      statements.push(`UPDATE ${this.name} SET v = v + 1, note = '${note}' WHERE id = ${id}`);
      const before = this.rows.get(id)!;
      const after = { id, v: before.v + 1, note };
      this.rows.set(id, after);
      this.records.push({ op: 'update', before, after });
    }
    for (const id of change.remove ?? []) {
      statements.push(`DELETE FROM ${this.name} WHERE id = ${id}`);
      const before = this.rows.get(id)!;
      this.rows.delete(id);
      this.records.push({ op: 'delete', before, after: null });
    }
    // One DO block: one round trip and one transaction, its statements in this order.
    await client.query(`DO $$ BEGIN ${statements.map((s) => `${s};`).join(' ')} END $$`);
  }

  lines(): string[] {
    return this.records.map((record) => JSON.stringify(record));
  }
}

/** Drops the table, and the slots and publications whose names start with `prefix`. */
export async function dropAll(table: string, prefix: string): Promise<void> {
  await withClient(async (client) => {
    for (let attempt = 0; ; attempt++) {
      try {
        await client.query(
          `SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name LIKE $1`,
          [`${prefix}%`],
        );
        break;
      } catch (error) {
        // A killed run's walsender may hold its slot for a moment yet.
        if (attempt > 50) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    const publications = await client.query<{ pubname: string }>(
      'SELECT pubname FROM pg_publication WHERE pubname LIKE $1',
      [`${prefix}%`],
    );
    for (const { pubname } of publications.rows) await client.query(`DROP PUBLICATION "${pubname}"`);
    await client.query(`DROP TABLE IF EXISTS ${table}`);
  });
}

/** Whether `file` holds `count` lines or more within `timeoutMs` (a run writing it as it goes). */
export function waitUntilLines(file: string, count: number, timeoutMs: number): Promise<boolean> {
  return waitUntil(
    async () => {
      const text = await readFile(file, 'utf8').catch(() => '');
      return text.split('\n').filter((line) => line !== '').length >= count;
    },
    { timeoutMs, everyMs: 50 },
  );
}
