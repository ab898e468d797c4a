// ctx.state: value, map and list state scoped to the key of the record being processed.
// Map and list state keep one store entry per element, so no state is ever loaded whole; each
// keeps a small meta entry (generation, element count, bytes) so that clear() is O(1) and the
// state size is known exactly while running.
import type { KvStore } from './kvStore.js';
import { checkStateName, containerKey, listPosition, StateTag, stateKey } from './stateKeys.js';

export interface StateSize {
  /** State entries: a value, or one map or list element. */
  entries: number;
  /** Encoded keys plus values of those entries, in UTF-16 code units (bytes for ASCII). */
  bytes: number;
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

/** JSON with object keys sorted, so equal keys always encode the same. */
export function canonicalJson(value: unknown): string {
  if (
    typeof value === 'string' ||
    typeof value === 'number' ||
    typeof value === 'boolean' ||
    value === null
  ) {
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object') {
    const object = value as Record<string, unknown>;
    const keys = Object.keys(object)
      .filter((k) => object[k] !== undefined)
      .sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(object[k])}`).join(',')}}`;
  }
  throw new TypeError(`not a JSON value: ${String(value)}`);
}

function encodeValue(what: string, value: unknown): string {
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch (error) {
    throw new TypeError(`${what} must be a JSON value (${(error as Error).message})`);
  }
  if (json === undefined) throw new TypeError(`${what} must be a JSON value (got ${typeof value})`);
  return json;
}

export class KeyedState {
  private keyGroup = 0;
  private key: unknown;
  private currentKeyJson: string | undefined;
  /** Changes with every record, so handles can reuse the encoded key within one record. */
  private keyStamp = 0;
  private readonly size: StateSize = { entries: 0, bytes: 0 };
  private readonly values = new Map<string, ValueStateApi>();
  private readonly maps = new Map<string, MapStateApi>();
  private readonly lists = new Map<string, ListStateApi>();
  /** What user code sees as ctx.state. Closures only: it may be hardened without freezing us. */
  readonly api: StateApi;

  constructor(private readonly store: KvStore) {
    this.api = {
      value: (name) => this.valueState(name),
      map: (name) => this.mapState(name),
      list: (name) => this.listState(name),
    };
  }

  /** Scopes state to the key of the next record. */
  setKey(keyGroup: number, key: unknown): void {
    this.keyGroup = keyGroup;
    this.key = key;
    this.currentKeyJson = undefined;
    this.keyStamp++;
  }

  stateSize(): StateSize {
    return { entries: this.size.entries, bytes: this.size.bytes };
  }

  private keyJson(): string {
    if (this.currentKeyJson === undefined) this.currentKeyJson = canonicalJson(this.key);
    return this.currentKeyJson;
  }

  private account(oldSize: number | undefined, newSize: number | undefined): void {
    if (oldSize !== undefined) {
      this.size.entries -= 1;
      this.size.bytes -= oldSize;
    }
    if (newSize !== undefined) {
      this.size.entries += 1;
      this.size.bytes += newSize;
    }
  }

  private valueState(name: string): ValueStateApi {
    let api = this.values.get(name);
    if (api !== undefined) return api;
    checkStateName(name);
    let key = '';
    let stamp = -1;
    const keyOf = () => {
      if (stamp !== this.keyStamp) {
        key = stateKey(this.keyGroup, StateTag.Value, name, this.keyJson());
        stamp = this.keyStamp;
      }
      return key;
    };
    const write = (json: string | undefined) => {
      const key = keyOf();
      const old = this.store.put(key, json);
      this.account(
        old === undefined ? undefined : key.length + old.length,
        json === undefined ? undefined : key.length + json.length,
      );
    };
    api = {
      get: () => {
        const json = this.store.get(keyOf());
        return json === undefined ? undefined : JSON.parse(json);
      },
      set: (value) => write(value === undefined ? undefined : encodeValue(`value state "${name}"`, value)),
      clear: () => write(undefined),
    };
    this.values.set(name, api);
    return api;
  }

  private readMeta(metaKey: string): ContainerMeta {
    const json = this.store.get(metaKey);
    return json === undefined ? { g: 0, n: 0, b: 0 } : (JSON.parse(json) as ContainerMeta);
  }

  private clearContainer(metaKey: string, tag: StateTag, name: string): void {
    const meta = this.readMeta(metaKey);
    if (meta.n === 0 && meta.p === undefined) return;
    this.size.entries -= meta.n;
    this.size.bytes -= meta.b;
    this.store.dropContainer(containerKey(this.keyGroup, tag, name, this.keyJson(), meta.g));
    this.store.put(metaKey, JSON.stringify({ g: meta.g + 1, n: 0, b: 0 }));
  }

