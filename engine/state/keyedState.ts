// ctx.state: value, map and list state scoped to the key of the record being processed.
// Map and list state keep one store entry per element, so no state is ever loaded whole; each
// keeps a small meta entry (generation, element count, bytes) so that clear() is O(1) and the
// state size (entries, bytes and keys) is known exactly while running.
import { hardenForUser } from '../sandbox/lockdown.js';
import type { KvSpace, KvStore, Stored } from './kvStore.js';
import { type ContainerMeta, stateContainer } from './stateContainer.js';
import {
  checkStateName,
  decodeKey,
  encodeKey,
  isUserEntry,
  listPosition,
  StateTag,
  stateSpace,
} from './stateKeys.js';

/** A list of at most this many positions is read and cleared by key (on LevelDB). */
const LIST_BY_KEY = 256;

export interface StateSize {
  /** State entries: a value, or one map or list element. */
  entries: number;
  /** Encoded keys plus values of those entries, in UTF-16 code units (bytes for ASCII). */
  bytes: number;
  /**
   * Keys holding state, counted once per state they hold: a value that is set, a map or list
   * that is not empty. (A key with a value and a map counts twice; telling that apart would take
   * a look-up per write.)
   */
  keys: number;
}

export interface ValueStateApi {
  get(): unknown;
  set(value: unknown): void;
  clear(): void;
}

export interface MapStateApi {
  get(key: unknown): unknown;
  set(key: unknown, value: unknown): void;
  has(key: unknown): boolean;
  delete(key: unknown): boolean;
  clear(): void;
  entries(): AsyncIterableIterator<[unknown, unknown]>;
  keys(): AsyncIterableIterator<unknown>;
  values(): AsyncIterableIterator<unknown>;
}

export interface ListStateApi {
  add(value: unknown): void;
  values(): AsyncIterableIterator<unknown>;
  clear(): void;
}

export interface StateApi {
  value(name: string): ValueStateApi;
  map(name: string): MapStateApi;
  list(name: string): ListStateApi;
}

/** What a map state's set(key, undefined) throws (on every backend, and in a Flink worker). */
export function undefinedMapValue(what: string): TypeError {
  return new TypeError(`${what}: set(key, undefined); use delete(key)`);
}

export class KeyedState {
  private keyGroup = 0;
  private key: unknown;
  private currentKeyText: string | undefined;
  /**
   * Counts setKey calls (and rollbacks): a map's or list's meta entry, read once for a record,
   * is reused for the rest of that record's calls (a get and a set read it once, not twice).
   */
  keyEpoch = 0;
  readonly size: StateSize = { entries: 0, bytes: 0, keys: 0 };
  private readonly values = new Map<string, ValueStateApi>();
  private readonly maps = new Map<string, MapStateApi>();
  private readonly lists = new Map<string, ListStateApi>();
  /** State a logic holds on the heap for now and writes before a checkpoint (its size). */
  private heldElsewhere: (() => StateSize) | undefined;
  /**
   * What user code sees as ctx.state, and every handle it gives out, hardened (frozen, functions
   * and prototypes included). Closures only, so hardening them does not freeze us.
   */
  readonly api: StateApi;

  /** `instrument` wraps what user code sees (the debugger records each access with it). */
  constructor(
    readonly store: KvStore,
    instrument?: (api: StateApi, state: KeyedState) => StateApi,
  ) {
    const api: StateApi = {
      value: (name) => this.valueState(name),
      map: (name) => this.mapState(name),
      list: (name) => this.listState(name),
    };
    this.api = hardenForUser(instrument === undefined ? api : hardenedHandles(instrument(api, this)));
  }

  /** The key of the record being processed (ctx.key). */
  get currentKey(): unknown {
    return this.key;
  }

  /** The key group of the current key. */
  get currentKeyGroup(): number {
    return this.keyGroup;
  }

  /** The current key as store keys hold it (timers are filed under it too). */
  currentKeyEncoded(): string {
    return this.keyText();
  }

  /** Scopes state to the key of the next record. */
  setKey(keyGroup: number, key: unknown): void {
    this.keyGroup = keyGroup;
    this.key = key;
    this.currentKeyText = undefined;
    this.keyEpoch++;
  }

