// ctx.state: value, map and list state scoped to the key of the record being processed.
// Map and list state keep one store entry per element, so no state is ever loaded whole; each
// keeps a small meta entry (generation, element count, bytes) so that clear() is O(1) and the
// state size (entries, bytes and keys) is known exactly while running.
import { hardenForUser } from '../sandbox/lockdown.js';
import { type KvSpace, type KvStore, type Stored, UNREAD } from './kvStore.js';
import {
  checkStateName,
  containerSpace,
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

interface ContainerMeta {
  /** Generation: clearing moves to a fresh container and drops the old one. */
  g: number;
  /** Elements and their bytes. */
  n: number;
  b: number;
  /** Lists only: the next position. */
  p?: number;
}

export class KeyedState {
  private keyGroup = 0;
  private key: unknown;
  private currentKeyText: string | undefined;
  /**
   * Counts setKey calls (and rollbacks): a map's or list's meta entry, read once for a record,
   * is reused for the rest of that record's calls (a get and a set read it once, not twice).
   */
  private keyEpoch = 0;
  private readonly size: StateSize = { entries: 0, bytes: 0, keys: 0 };
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
    private readonly store: KvStore,
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
  private spaces(tag: StateTag, name: string): (keyGroup: number) => { space: string; handle: KvSpace } {
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
  private write(space: string, handle: KvSpace | undefined, key: string, stored: Stored | undefined) {
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
        const stored = value === undefined ? undefined : codec.encode(what, value);
        // Over the value it replaces, in place, where the store can (the heap, the same shape).
        const grown =
          stored === undefined ? undefined : spaces(this.keyGroup).handle.overwrite?.(this.keyText(), stored);
        if (grown === undefined) write(stored);
        else this.size.bytes += grown;
      },
      clear: () => write(undefined),
    };
    hardenForUser(api);
    this.values.set(name, api);
    return api;
  }

  /**
   * One key's map or list: its elements in a container space, and a meta entry that names the
   * container's generation and counts its elements, so clear() is O(1) and sizes stay exact.
   */
  private container(tag: StateTag, metaTag: StateTag, name: string) {
    const metaSpaces = this.spaces(metaTag, name);
    const store = this.store;
    const codec = store.codec;
    // The meta of the current key, as read or last written during this record (keyEpoch).
    let cachedEpoch = -1;
    let cached: ContainerMeta | undefined;
    const meta = (): ContainerMeta => {
      if (cachedEpoch === this.keyEpoch) return cached!;
      const stored = metaSpaces(this.keyGroup).handle.get(this.keyText());
      cached = stored === undefined ? { g: 0, n: 0, b: 0 } : (codec.decode(stored) as ContainerMeta);
      cachedEpoch = this.keyEpoch;
      return cached;
    };
    // The current key's container, resolved once per record and generation (a window's record
    // reads and writes its accumulator: one look-up of the space, not two).
    let spaceEpoch = -1;
    let spaceGeneration = -1;
    let spaceText = '';
    let spaceHandle: KvSpace | undefined;
    const space = (m: ContainerMeta) => {
      if (spaceEpoch !== this.keyEpoch || spaceGeneration !== m.g) {
        spaceText = containerSpace(this.keyGroup, tag, name, this.keyText(), m.g);
        spaceHandle = undefined;
        spaceEpoch = this.keyEpoch;
        spaceGeneration = m.g;
      }
      return spaceText;
    };
    /** The handle only where a space's handle is its entries themselves (the heap). */
    const handle = (m: ContainerMeta): KvSpace | undefined => {
      const text = space(m);
      if (store.onHeap !== true) return undefined;
      spaceHandle ??= store.space(text);
      return spaceHandle;
    };
    const saveMeta = (m: ContainerMeta) => {
      metaSpaces(this.keyGroup).handle.put(this.keyText(), codec.encode('state meta', m));
      cached = m;
      cachedEpoch = this.keyEpoch;
    };
    /** Writes an element; returns the value it replaced. */
    const put = (m: ContainerMeta, element: string, stored: Stored | undefined) => {
      const h = handle(m);
      const elementSpace = space(m);
      const before = this.size.bytes;
      const held = m.n > 0;
      const n = m.n;
      const old = this.write(elementSpace, h, element, stored);
      m.n += (stored === undefined ? 0 : 1) - (old === undefined ? 0 : 1);
      this.size.keys += (m.n > 0 ? 1 : 0) - (held ? 1 : 0);
      m.b += this.size.bytes - before;
      // A value replaced by one of the same size (a window's count) leaves the meta as stored.
      if (m.n !== n || this.size.bytes !== before || m.p !== undefined) saveMeta(m);
      return old;
    };
    /** What an element set unread replaced, once told: the meta and sizes counted it as new. */
    const replacedLater =
      (keyGroup: number, keyText: string, generation: number, keyLength: number) =>
      (old: Stored | undefined) => {
        if (old === undefined) return;
        const metaHandle = metaSpaces(keyGroup).handle;
        const stored = metaHandle.get(keyText);
        if (stored === undefined) return;
        const m = codec.decode(stored) as ContainerMeta;
        // Cleared since: the clear took the element off with the others, as they were counted.
        if (m.g !== generation) return;
        const bytes = keyLength + codec.length(old);
        this.size.entries -= 1;
        this.size.bytes -= bytes;
        m.n -= 1;
        m.b -= bytes;
        if (m.n === 0) this.size.keys -= 1;
        metaHandle.put(keyText, codec.encode('state meta', m));
        cachedEpoch = -1;
      };
    /** Empties the container: `drop` deletes its elements (a whole-space drop, or each by key). */
    const clearWith = (m: ContainerMeta, drop: (container: string) => void) => {
      if (m.n === 0 && m.p === undefined) return;
      if (m.n > 0) this.size.keys -= 1;
      this.size.entries -= m.n;
      this.size.bytes -= m.b;
      drop(space(m));
      saveMeta({ g: m.g + 1, n: 0, b: 0 });
    };
    /** Writes an element the store cannot hold yet (a list's next position): no read of what it replaces. */
    const putNew = (m: ContainerMeta, element: string, stored: Stored) => {
      const elementSpace = space(m);
      store.set!(elementSpace, element, stored, true);
      const bytes = elementSpace.length + element.length + codec.length(stored);
      if (m.n === 0) this.size.keys += 1;
      this.size.entries += 1;
      this.size.bytes += bytes;
      m.n += 1;
      m.b += bytes;
      saveMeta(m);
    };
    return {
      meta,
      space,
      get: (m: ContainerMeta, element: string) => {
        if (m.n === 0) return undefined;
        const h = handle(m);
        return h === undefined ? this.store.get(space(m), element) : h.get(element);
      },
      put,
      /**
       * A map's set. Where the store tells what an element replaced only later (LevelDB, when
       * it is not on the heap), the element counts as new until then; the meta and the sizes
       * are corrected when it is told, before the batch holding them goes to disk.
       */
      set: (m: ContainerMeta, element: string, stored: Stored) => {
        if (store.putUnread === undefined || (m.n === 0 && store.set === undefined))
          return void put(m, element, stored);
        const elementSpace = space(m);
        const keyLength = elementSpace.length + element.length;
        let old: Stored | undefined | typeof UNREAD;
        // An empty map holds no element to read, now or later.
        if (m.n === 0) store.set!(elementSpace, element, stored);
        else
          old = store.putUnread(
            elementSpace,
            element,
            stored,
            replacedLater(this.keyGroup, this.keyText(), m.g, keyLength),
          );
        const held = m.n > 0;
        const n = m.n;
        const before = this.size.bytes;
        if (old !== undefined && old !== UNREAD) {
          this.size.entries -= 1;
          this.size.bytes -= keyLength + codec.length(old);
        }
        this.size.entries += 1;
        this.size.bytes += keyLength + codec.length(stored);
        m.n += old === undefined || old === UNREAD ? 1 : 0;
        this.size.keys += (m.n > 0 ? 1 : 0) - (held ? 1 : 0);
        m.b += this.size.bytes - before;
        if (m.n !== n || this.size.bytes !== before) saveMeta(m);
      },
      clear: () => clearWith(meta(), (container) => store.dropSpace(container)),
      clearWith,
      putNew,
      /** Elements in order, as [element, value]. */
      scan: async function* (): AsyncGenerator<[string, unknown]> {
        const m = meta();
        if (m.n === 0) return;
        for await (const [element, stored] of store.entries(space(m))) yield [element, codec.decode(stored)];
      },
    };
  }

  private mapState(name: string): MapStateApi {
    let api = this.maps.get(name);
    if (api !== undefined) return api;
    checkStateName(name);
    const what = `map state "${name}"`;
    const codec = this.store.codec;
    const c = this.container(StateTag.MapElements, StateTag.MapMeta, name);
    api = {
      get: (mapKey) => {
        const stored = c.get(c.meta(), encodeKey(mapKey));
        return stored === undefined ? undefined : codec.decode(stored);
      },
      set: (mapKey, value) => {
        if (value === undefined) throw new TypeError(`${what}: set(key, undefined); use delete(key)`);
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
    const c = this.container(StateTag.ListElements, StateTag.ListMeta, name);
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
