// ctx.state in a Flink worker: the keyed state of one batch, as a cache over what the runner
// holds. The runner keeps the state (RocksDB, in Flink's checkpoints); the worker sees it only
// through this cache, which starts each batch empty, fills from the value texts the runner sends
// with each record (`s`) and from `read` requests it answers at once, and keeps every write in
// order for the batch's `done` (flink/PROTOCOL.md, "The worker pipe").
//
// What user code sees is the local engine's state API (state/keyedState.ts) with its words:
// value semantics (get returns a fresh copy, set stores one, as JSON text here as on LevelDB),
// the same refusals for bad names and values, map entries in the order of their encoded keys
// (UTF-8, as LevelDB and the heap backend read them), a list's values as they were plus what
// was added, unless it was cleared.
import {
  type ListStateApi,
  type MapStateApi,
  type StateApi,
  undefinedMapValue,
  type ValueStateApi,
} from '../state/keyedState.js';
import { jsonTextCodec } from '../state/stateCodecs.js';
import { checkStateName, decodeKey, encodeKey } from '../state/stateKeys.js';
import { compareUtf8 } from '../state/storeBrowser.js';

/** State as the runner holds it: JSON text, or null where there is none. */
export type StateText = string | null;

/**
 * Asks the runner for state of the key of record `i` as it was when the batch began. Called
 * synchronously in the middle of user code (a get returns its value, not a promise), so the
 * worker blocks on the pipe for the answer.
 */
export interface StateReader {
  value(i: number, name: string): StateText;
  mapElement(i: number, name: string, mapKey: string): StateText;
  mapEntries(i: number, name: string): readonly (readonly [string, string])[];
  list(i: number, name: string): readonly string[];
}

/** A write of the batch, as `done` carries it: the record's index first (its key is the one). */
export type StateWrite =
  | readonly [i: number, op: 'v', name: string, text: StateText]
  | readonly [i: number, op: 'm', name: string, mapKey: string, text: StateText]
  | readonly [i: number, op: 'mc', name: string]
  | readonly [i: number, op: 'l', name: string, text: string]
  | readonly [i: number, op: 'lc', name: string]
  /** A timer of the item's key: register (`te`, `tp`) or delete (`xe`, `xp`), event or processing time. */
  | readonly [i: number, op: 'te' | 'tp' | 'xe' | 'xp', ts: number];

interface MapCache {
  /** Elements known: the runner's, then this batch's writes over them (null: deleted). */
  readonly elements: Map<string, StateText>;
  /** Every element is in `elements` (read whole, or cleared in this batch). */
  complete: boolean;
}

interface ListCache {
  /** The whole list, once read or cleared; undefined until then. */
  items: string[] | undefined;
  /** Added before the list was read: they follow the runner's values. */
  readonly added: string[];
}

/** What the batch knows of one key's state. */
interface KeyCache {
  readonly values: Map<string, StateText>;
  readonly maps: Map<string, MapCache>;
  readonly lists: Map<string, ListCache>;
}

export class BatchState {
  private keys = new Map<string, KeyCache>();
  /**
   * The value states the batch before ended with, per key. The runner read this batch's `s`
   * while that one was still out (two batches in flight), so where the two differ these are the
   * newer: only the worker writes the operator's state.
   */
  private previous = new Map<string, KeyCache>();
  private current: KeyCache | undefined;
  private index = -1;
  private log: StateWrite[] = [];
  private readonly valueApis = new Map<string, ValueStateApi>();
  private readonly mapApis = new Map<string, MapStateApi>();
  private readonly listApis = new Map<string, ListStateApi>();
  /**
   * What user code gets as ctx.state. Closures only: the context hardens it (and each handle it
   * gives out) without freezing this object.
   */
  readonly api: StateApi = {
    value: (name) => this.valueState(name),
    map: (name) => this.mapState(name),
    list: (name) => this.listState(name),
  };

  constructor(private readonly reader: StateReader) {}

  /** A new batch: nothing written, nothing known but the values the last batch ended with. */
  beginBatch(): void {
    this.previous = this.keys;
    this.keys = new Map();
    this.current = undefined;
    this.index = -1;
    this.log = [];
  }

  /**
   * Record `i` of the batch is next, with its key and the value texts the runner read for it.
   * Those are the state as the batch began: where this batch already knows better (an earlier
   * record of the same key read or wrote it), the cache wins.
   */
  setRecord(i: number, key: unknown, sent: Readonly<Record<string, StateText>> | undefined): void {
    const keyText = encodeKey(key);
    let cache = this.keys.get(keyText);
    if (cache === undefined) {
      // Map and list reads need no carrying: the runner answers them after applying the batch before.
      cache = { values: new Map(this.previous.get(keyText)?.values), maps: new Map(), lists: new Map() };
      this.keys.set(keyText, cache);
    }
    if (sent !== undefined) {
      for (const [name, text] of Object.entries(sent)) {
        if (!cache.values.has(name)) cache.values.set(name, text);
      }
    }
    this.current = cache;
    this.index = i;
  }

  /** A timer of the current item's key, registered or deleted, in order with its state writes. */
  timer(op: 'te' | 'tp' | 'xe' | 'xp', ts: number): void {
    this.key();
    this.log.push([this.index, op, ts]);
  }

