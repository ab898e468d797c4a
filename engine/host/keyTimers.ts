// The timers of the keys on a state page, for the designer's state browser to list under each
// key. Timers sit in a space per key group and time domain ordered by time, then key
// (state/timerStore.ts): a key's timers cannot be sought directly, so each key group on the
// page has its timer spaces read, keys only and at most TIMERS_READ of each, and those of the
// page's keys kept. A page of 50 keys therefore reads a bounded amount, whatever the state holds.
import type { KeyTimersView } from '../protocol/runProtocol.js';
import { decodeKey } from '../state/stateKeys.js';
import type { StoreBrowser } from '../state/storeBrowser.js';
import { parseTimerEntry, type TimerDomain, timerSpace } from '../state/timerKeys.js';

/** Timers shown with a key; `count` says how many there are. */
export const TIMERS_SHOWN = 10;
/** Timer entries read from one key group and domain for one page. */
export const TIMERS_READ = 2000;

const DOMAINS: readonly TimerDomain[] = ['eventTime', 'processingTime'];

/** A key on the page: its key group and its key as the store writes it. */
export interface PageKey {
  readonly keyGroup: number;
  readonly keyText: string;
}

/** The page's keys that have timers, in the order given, each with its first timers (event time first). */
export async function readKeyTimers(
  browser: StoreBrowser,
  keys: readonly PageKey[],
): Promise<KeyTimersView[]> {
  const wanted = new Map<number, Set<string>>();
  for (const { keyGroup, keyText } of keys) {
    let group = wanted.get(keyGroup);
    if (group === undefined) {
      group = new Set();
      wanted.set(keyGroup, group);
    }
    group.add(keyText);
  }
  const found = new Map<
    string,
    { timers: KeyTimersView['timers'][number][]; count: number; atLeast: boolean }
  >();
  for (const [keyGroup, keyTexts] of wanted) {
    for (const domain of DOMAINS) {
      const space = timerSpace(keyGroup, domain);
      // "\0" ends the space's name: every entry of it sorts below the name followed by "\x01".
      const entries = await browser.keys({ gte: space, lt: `${space.slice(0, -1)}\x01` }, TIMERS_READ);
      const cut = entries.length === TIMERS_READ;
      for (const full of entries) {
        const { timestamp, keyText } = parseTimerEntry(full.slice(space.length));
        if (!keyTexts.has(keyText)) continue;
        const id = `${keyGroup}\0${keyText}`;
        let key = found.get(id);
        if (key === undefined) {
          key = { timers: [], count: 0, atLeast: false };
          found.set(id, key);
        }
        key.count++;
        if (key.timers.length < TIMERS_SHOWN) key.timers.push({ domain, timestamp });
      }
      if (cut)
        for (const keyText of keyTexts) {
          const key = found.get(`${keyGroup}\0${keyText}`);
          if (key !== undefined) key.atLeast = true;
        }
    }
  }
  const views: KeyTimersView[] = [];
  const listed = new Set<string>();
  for (const { keyGroup, keyText } of keys) {
    const id = `${keyGroup}\0${keyText}`;
    const key = found.get(id);
    if (key === undefined || listed.has(id)) continue;
    listed.add(id);
    views.push({
      key: decodeKey(keyText),
      timers: key.timers,
      count: key.count,
      ...(key.atLeast ? { atLeast: true } : {}),
    });
  }
  return views;
}