  /**
   * After a restore: counts what the store holds (sizes are kept incrementally from then on).
   * `other` sees every entry that is not state or its meta (timers), in the same pass.
   */
  async recount(other?: (fullKey: string) => void): Promise<void> {
    let entries = 0;
    let bytes = 0;
    let keys = 0;
    for await (const chunk of await this.store.snapshotEntries()) {
      for (const [key, value] of chunk) {
        const tag = key.charAt(4);
        if (tag === StateTag.Value) keys++;
        else if (tag === StateTag.MapMeta || tag === StateTag.ListMeta) {
          if ((JSON.parse(value) as ContainerMeta).n > 0) keys++;
        }
        if (!isUserEntry(key)) {
          if (other !== undefined && tag !== StateTag.MapMeta && tag !== StateTag.ListMeta) other(key);
          continue;
        }
        entries++;
        bytes += key.length + value.length;
      }
    }
    this.resetSize({ entries, bytes, keys });
  }

  /** Time travel in debug runs: the sizes at an earlier point, to which the store has been rolled back. */
  resetSize(size: StateSize): void {
    this.keyEpoch++;
    this.size.entries = size.entries;
    this.size.bytes = size.bytes;
    this.size.keys = size.keys;
  }

  stateSize(): StateSize {
    // Map elements set unread count as new until the store tells what they replaced: exact now.
    this.store.settle?.();
    const held = this.heldElsewhere?.();
    if (held === undefined) return { ...this.size };
    return {
      entries: this.size.entries + held.entries,
      bytes: this.size.bytes + held.bytes,
      keys: this.size.keys + held.keys,
    };
  }

  /**
   * A logic that keeps some of its state on the heap between checkpoints (a window's
   * accumulators) says how much: the state size counts it, so the run's panels show it.
   */
  countHeldElsewhere(size: () => StateSize): void {
    this.heldElsewhere = size;
  }

  private keyText(): string {
    if (this.currentKeyText === undefined) this.currentKeyText = encodeKey(this.key);
    return this.currentKeyText;
  }

  /** The spaces of one state, one per key group, resolved once each. */
  spaces(tag: StateTag, name: string): (keyGroup: number) => { space: string; handle: KvSpace } {
    const byKeyGroup: { space: string; handle: KvSpace }[] = [];
    return (keyGroup) => {
      let entry = byKeyGroup[keyGroup];
      if (entry === undefined) {
        const space = stateSpace(keyGroup, tag, name);
        entry = { space, handle: this.store.space(space) };
        byKeyGroup[keyGroup] = entry;
      }
      return entry;
    };
  }

  /** Writes one entry (in the store's stored form) and keeps the state size exact. */
  write(space: string, handle: KvSpace | undefined, key: string, stored: Stored | undefined) {
    const old = handle === undefined ? this.store.put(space, key, stored) : handle.put(key, stored);
    const keyLength = space.length + key.length;
    const codec = this.store.codec;
    if (old !== undefined) {
      this.size.entries -= 1;
      this.size.bytes -= keyLength + codec.length(old);
    }
    if (stored !== undefined) {
      this.size.entries += 1;
      this.size.bytes += keyLength + codec.length(stored);
    }
    return old;
  }

  private valueState(name: string): ValueStateApi {
    let api = this.values.get(name);
    if (api !== undefined) return api;
    checkStateName(name);
    const spaces = this.spaces(StateTag.Value, name);
    const codec = this.store.codec;
    const what = `value state "${name}"`;
    const encodeTransient = codec.encodeTransient ?? codec.encode;
    const keep = codec.keep ?? ((fresh: Stored) => fresh);
    const write = (stored: Stored | undefined) => {
      const { space, handle } = spaces(this.keyGroup);
      const old = this.write(space, handle, this.keyText(), stored);
      this.size.keys += (stored === undefined ? 0 : 1) - (old === undefined ? 0 : 1);
    };
    api = {
      get: () => {
        const stored = spaces(this.keyGroup).handle.get(this.keyText());
        return stored === undefined ? undefined : codec.decode(stored);
      },
      set: (value) => {
        if (value === undefined) return write(undefined);
        // Over the value it replaces, in place, where the store can (the heap, the same shape):
        // the codec's scratch copy then goes straight into the object the store holds.
        const fresh = encodeTransient(what, value);
        const grown = spaces(this.keyGroup).handle.overwrite?.(this.keyText(), fresh);
        if (grown === undefined) write(keep(fresh));
        else this.size.bytes += grown;
      },
      clear: () => write(undefined),
    };
    hardenForUser(api);
    this.values.set(name, api);
    return api;
  }

