// Range reads of a LevelDB store's database (levelKvStore.ts), once the store has written what
// they must see: a space in key order, every entry for a snapshot, the state browser's pages.
import type { ClassicLevel } from 'classic-level';
import type { SpaceEntries } from './kvStore.js';
import { trackStateRead } from './stateReads.js';
import type { KeyRange, StoreBrowser } from './storeBrowser.js';

/** Elements read from LevelDB per step of a container scan, unless the reader expects more. */
export const SCAN_CHUNK = 256;
const MAX_SCAN_CHUNK = 8192;
/** Entries read per step of a whole-state snapshot: each step costs a turn of the event loop. */
const SNAPSHOT_CHUNK = 8192;
/** classic-level stops a step at 16 KiB by default, a few hundred small entries: 1 MiB lets it fill the chunk. */
const SNAPSHOT_CHUNK_BYTES = 1 << 20;

type Db = ClassicLevel<string, string>;

/** Spaces end in "\0", so every key of a space sorts below the space with "\x01" instead. */
export function spaceEnd(space: string): string {
  return `${space.slice(0, -1)}\x01`;
}

/** The entries of a space (after `after`), as LevelDB holds them when the call is made. */
export async function* spaceEntries(
  db: Db,
  space: string,
  after: string | undefined,
  expected: number,
): SpaceEntries {
  const from = after === undefined ? { gte: space } : { gt: space + after };
  // classic-level ends a step at 16 KiB unless told otherwise: a few hundred entries.
  const highWaterMarkBytes = expected > SCAN_CHUNK ? SNAPSHOT_CHUNK_BYTES : undefined;
  const iterator = db.iterator({
    ...from,
    lt: spaceEnd(space),
    ...(highWaterMarkBytes && { highWaterMarkBytes }),
  });
  try {
    for (;;) {
      const chunk = await trackStateRead(iterator.nextv(Math.min(expected, MAX_SCAN_CHUNK)));
      if (chunk.length === 0) return;
      for (const [key, value] of chunk) yield [key.slice(space.length), value];
    }
  } finally {
    await trackStateRead(iterator.close());
  }
}

/**
 * At most `limit` keys of a space after `after`, in key order, as full keys: values are not
 * read, and the keys come in one step, not as an entry each through an async generator (a timer
 * cache's refill: 2M timers read back cost a quarter of a run's allocation that way).
 */
export async function spaceKeys(
  db: Db,
  space: string,
  after: string | undefined,
  limit: number,
): Promise<string[]> {
  const from = after === undefined ? { gte: space } : { gt: space + after };
  const keys = db.keys({
    ...from,
    lt: spaceEnd(space),
    limit,
    ...(limit > SCAN_CHUNK && { highWaterMarkBytes: SNAPSHOT_CHUNK_BYTES }),
  });
  // all() reads up to the limit and closes the iterator, on failure too.
  return trackStateRead(keys.all());
}

/** Every entry in LevelDB now, in chunks. */
export function allEntries(db: Db): AsyncIterable<[string, string][]> {
  // classic-level takes the iterator's snapshot synchronously, here, before any later write. A
  // whole-state scan would push the blocks the records are reading out of LevelDB's cache.
  const iterator = db.iterator({ fillCache: false, highWaterMarkBytes: SNAPSHOT_CHUNK_BYTES });
  return (async function* () {
    try {
      for (;;) {
        const chunk = await iterator.nextv(SNAPSHOT_CHUNK);
        if (chunk.length === 0) return;
        yield chunk;
      }
    } finally {
      await iterator.close();
    }
  })();
}

export function browseDb(db: Db): StoreBrowser {
  // A person paging through state must not push the blocks the records are reading out of the cache.
  const options = (range: KeyRange, limit: number) => ({ ...range, limit, fillCache: false });
  return {
    keys: (range, limit) => db.keys(options(range, limit)).all(),
    entries: (range, limit) => db.iterator(options(range, limit)).all(),
    values: (keys) => db.getMany([...keys], { fillCache: false }),
  };
}
