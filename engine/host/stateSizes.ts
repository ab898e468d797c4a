// How much keyed state a subtask holds, counted by reading its store: per state, the keys that
// hold it, its entries (a value, or one element of a map or list) and their bytes, as KeyedState
// counts them; and how many distinct keys hold any state. The running count (the metrics'
// stateKeys) counts a key once per state it holds, since telling that apart while running would
// take a look-up per write; here a key with a value and a map counts once.
//
// A key's states sit in different spaces of its key group (stateKeys.ts), each sorted by key: a
// key group's spaces are read side by side, a chunk of each at a time, and merged in key order,
// so a key is counted once without any set of keys in memory. Only value and meta entries are
// read, never a map's or list's elements (the meta entry counts them): what it costs grows with
// the keys, so the designer asks for it now and then, not at every measurement.
import type { StateSizeView } from '../protocol/runProtocol.js';
import { StateTag } from '../state/stateKeys.js';
import { compareUtf8, type KeyRange, type StoreBrowser } from '../state/storeBrowser.js';
import { type ContainerMeta, findSpaces, type Space, spaceEnd, TYPE_OF } from './stateSpaces.js';

/** Entries read at a time from each space. */
const CHUNK = 1000;

interface Size {
  state: string;
  type: StateSizeView['type'];
  keys: number;
  entries: number;
  bytes: number;
}

/** One space read a chunk at a time: its entry at hand is `head`. */
class SpaceReader {
  private chunk: [string, string][] = [];
  private at = 0;
  private range: KeyRange;
  private done = false;

  constructor(
    private readonly browser: StoreBrowser,
    readonly space: Space,
    readonly size: Size,
  ) {
    this.range = { gte: space.space, lt: spaceEnd(space.space) };
  }

  /** The entry at hand ([key text, JSON]), reading the next chunk when needed; undefined at the end. */
  async head(): Promise<[string, string] | undefined> {
    if (this.at < this.chunk.length) return this.chunk[this.at];
    if (this.done) return undefined;
    this.chunk = await this.browser.entries(this.range, CHUNK);
    this.at = 0;
    if (this.chunk.length < CHUNK) this.done = true;
    const last = this.chunk.at(-1);
    if (last !== undefined) this.range = { gt: last[0], lt: this.range.lt };
    const head = this.chunk[0];
    return head === undefined ? undefined : head;
  }

  /** Counts the entry at hand into its state's size; whether it holds state (a container may be empty). */
  take(full: string, json: string): boolean {
    this.at++;
    const size = this.size;
    if (this.space.tag === StateTag.Value) {
      size.keys++;
      size.entries++;
      size.bytes += full.length + json.length;
      return true;
    }
    const meta = JSON.parse(json) as ContainerMeta;
    if (meta.n > 0) size.keys++;
    size.entries += meta.n;
    size.bytes += meta.b;
    return meta.n > 0;
  }
}

/** The subtask's distinct keys, and per state its keys, entries and bytes, in state order. */
export async function readStateSizes(
  browser: StoreBrowser,
  keyGroups: { start: number; end: number },
): Promise<{ keys: number; states: StateSizeView[] }> {
  const sizes = new Map<string, Size>();
  const byGroup = new Map<number, SpaceReader[]>();
  for (const space of await findSpaces(browser, keyGroups)) {
    const type = TYPE_OF[space.tag];
    const id = `${space.name}\0${type}`;
    let size = sizes.get(id);
    if (size === undefined) {
      size = { state: space.name, type, keys: 0, entries: 0, bytes: 0 };
      sizes.set(id, size);
    }
    let readers = byGroup.get(space.keyGroup);
    if (readers === undefined) {
      readers = [];
      byGroup.set(space.keyGroup, readers);
    }
    readers.push(new SpaceReader(browser, space, size));
  }
  let keys = 0;
  for (const readers of byGroup.values()) keys += await mergeKeyGroup(readers);
  const states = [...sizes.values()].sort(
    (a, b) => compareUtf8(a.state, b.state) || compareUtf8(a.type, b.type),
  );
  return { keys, states };
}

/** Reads a key group's spaces side by side in key order: its distinct keys holding state. */
async function mergeKeyGroup(readers: readonly SpaceReader[]): Promise<number> {
  let keys = 0;
  for (;;) {
    // The smallest key text at hand, and every space whose entry at hand is of that key.
    let least: string | undefined;
    let at: { reader: SpaceReader; full: string; json: string }[] = [];
    for (const reader of readers) {
      const head = await reader.head();
      if (head === undefined) continue;
      const [full, json] = head;
      const keyText = full.slice(reader.space.space.length);
      const order = least === undefined ? -1 : compareUtf8(keyText, least);
      if (order < 0) {
        least = keyText;
        at = [{ reader, full, json }];
      } else if (order === 0) at.push({ reader, full, json });
    }
    if (least === undefined) return keys;
    let holds = false;
    for (const { reader, full, json } of at) if (reader.take(full, json)) holds = true;
    if (holds) keys++;
  }
}
