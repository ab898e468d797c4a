// LevelDB under a write-back cache. Reads are synchronous (`getSync`): a promise per record
// costs ~25x. Writes gather in `dirty` and go to LevelDB as one batch; while that batch is in
// flight it stays readable in `inFlight`, because LevelDB does not see it until it completes.
import { ClassicLevel } from 'classic-level';
import type { ElementEntries, KvStore } from './kvStore.js';

/** Pending writes that trigger a batch. */
const FLUSH_ENTRIES = 4096;
const FLUSH_CHARS = 4 * 1024 * 1024;
/** Recently read or written entries kept to spare LevelDB look-ups; cleared whole when full. */
const CLEAN_ENTRIES = 16384;
/** Elements read from LevelDB per step of a container scan. */
const SCAN_CHUNK = 256;

type Pending = Map<string, string | null>;

export class LevelKvStore implements KvStore {
  private dirty: Pending = new Map();
  private dirtyChars = 0;
  private inFlight: Pending | undefined;
  private flushing: Promise<void> | undefined;
  private clean = new Map<string, string | null>();
  /** Ranges of dropped containers still to delete from LevelDB, as [gte, lt]. */
  private droppedRanges: [string, string][] = [];

  private constructor(private readonly db: ClassicLevel<string, string>) {}

  static async open(location: string): Promise<LevelKvStore> {
    const db = new ClassicLevel<string, string>(location, {
      keyEncoding: 'utf8',
      valueEncoding: 'utf8',
      createIfMissing: true,
    });
    await db.open();
    return new LevelKvStore(db);
  }

  get(key: string): string | undefined {
    let value = this.dirty.get(key);
    if (value === undefined && this.inFlight !== undefined) value = this.inFlight.get(key);
    if (value === undefined) value = this.clean.get(key);
    if (value === undefined) {
      value = this.db.getSync(key) ?? null;
      if (this.clean.size >= CLEAN_ENTRIES) this.clean.clear();
      this.clean.set(key, value);
    }
    return value === null ? undefined : value;
  }

  put(key: string, value: string | undefined): void {
    this.dirty.set(key, value ?? null);
    this.dirtyChars += key.length + (value?.length ?? 0);
  }

  elementGet(container: string, element: string): string | undefined {
    return this.get(`${container}\0${element}`);
  }

  elementPut(container: string, element: string, value: string | undefined): void {
    this.put(`${container}\0${element}`, value);
  }

  async *elements(container: string): ElementEntries {
    // Everything written so far must be in LevelDB before an iterator (a snapshot) is taken.
    await this.flush();
    const gte = `${container}\0`;
    const lt = `${container}\x01`;
    const iterator = this.db.iterator({ gte, lt });
    try {
      for (;;) {
        const chunk = await iterator.nextv(SCAN_CHUNK);
        if (chunk.length === 0) return;
        for (const [key, value] of chunk) yield [key.slice(gte.length), value];
      }
    } finally {
      await iterator.close();
    }
  }

  dropContainer(container: string): void {
    this.droppedRanges.push([`${container}\0`, `${container}\x01`]);
  }

  maybeFlush(): Promise<void> | undefined {
    if (this.dirty.size < FLUSH_ENTRIES && this.dirtyChars < FLUSH_CHARS) return undefined;
    // One batch in flight at a time: waiting for the previous one is the state's backpressure.
    if (this.flushing !== undefined) return this.flushing.then(() => this.startFlush());
    this.startFlush();
    return undefined;
  }

  async flush(): Promise<void> {
    while (this.flushing !== undefined) await this.flushing;
    if (this.dirty.size > 0 || this.droppedRanges.length > 0) {
      this.startFlush();
      await this.flushing;
    }
  }

  private startFlush(): void {
    const batch = this.dirty;
    const ranges = this.droppedRanges;
    this.dirty = new Map();
    this.dirtyChars = 0;
    this.droppedRanges = [];
    this.inFlight = batch;
    const operations: ({ type: 'put'; key: string; value: string } | { type: 'del'; key: string })[] = [];
    for (const [key, value] of batch) {
      operations.push(value === null ? { type: 'del', key } : { type: 'put', key, value });
    }
    this.flushing = (async () => {
      // Dropped containers are never written again (a clear starts a new generation), so
      // deleting their ranges before or after the batch gives the same result.
      for (const [gte, lt] of ranges) await this.db.clear({ gte, lt });
      await this.db.batch(operations);
      if (this.clean.size + batch.size > CLEAN_ENTRIES) this.clean.clear();
      for (const [key, value] of batch) this.clean.set(key, value);
      this.inFlight = undefined;
      this.flushing = undefined;
    })();
  }

  async close(): Promise<void> {
    await this.flush();
    await this.db.close();
  }
}