  private mapState(name: string): MapStateApi {
    let api = this.maps.get(name);
    if (api !== undefined) return api;
    checkStateName(name);
    const what = `map state "${name}"`;
    const codec = this.store.codec;
    const c = stateContainer(this, StateTag.MapElements, StateTag.MapMeta, name);
    api = {
      get: (mapKey) => {
        const stored = c.get(c.meta(), encodeKey(mapKey));
        return stored === undefined ? undefined : codec.decode(stored);
      },
      set: (mapKey, value) => {
        if (value === undefined) throw undefinedMapValue(what);
        c.set(c.meta(), encodeKey(mapKey), codec.encode(what, value));
      },
      has: (mapKey) => c.get(c.meta(), encodeKey(mapKey)) !== undefined,
      delete: (mapKey) => {
        const m = c.meta();
        const element = encodeKey(mapKey);
        return c.get(m, element) !== undefined && c.put(m, element, undefined) !== undefined;
      },
      clear: c.clear,
      entries: async function* () {
        for await (const [element, value] of c.scan()) yield [decodeKey(element), value];
      },
      keys: async function* () {
        for await (const [element] of c.scan()) yield decodeKey(element);
      },
      values: async function* () {
        for await (const [, value] of c.scan()) yield value;
      },
    };
    hardenForUser(api);
    this.maps.set(name, api);
    return api;
  }

  private listState(name: string): ListStateApi {
    let api = this.lists.get(name);
    if (api !== undefined) return api;
    checkStateName(name);
    const what = `list state "${name}"`;
    const codec = this.store.codec;
    const c = stateContainer(this, StateTag.ListElements, StateTag.ListMeta, name);
    const store = this.store;
    // On LevelDB a list's elements are at positions 0 to p - 1 of its generation (a list drops
    // none alone), and none at p or after: an add writes without a read, and a small list is read
    // and deleted by key. A range delete or an iterator per list (NEXMark q4's early bids, each
    // list cleared soon after it is filled) cost LevelDB a seek each, and an iterator waited for
    // the pending batch; deleted by key in that batch, elements added since never reach LevelDB.
    // Not on the heap (a space is a Map there) nor through the debugger's journal (no `set`).
    const byKey = store.onHeap !== true && store.set !== undefined;
    /** The positions of a list read or deleted by key, or undefined where it is not. */
    const positions = (m: ContainerMeta) =>
      byKey && m.p !== undefined && m.p <= LIST_BY_KEY ? m.p : undefined;
    api = {
      add: (value) => {
        const m = c.meta();
        const position = m.p ?? 0;
        m.p = position + 1;
        const stored = codec.encode(what, value);
        if (byKey) c.putNew(m, listPosition(position), stored);
        else c.put(m, listPosition(position), stored);
      },
      values: async function* () {
        const m = c.meta();
        const known = positions(m);
        if (known === undefined) {
          for await (const [, value] of c.scan()) yield value;
          return;
        }
        if (m.n === 0) return;
        // Read at once, as an iterator's snapshot would: adds and clears during the scan do not show.
        const space = c.space(m);
        const elements: Stored[] = [];
        for (let i = 0; i < known; i++) {
          const stored = store.get(space, listPosition(i));
          if (stored !== undefined) elements.push(stored);
        }
        for (const stored of elements) yield codec.decode(stored);
      },
      clear: () => {
        const m = c.meta();
        const known = positions(m);
        if (known === undefined) return c.clear();
        c.clearWith(m, (space) => {
          for (let i = 0; i < known; i++) store.set!(space, listPosition(i), undefined);
        });
      },
    };
    hardenForUser(api);
    this.lists.set(name, api);
    return api;
  }
}

/** An instrumented api (the debugger's) whose handles are its own objects: hardened as they are given out. */
function hardenedHandles(api: StateApi): StateApi {
  return {
    value: (name) => hardenForUser(api.value(name)),
    map: (name) => hardenForUser(api.map(name)),
    list: (name) => hardenForUser(api.list(name)),
  };
}
