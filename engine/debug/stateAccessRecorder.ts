// ctx.state as user code sees it in a debug run: the same handles, each call also reported as a
// StateAccess (state, key, element, value before -> after), so a step shows the state it read
// and wrote. Values are JSON copies taken at the call. Only debug runs build this (JobRun's
// DebugHooks); a normal run's ctx.state is the plain one.
import type { StateAccess } from '../protocol/runProtocol.js';
import type { KeyedState, ListStateApi, MapStateApi, StateApi, ValueStateApi } from '../state/keyedState.js';
import { jsonCopy } from './jsonCopy.js';

export interface StateAccessSink {
  /** Whether to take the values (false while replaying far from where the user stands). */
  readonly copying: boolean;
  stateAccess(access: StateAccess): void;
}

export function instrumentStateApi(api: StateApi, state: KeyedState, sink: StateAccessSink): StateApi {
  const report = (
    name: string,
    type: StateAccess['type'],
    op: StateAccess['op'],
    values: { element?: unknown; before?: unknown; after?: unknown } = {},
  ) => {
    const access: { -readonly [K in keyof StateAccess]: StateAccess[K] } = {
      state: name,
      type,
      op,
      key: jsonCopy(state.currentKey),
    };
    if ('element' in values) access.element = jsonCopy(values.element);
    if (values.before !== undefined) access.before = jsonCopy(values.before);
    if (values.after !== undefined) access.after = jsonCopy(values.after);
    sink.stateAccess(access);
  };
  const values = new Map<string, ValueStateApi>();
  const maps = new Map<string, MapStateApi>();
  const lists = new Map<string, ListStateApi>();

  const valueState = (name: string): ValueStateApi => {
    let handle = values.get(name);
    if (handle !== undefined) return handle;
    const plain = api.value(name);
    handle = {
      get: () => {
        const value = plain.get();
        report(name, 'value', 'read', sink.copying ? { before: value } : {});
        return value;
      },
      set: (value) => {
        const before = sink.copying ? plain.get() : undefined;
        plain.set(value);
        report(name, 'value', value === undefined ? 'delete' : 'write', { before, after: value });
      },
      clear: () => {
        const before = sink.copying ? plain.get() : undefined;
        plain.clear();
        report(name, 'value', 'clear', { before });
      },
    };
    values.set(name, handle);
    return handle;
  };

  const mapState = (name: string): MapStateApi => {
    let handle = maps.get(name);
    if (handle !== undefined) return handle;
    const plain = api.map(name);
    // The element is named even when values are not copied: record traces need it (stateCells.ts).
    const element = (key: unknown, extra: { before?: unknown; after?: unknown } = {}) =>
      sink.copying ? { element: key, ...extra } : { element: key };
    handle = {
      get: (key) => {
        const value = plain.get(key);
        report(name, 'map', 'read', element(key, { before: value }));
        return value;
      },
      set: (key, value) => {
        const before = sink.copying ? plain.get(key) : undefined;
        plain.set(key, value);
        report(name, 'map', 'write', element(key, { before, after: value }));
      },
      has: (key) => {
        const before = sink.copying ? plain.get(key) : undefined;
        const found = plain.has(key);
        report(name, 'map', 'read', element(key, { before }));
        return found;
      },
      delete: (key) => {
        const before = sink.copying ? plain.get(key) : undefined;
        const deleted = plain.delete(key);
        report(name, 'map', 'delete', element(key, { before }));
        return deleted;
      },
      clear: () => {
        plain.clear();
        report(name, 'map', 'clear');
      },
      // A scan is one read of the whole map: elements are not copied one by one.
      entries: () => {
        report(name, 'map', 'read');
        return plain.entries();
      },
      keys: () => {
        report(name, 'map', 'read');
        return plain.keys();
      },
      values: () => {
        report(name, 'map', 'read');
        return plain.values();
      },
    };
    maps.set(name, handle);
    return handle;
  };

  const listState = (name: string): ListStateApi => {
    let handle = lists.get(name);
    if (handle !== undefined) return handle;
    const plain = api.list(name);
    handle = {
      add: (value) => {
        plain.add(value);
        report(name, 'list', 'write', sink.copying ? { after: value } : {});
      },
      values: () => {
        report(name, 'list', 'read');
        return plain.values();
      },
      clear: () => {
        plain.clear();
        report(name, 'list', 'clear');
      },
    };
    lists.set(name, handle);
    return handle;
  };

  return { value: valueState, map: mapState, list: listState };
}
