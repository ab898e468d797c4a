// The state handles KeyedState gives user code are hardened: frozen, their functions and the
// prototypes of their async iterators too, in a normal run and behind the debugger's wrapper.
import { describe, expect, it } from 'vitest';
import { KeyedState, type StateApi } from './keyedState.js';
import { MemoryKvStore } from './memoryKvStore.js';

/** What the debugger does to ctx.state: handles of its own, wrapping the plain ones. */
function wrapping(api: StateApi): StateApi {
  return {
    value: (name) => ({ ...api.value(name) }),
    map: (name) => ({ ...api.map(name) }),
    list: (name) => ({ ...api.list(name) }),
  };
}

describe.each([
  ['a normal run', undefined],
  ['a debug run', wrapping],
] as const)('state handles in %s', (_name, instrument) => {
  const state = new KeyedState(new MemoryKvStore(), instrument);
  state.setKey(0, 'k');
  const { api } = state;

  it('are frozen, with their functions', () => {
    const handles = [api, api.value('v'), api.map('m'), api.list('l')];
    for (const handle of handles) {
      expect(Object.isFrozen(handle)).toBe(true);
      for (const method of Object.values(handle)) expect(Object.isFrozen(method)).toBe(true);
    }
    expect(Object.isFrozen(api.map('m').entries.prototype)).toBe(true);
  });

  it('throw on assignment in strict code, and still work', () => {
    const value = api.value('v');
    expect(() => {
      (value as { get: unknown }).get = () => 'forged';
    }).toThrow(TypeError);
    expect(() => {
      (api.list('l') as unknown as { extra: number }).extra = 1;
    }).toThrow(TypeError);
    expect(() => {
      (api as { value: unknown }).value = () => undefined;
    }).toThrow(TypeError);
    value.set({ n: 1 });
    expect(value.get()).toEqual({ n: 1 });
  });
});