  private mapState(name: string): MapStateApi {
    let api = this.maps.get(name);
    if (api !== undefined) return api;
    checkStateName(name);
    const what = `map state "${name}"`;
    const metaKeyOf = () => stateKey(this.keyGroup, StateTag.MapMeta, name, this.keyJson());
    const containerOf = (meta: ContainerMeta) =>
      containerKey(this.keyGroup, StateTag.MapElements, name, this.keyJson(), meta.g);
    const lookup = (mapKey: unknown) => {
      const meta = this.readMeta(metaKeyOf());
      const element = canonicalJson(mapKey);
      const value = meta.n === 0 ? undefined : this.store.elementGet(containerOf(meta), element);
      return { meta, element, value };
    };
    const write = (mapKey: unknown, json: string | undefined): boolean => {
      const metaKey = metaKeyOf();
      const { meta, element, value: old } = lookup(mapKey);
      if (old === undefined && json === undefined) return false;
      const container = containerOf(meta);
      const keyLength = container.length + 1 + element.length;
      const oldSize = old === undefined ? undefined : keyLength + old.length;
      const newSize = json === undefined ? undefined : keyLength + json.length;
      this.account(oldSize, newSize);
      meta.n += (newSize === undefined ? 0 : 1) - (oldSize === undefined ? 0 : 1);
      meta.b += (newSize ?? 0) - (oldSize ?? 0);
      this.store.elementPut(container, element, json);
      this.store.put(metaKey, JSON.stringify(meta));
      return old !== undefined;
    };
    const scan = () => {
      const meta = this.readMeta(metaKeyOf());
      return meta.n === 0 ? undefined : this.store.elements(containerOf(meta));
    };
    api = {
      get: (mapKey) => {
        const { value } = lookup(mapKey);
        return value === undefined ? undefined : JSON.parse(value);
      },
      set: (mapKey, value) => {
        if (value === undefined) throw new TypeError(`${what}: set(key, undefined); use delete(key)`);
        write(mapKey, encodeValue(what, value));
      },
      has: (mapKey) => lookup(mapKey).value !== undefined,
      delete: (mapKey) => write(mapKey, undefined),
      clear: () => this.clearContainer(metaKeyOf(), StateTag.MapElements, name),
      entries: async function* () {
        const elements = scan();
        if (elements === undefined) return;
        for await (const [element, value] of elements) yield [JSON.parse(element), JSON.parse(value)];
      },
      keys: async function* () {
        const elements = scan();
        if (elements === undefined) return;
        for await (const [element] of elements) yield JSON.parse(element);
      },
      values: async function* () {
        const elements = scan();
        if (elements === undefined) return;
        for await (const [, value] of elements) yield JSON.parse(value);
      },
    };
    this.maps.set(name, api);
    return api;
  }

  private listState(name: string): ListStateApi {
    let api = this.lists.get(name);
    if (api !== undefined) return api;
    checkStateName(name);
    const what = `list state "${name}"`;
    const metaKeyOf = () => stateKey(this.keyGroup, StateTag.ListMeta, name, this.keyJson());
    const containerOf = (meta: ContainerMeta) =>
      containerKey(this.keyGroup, StateTag.ListElements, name, this.keyJson(), meta.g);
    const scan = () => {
      const meta = this.readMeta(metaKeyOf());
      return meta.n === 0 ? undefined : this.store.elements(containerOf(meta));
    };
    api = {
      add: (value) => {
        const json = encodeValue(what, value);
        const metaKey = metaKeyOf();
        const meta = this.readMeta(metaKey);
        const position = meta.p ?? 0;
        const container = containerOf(meta);
        const element = listPosition(position);
        const size = container.length + 1 + element.length + json.length;
        this.account(undefined, size);
        this.store.elementPut(container, element, json);
        this.store.put(
          metaKey,
          JSON.stringify({ g: meta.g, n: meta.n + 1, b: meta.b + size, p: position + 1 }),
        );
      },
      values: async function* () {
        const elements = scan();
        if (elements === undefined) return;
        for await (const [, value] of elements) yield JSON.parse(value);
      },
      clear: () => this.clearContainer(metaKeyOf(), StateTag.ListElements, name),
    };
    this.lists.set(name, api);
    return api;
  }
}