  /** The batch's writes, in the order made. */
  writes(): readonly StateWrite[] {
    return this.log;
  }

  private key(): KeyCache {
    if (this.current === undefined) throw new Error('keyed state is used outside a record');
    return this.current;
  }

  private valueState(name: string): ValueStateApi {
    let api = this.valueApis.get(name);
    if (api !== undefined) return api;
    checkStateName(name);
    const what = `value state "${name}"`;
    const text = (): StateText => {
      const values = this.key().values;
      let known = values.get(name);
      if (known === undefined) {
        known = this.reader.value(this.index, name);
        values.set(name, known);
      }
      return known;
    };
    const write = (value: StateText) => {
      this.key().values.set(name, value);
      this.log.push([this.index, 'v', name, value]);
    };
    api = {
      get: () => {
        const known = text();
        return known === null ? undefined : jsonTextCodec.decode(known);
      },
      set: (value) => write(value === undefined ? null : (jsonTextCodec.encode(what, value) as string)),
      clear: () => write(null),
    };
    this.valueApis.set(name, api);
    return api;
  }

  private mapCache(name: string): MapCache {
    const maps = this.key().maps;
    let cache = maps.get(name);
    if (cache === undefined) {
      cache = { elements: new Map(), complete: false };
      maps.set(name, cache);
    }
    return cache;
  }

  private mapState(name: string): MapStateApi {
    let api = this.mapApis.get(name);
    if (api !== undefined) return api;
    checkStateName(name);
    const what = `map state "${name}"`;
    const element = (mapKey: string): StateText => {
      const cache = this.mapCache(name);
      let known = cache.elements.get(mapKey);
      if (known === undefined) {
        known = cache.complete ? null : this.reader.mapElement(this.index, name, mapKey);
        cache.elements.set(mapKey, known);
      }
      return known;
    };
    const put = (mapKey: string, text: StateText) => {
      this.mapCache(name).elements.set(mapKey, text);
      this.log.push([this.index, 'm', name, mapKey, text]);
    };
    /** The map as it stands now, ordered as the local backends order it (read at the call). */
    const snapshot = (): [string, string][] => {
      const cache = this.mapCache(name);
      if (!cache.complete) {
        for (const [mapKey, text] of this.reader.mapEntries(this.index, name)) {
          if (!cache.elements.has(mapKey)) cache.elements.set(mapKey, text);
        }
        cache.complete = true;
      }
      const entries: [string, string][] = [];
      for (const [mapKey, text] of cache.elements) if (text !== null) entries.push([mapKey, text]);
      return entries.sort((a, b) => compareUtf8(a[0], b[0]));
    };
    api = {
      get: (mapKey) => {
        const known = element(encodeKey(mapKey));
        return known === null ? undefined : jsonTextCodec.decode(known);
      },
      set: (mapKey, value) => {
        if (value === undefined) throw undefinedMapValue(what);
        const encoded = encodeKey(mapKey);
        put(encoded, jsonTextCodec.encode(what, value) as string);
      },
      has: (mapKey) => element(encodeKey(mapKey)) !== null,
      delete: (mapKey) => {
        const encoded = encodeKey(mapKey);
        if (element(encoded) === null) return false;
        put(encoded, null);
        return true;
      },
      clear: () => {
        const maps = this.key().maps;
        maps.set(name, { elements: new Map(), complete: true });
        this.log.push([this.index, 'mc', name]);
      },
      entries: async function* () {
        for (const [mapKey, text] of snapshot()) yield [decodeKey(mapKey), jsonTextCodec.decode(text)];
      },
      keys: async function* () {
        for (const [mapKey] of snapshot()) yield decodeKey(mapKey);
      },
      values: async function* () {
        for (const [, text] of snapshot()) yield jsonTextCodec.decode(text);
      },
    };
    this.mapApis.set(name, api);
    return api;
  }

  private listCache(name: string): ListCache {
    const lists = this.key().lists;
    let cache = lists.get(name);
    if (cache === undefined) {
      cache = { items: undefined, added: [] };
      lists.set(name, cache);
    }
    return cache;
  }

  private listState(name: string): ListStateApi {
    let api = this.listApis.get(name);
    if (api !== undefined) return api;
    checkStateName(name);
    const what = `list state "${name}"`;
    /** The list now, read at the call: adds and clears during the scan do not show (as locally). */
    const snapshot = (): string[] => {
      const cache = this.listCache(name);
      if (cache.items === undefined) {
        cache.items = [...this.reader.list(this.index, name), ...cache.added];
        cache.added.length = 0;
      }
      return [...cache.items];
    };
    api = {
      add: (value) => {
        const text = jsonTextCodec.encode(what, value) as string;
        const cache = this.listCache(name);
        (cache.items ?? cache.added).push(text);
        this.log.push([this.index, 'l', name, text]);
      },
      values: async function* () {
        for (const text of snapshot()) yield jsonTextCodec.decode(text);
      },
      clear: () => {
        this.key().lists.set(name, { items: [], added: [] });
        this.log.push([this.index, 'lc', name]);
      },
    };
    this.listApis.set(name, api);
    return api;
  }
}
