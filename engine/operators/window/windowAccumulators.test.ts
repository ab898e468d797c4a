// The accumulators held on the heap, by key and then window: a key's windows share one array,
// from which a window that goes is taken out of any place, and keys that stop coming are let go.
import { describe, expect, it } from 'vitest';
import { keyGroupOf } from '../../graph/keyGroups.js';
import type { TimerService } from '../../runtime/timers.js';
import type { KeyedState, MapStateApi } from '../../state/keyedState.js';
import { encodeKey } from '../../state/stateKeys.js';
import { builtinAggregate } from './builtinAggregates.js';
import { WindowAccumulators } from './windowAccumulators.js';

function held(size: number) {
  // Nothing reaches the store here (no checkpoint, no restore): the key is all it needs.
  const state = {
    currentKeyGroup: 0,
    currentKey: undefined as unknown,
    currentKeyEncoded: () => encodeKey(state.currentKey),
    setKey(keyGroup: number, key: unknown) {
      state.currentKeyGroup = keyGroup;
      state.currentKey = key;
    },
  };
  const store = {} as MapStateApi;
  const fired: string[] = [];
  let watermark = Number.NEGATIVE_INFINITY;
  const timers = { register() {}, delete() {} } as unknown as TimerService;
  const windows = new WindowAccumulators(
    state as unknown as KeyedState,
    store,
    builtinAggregate('count', undefined),
    Number.NEGATIVE_INFINITY,
    {
      size,
      allowedLateness: 0,
      timers,
      watermark: () => watermark,
      fire: (start, end, acc) => fired.push(`${state.currentKey} [${start}, ${end}) ${acc}`),
    },
  );
  const at = (key: string) => state.setKey(keyGroupOf(key, 128), key);
  const advance = (to: number) => {
    watermark = to;
    windows.advance(to);
  };
  return { windows, fired, at, advance };
}

describe('window accumulators by key', () => {
  it('a window taken out of the middle of a key’s windows leaves the others whole', () => {
    const h = held(30);
    h.at('a');
    for (const start of [0, 10, 20]) h.windows.add(start, {});
    h.windows.add(20, {});
    h.windows.add(0, {});
    // As a cleanup timer would: the middle window goes; the last one takes its place.
    h.windows.delete(10);
    h.windows.add(20, {});
    h.advance(1000);
    expect(h.fired).toEqual(['a [0, 30) 2', 'a [20, 50) 3']);
    expect(h.windows.size()).toEqual({ entries: 0, bytes: 0, keys: 0 });
  });

  it('a key with more windows than its own fields hold keeps each one’s count', () => {
    const h = held(60);
    h.at('a');
    const starts = [0, 10, 20, 30, 40, 50, 60];
    starts.forEach((start, i) => {
      for (let n = 0; n <= i; n++) h.windows.add(start, {});
    });
    // From the fields and from beyond them; the last window moves into each place that frees up.
    h.windows.delete(10);
    h.windows.delete(50);
    h.windows.add(60, {});
    h.windows.add(0, {});
    h.advance(1000);
    expect(h.fired).toEqual([
      'a [0, 60) 2',
      'a [20, 80) 3',
      'a [30, 90) 4',
      'a [40, 100) 5',
      'a [60, 120) 8',
    ]);
    expect(h.windows.size()).toEqual({ entries: 0, bytes: 0, keys: 0 });
  });

  it('keys that stop coming are let go within a few windows; those that keep coming stay', () => {
    const h = held(10);
    for (let window = 0; window < 40; window++) {
      const start = window * 10;
      for (let i = 0; i < 2000; i++) {
        h.at(`w${window}-${i}`);
        h.windows.add(start, {});
      }
      h.at('steady');
      h.windows.add(start, {});
      h.advance(start + 9);
      expect(h.windows.keysKnown).toBeLessThanOrEqual(2001 + 1024 + 2001);
    }
    expect(h.fired).toHaveLength(40 * 2001);
    expect(h.fired.filter((line) => line.startsWith('steady'))).toHaveLength(40);
  });
});
