// How keyed state lies in a store, for reading it back (the state browser, its sizes, a key's
// state and a compare): every key of one state of one key group is one space (stateKeys.ts),
// value state one entry per key, map and list state a meta entry per key (its generation and
// element count) and its elements in a container space of their own. Spaces are found by seeking
// from one to the next, skipping elements; an entry is described with its first elements only.
import type { StateEntryView } from '../protocol/runProtocol.js';
import { containerSpace, decodeKey, keyGroupPrefix, StateTag } from '../state/stateKeys.js';
import type { StoreBrowser } from '../state/storeBrowser.js';

/** Elements of a map or list shown with its key; the count says how many there are in all. */
export const ELEMENTS_SHOWN = 10;

export type EntryTag = StateTag.Value | StateTag.MapMeta | StateTag.ListMeta;

export const TYPE_OF: Readonly<Record<EntryTag, StateEntryView['type']>> = {
  [StateTag.Value]: 'value',
  [StateTag.MapMeta]: 'map',
  [StateTag.ListMeta]: 'list',
};

export const ELEMENTS_OF: Readonly<Record<EntryTag, StateTag | undefined>> = {
  [StateTag.Value]: undefined,
  [StateTag.MapMeta]: StateTag.MapElements,
  [StateTag.ListMeta]: StateTag.ListElements,
};

export function isEntryTag(tag: string): tag is EntryTag {
  return tag === StateTag.Value || tag === StateTag.MapMeta || tag === StateTag.ListMeta;
}

/** One (key group, state) space: every key of one value state, or every meta entry of one map or list state. */
export interface Space {
  readonly space: string;
  readonly keyGroup: number;
  readonly tag: EntryTag;
  readonly name: string;
}

/** One key of one state, the unit of a page; ordered by key text, then state name, then type. */
export interface Candidate {
  readonly space: Space;
  readonly keyText: string;
}

/** Every key of a space sorts below this ("\0" ends a space, "\x01" is the next character). */
export function spaceEnd(space: string): string {
  return `${space.slice(0, -1)}\x01`;
}

/** The spaces of a key-group range, found by seeking from each to the next: one look-up per space. */
export async function findSpaces(
  browser: StoreBrowser,
  keyGroups: { start: number; end: number },
): Promise<Space[]> {
  const spaces: Space[] = [];
  const lt = keyGroupPrefix(keyGroups.end + 1);
  let from = keyGroupPrefix(keyGroups.start);
  for (;;) {
    const [key] = await browser.keys({ gte: from, lt }, 1);
    if (key === undefined) return spaces;
    const group = key.slice(0, 4);
    const tag = key.charAt(4);
    if (isEntryTag(tag)) {
      const space = key.slice(0, key.indexOf('\0') + 1);
      spaces.push({ space, keyGroup: Number.parseInt(group, 16), tag, name: space.slice(5, -1) });
      from = spaceEnd(space);
    } else {
      // Elements of maps or lists (or anything else): past all of them in one seek.
      from = group + String.fromCharCode(tag.charCodeAt(0) + 1);
    }
  }
}

export interface ContainerMeta {
  readonly g: number;
  readonly n: number;
  readonly b: number;
}

/** Values in full; maps and lists as their count and first elements, read from their own space. */
export async function describeEntries(
  browser: StoreBrowser,
  page: readonly Candidate[],
): Promise<StateEntryView[]> {
  const fullKeys = page.map((c) => c.space.space + c.keyText);
  const values = await browser.values(fullKeys);
  return Promise.all(
    page.map(async (candidate, i): Promise<StateEntryView> => {
      const { space, keyText } = candidate;
      const json = values[i];
      const key = decodeKey(keyText);
      const type = TYPE_OF[space.tag];
      // Deleted between the key scan and the read (a live run goes on): shown as gone, not skipped.
      if (json === undefined) return { key, state: space.name, type, value: undefined, bytes: 0 };
      const elementTag = ELEMENTS_OF[space.tag];
      if (elementTag === undefined) {
        return {
          key,
          state: space.name,
          type,
          value: JSON.parse(json),
          bytes: fullKeys[i]!.length + json.length,
        };
      }
      const meta = JSON.parse(json) as ContainerMeta;
      const elements = containerSpace(space.keyGroup, elementTag, space.name, keyText, meta.g);
      const first =
        meta.n === 0 ? [] : await browser.entries({ gte: elements, lt: spaceEnd(elements) }, ELEMENTS_SHOWN);
      const value = first.map(([full, text]) => {
        const element = JSON.parse(text) as unknown;
        return elementTag === StateTag.MapElements
          ? [decodeKey(full.slice(elements.length)), element]
          : element;
      });
      const last = first.at(-1)?.[0].slice(elements.length);
      return {
        key,
        state: space.name,
        type,
        value,
        elementCount: meta.n,
        ...(meta.n > first.length && last !== undefined ? { elementsAfter: JSON.stringify(last) } : {}),
        bytes: meta.b,
      };
    }),
  );
}
