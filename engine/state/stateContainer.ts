// A key's map or list state as a container: its elements in a space of their own, one entry
// each, and a meta entry naming the container's generation and counting its elements and bytes,
// so that clear() moves to a fresh generation in O(1) and the state size stays exact. The
// container of the current key is resolved once per record; keyedState.ts builds map and list
// state on it.
import { type KvSpace, type KvStore, type Stored, UNREAD } from './kvStore.js';
import { containerSpace, type StateTag } from './stateKeys.js';

export interface ContainerMeta {
  /** Generation: clearing moves to a fresh container and drops the old one. */
  g: number;
  /** Elements and their bytes. */
  n: number;
  b: number;
  /** Lists only: the next position. */
  p?: number;
}

/** What a container needs of the keyed state it belongs to (KeyedState). */
export interface ContainerOwner {
  readonly store: KvStore;
  /** Counts setKey calls: what was read for a record is reused for the rest of its calls. */
  readonly keyEpoch: number;
  /** The current key's key group. */
  readonly currentKeyGroup: number;
  /** The current key as store keys hold it. */
  currentKeyEncoded(): string;
  /** The state's sizes, kept exact as elements come and go. */
  readonly size: { entries: number; bytes: number; keys: number };
  /** The spaces of one state, one per key group, resolved once each. */
  spaces(tag: StateTag, name: string): (keyGroup: number) => { space: string; handle: KvSpace };
  /** Writes one entry and keeps the sizes exact; returns what it replaced. */
  write(
    space: string,
    handle: KvSpace | undefined,
    key: string,
    stored: Stored | undefined,
  ): Stored | undefined;
}

/**
 * One key's map or list: its elements in a container space, and a meta entry that names the
 * container's generation and counts its elements, so clear() is O(1) and sizes stay exact.
 */
export function stateContainer(owner: ContainerOwner, tag: StateTag, metaTag: StateTag, name: string) {
  const metaSpaces = owner.spaces(metaTag, name);
  const store = owner.store;
  const codec = store.codec;
  // The meta of the current key, as read or last written during this record (keyEpoch).
  let cachedEpoch = -1;
  let cached: ContainerMeta | undefined;
  const meta = (): ContainerMeta => {
    if (cachedEpoch === owner.keyEpoch) return cached!;
    const stored = metaSpaces(owner.currentKeyGroup).handle.get(owner.currentKeyEncoded());
    cached = stored === undefined ? { g: 0, n: 0, b: 0 } : (codec.decode(stored) as ContainerMeta);
    cachedEpoch = owner.keyEpoch;
    return cached;
  };
  // The current key's container, resolved once per record and generation (a window's record
  // reads and writes its accumulator: one look-up of the space, not two).
  let spaceEpoch = -1;
  let spaceGeneration = -1;
  let spaceText = '';
  let spaceHandle: KvSpace | undefined;
  const space = (m: ContainerMeta) => {
    if (spaceEpoch !== owner.keyEpoch || spaceGeneration !== m.g) {
      spaceText = containerSpace(owner.currentKeyGroup, tag, name, owner.currentKeyEncoded(), m.g);
      spaceHandle = undefined;
      spaceEpoch = owner.keyEpoch;
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
    metaSpaces(owner.currentKeyGroup).handle.put(owner.currentKeyEncoded(), codec.encode('state meta', m));
    cached = m;
    cachedEpoch = owner.keyEpoch;
  };
  /** Writes an element; returns the value it replaced. */
  const put = (m: ContainerMeta, element: string, stored: Stored | undefined) => {
    const h = handle(m);
    const elementSpace = space(m);
    const before = owner.size.bytes;
    const held = m.n > 0;
    const n = m.n;
    const old = owner.write(elementSpace, h, element, stored);
    m.n += (stored === undefined ? 0 : 1) - (old === undefined ? 0 : 1);
    owner.size.keys += (m.n > 0 ? 1 : 0) - (held ? 1 : 0);
    m.b += owner.size.bytes - before;
    // A value replaced by one of the same size (a window's count) leaves the meta as stored.
    if (m.n !== n || owner.size.bytes !== before || m.p !== undefined) saveMeta(m);
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
      owner.size.entries -= 1;
      owner.size.bytes -= bytes;
      m.n -= 1;
      m.b -= bytes;
      if (m.n === 0) owner.size.keys -= 1;
      metaHandle.put(keyText, codec.encode('state meta', m));
      cachedEpoch = -1;
    };
  /** Empties the container: `drop` deletes its elements (a whole-space drop, or each by key). */
  const clearWith = (m: ContainerMeta, drop: (container: string) => void) => {
    if (m.n === 0 && m.p === undefined) return;
    if (m.n > 0) owner.size.keys -= 1;
    owner.size.entries -= m.n;
    owner.size.bytes -= m.b;
    drop(space(m));
    saveMeta({ g: m.g + 1, n: 0, b: 0 });
  };
  /** Writes an element the store cannot hold yet (a list's next position): no read of what it replaces. */
  const putNew = (m: ContainerMeta, element: string, stored: Stored) => {
    const elementSpace = space(m);
    store.set!(elementSpace, element, stored, true);
    const bytes = elementSpace.length + element.length + codec.length(stored);
    if (m.n === 0) owner.size.keys += 1;
    owner.size.entries += 1;
    owner.size.bytes += bytes;
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
      return h === undefined ? store.get(space(m), element) : h.get(element);
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
          replacedLater(owner.currentKeyGroup, owner.currentKeyEncoded(), m.g, keyLength),
        );
      const held = m.n > 0;
      const n = m.n;
      const before = owner.size.bytes;
      if (old !== undefined && old !== UNREAD) {
        owner.size.entries -= 1;
        owner.size.bytes -= keyLength + codec.length(old);
      }
      owner.size.entries += 1;
      owner.size.bytes += keyLength + codec.length(stored);
      m.n += old === undefined || old === UNREAD ? 1 : 0;
      owner.size.keys += (m.n > 0 ? 1 : 0) - (held ? 1 : 0);
      m.b += owner.size.bytes - before;
      if (m.n !== n || owner.size.bytes !== before) saveMeta(m);
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
