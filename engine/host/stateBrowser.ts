// A page of one subtask's keyed state, in the order of its keys, for the designer's state browser.
//
// In the store every key sits under its key group and state (stateKeys.ts), so the keys of one
// state are sorted only within a key group. A page is therefore a merge: the (key group, state)
// spaces of the subtask are found by seeking from one to the next (the elements of maps and lists
// are skipped by seeking past them, never read), each space gives its first keys after the cursor
// and within the prefix, and the smallest `limit` of them form the page. Only values and meta
// entries of the page itself are read; of a map or list only its count and its first elements,
// so a state far bigger than memory is browsed a page at a time.
//
// Asked for (`sizes`), a page also counts the subtask's keys and bytes per state: the metrics
// have only the subtask's totals, and a transaction operator's tables are its value states.
// That reads every key of a value state (and a container's meta entry, never its elements), a
// chunk at a time: what it costs grows with the state, so the designer asks only for
// transaction operators.

import type { StateEntryView, StatePage, StateSizeView } from '../protocol/runProtocol.js';
import { containerSpace, decodeKey, keyGroupPrefix, StateTag } from '../state/stateKeys.js';
import { compareUtf8, type KeyRange, type StoreBrowser } from '../state/storeBrowser.js';
import { readKeyTimers } from './keyTimers.js';

/** Elements of a map or list shown with its key; the count says how many there are in all. */
export const ELEMENTS_SHOWN = 10;

type EntryTag = StateTag.Value | StateTag.MapMeta | StateTag.ListMeta;

const TYPE_OF: Readonly<Record<EntryTag, StateEntryView['type']>> = {
  [StateTag.Value]: 'value',
  [StateTag.MapMeta]: 'map',
  [StateTag.ListMeta]: 'list',
};

const ELEMENTS_OF: Readonly<Record<EntryTag, StateTag | undefined>> = {
  [StateTag.Value]: undefined,
  [StateTag.MapMeta]: StateTag.MapElements,
  [StateTag.ListMeta]: StateTag.ListElements,
};

function isEntryTag(tag: string): tag is EntryTag {
  return tag === StateTag.Value || tag === StateTag.MapMeta || tag === StateTag.ListMeta;
}

/** One (key group, state) space: every key of one value state, or every meta entry of one map or list state. */
interface Space {
  readonly space: string;
  readonly keyGroup: number;
  readonly tag: EntryTag;
  readonly name: string;
}

/** One key of one state, the unit of a page; ordered by key text, then state name, then type. */
interface Candidate {
  readonly space: Space;
  readonly keyText: string;
}

/** Where a page ends, handed to the client as an opaque string and checked when it comes back. */
interface Cursor {
  readonly keyText: string;
  readonly name: string;
  readonly tag: EntryTag;
}

export interface StatePageQuery {
  /** The start of the key as text: a string key as it is, any other key as its JSON. */
  readonly prefix?: string;
  readonly after?: string;
  readonly limit: number;
  /** Also count keys and bytes per state (StatePage.states). */
  readonly sizes?: boolean;
}

/** Entries read at a time while counting sizes. */
const SIZE_CHUNK = 1000;

/** Every key of a space sorts below this ("\0" ends a space, "\x01" is the next character). */
function spaceEnd(space: string): string {
  return `${space.slice(0, -1)}\x01`;
}

/** The first string above every string that starts with `prefix` (in UTF-8 order). */
function prefixEnd(prefix: string): string {
  const last = prefix.codePointAt(prefix.length - 1)!;
  const head = prefix.slice(0, prefix.length - (last > 0xffff ? 2 : 1));
  if (last === 0x10ffff) return `${head}\u{10ffff}\u{10ffff}`;
  // The surrogates are no characters of their own: after U+D7FF comes U+E000.
  return head + String.fromCodePoint(last === 0xd7ff ? 0xe000 : last + 1);
}

function compareCandidates(a: Candidate, b: Candidate): number {
  return (
    compareUtf8(a.keyText, b.keyText) ||
    compareUtf8(a.space.name, b.space.name) ||
    compareUtf8(a.space.tag, b.space.tag)
  );
}

function encodeCursor(candidate: Candidate): string {
  return JSON.stringify([candidate.keyText, candidate.space.name, candidate.space.tag]);
}

function decodeCursor(after: string): Cursor {
  let parsed: unknown;
  try {
    parsed = JSON.parse(after);
  } catch {
    parsed = undefined;
  }
  if (
    !Array.isArray(parsed) ||
    parsed.length !== 3 ||
    typeof parsed[0] !== 'string' ||
    typeof parsed[1] !== 'string' ||
    typeof parsed[2] !== 'string' ||
    !isEntryTag(parsed[2])
  ) {
    throw new Error('state.page: params.after is not a cursor this host handed out (pass a page\'s "next")');
  }
  return { keyText: parsed[0], name: parsed[1], tag: parsed[2] };
}

/** The spaces of a key-group range, found by seeking from each to the next: one look-up per space. */
async function findSpaces(
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

/** The key-text ranges a prefix selects: string keys as they are, other keys after "\x01" as JSON. */
function keyTextRanges(prefix: string | undefined): [string, string | undefined][] {
  if (prefix === undefined) return [['', undefined]];
  const ranges: [string, string | undefined][] = [[prefix, prefixEnd(prefix)]];
  if (!prefix.startsWith('\x01')) ranges.unshift([`\x01${prefix}`, `\x01${prefixEnd(prefix)}`]);
  return ranges;
}

/** Reads one page. `keyGroups` are the subtask's own, so a page never shows another subtask's keys. */
export async function readStatePage(
  browser: StoreBrowser,
  keyGroups: { start: number; end: number },
  query: StatePageQuery,
): Promise<StatePage> {
  const cursor = query.after === undefined ? undefined : decodeCursor(query.after);
  const want = query.limit + 1;
  /** The smallest `want` candidates so far, in order. */
  let best: Candidate[] = [];
  for (const space of await findSpaces(browser, keyGroups)) {
    // After the cursor's key: from its key text on if this state sorts after the cursor's, past it otherwise.
    const inclusive =
      cursor !== undefined &&
      (compareUtf8(space.name, cursor.name) || compareUtf8(space.tag, cursor.tag)) > 0;
    for (const [from, to] of keyTextRanges(query.prefix)) {
      let lt = to === undefined ? spaceEnd(space.space) : space.space + to;
      const full = best.length === want ? best[want - 1]! : undefined;
      // Nothing past the page's last key so far can make the page: "\0" follows no key text.
      const bound = full === undefined ? undefined : `${space.space}${full.keyText}\0`;
      if (bound !== undefined && compareUtf8(bound, lt) < 0) lt = bound;
      let range: KeyRange = { gte: space.space + from, lt };
      if (cursor !== undefined && compareUtf8(cursor.keyText, from) >= 0) {
        const at = space.space + cursor.keyText;
        range = inclusive ? { gte: at, lt } : { gt: at, lt };
      }
      const keys = await browser.keys(range, want);
      if (keys.length === 0) continue;
      const found = keys.map((key) => ({ space, keyText: key.slice(space.space.length) }));
      best = [...best, ...found].sort(compareCandidates).slice(0, want);
    }
  }
  const page = best.slice(0, query.limit);
  const entries = await describe(browser, page);
  const timers = await readKeyTimers(
    browser,
    page.map((c) => ({ keyGroup: c.space.keyGroup, keyText: c.keyText })),
  );
  return {
    entries,
    ...(best.length > query.limit ? { next: encodeCursor(page.at(-1)!) } : {}),
    ...(timers.length > 0 ? { timers } : {}),
    ...(query.sizes === true ? { states: await readStateSizes(browser, keyGroups) } : {}),
  };
}

/**
 * Keys and bytes per state of a key-group range, counted as KeyedState counts them: a value's
 * full key and value; a map's or list's elements' bytes (its meta entry keeps them), and a key
 * only while it has elements.
 */
export async function readStateSizes(
  browser: StoreBrowser,
  keyGroups: { start: number; end: number },
): Promise<StateSizeView[]> {
  const sizes = new Map<
    string,
    { state: string; type: StateSizeView['type']; keys: number; bytes: number }
  >();
  for (const space of await findSpaces(browser, keyGroups)) {
    const type = TYPE_OF[space.tag];
    const id = `${space.name}\0${type}`;
    let size = sizes.get(id);
    if (size === undefined) {
      size = { state: space.name, type, keys: 0, bytes: 0 };
      sizes.set(id, size);
    }
    const lt = spaceEnd(space.space);
    let range: KeyRange = { gte: space.space, lt };
    for (;;) {
      const chunk = await browser.entries(range, SIZE_CHUNK);
      for (const [full, json] of chunk) {
        if (space.tag === StateTag.Value) {
          size.keys++;
          size.bytes += full.length + json.length;
        } else {
          const meta = JSON.parse(json) as ContainerMeta;
          if (meta.n > 0) size.keys++;
          size.bytes += meta.b;
        }
      }
      if (chunk.length < SIZE_CHUNK) break;
      range = { gt: chunk.at(-1)![0], lt };
    }
  }
  return [...sizes.values()].sort((a, b) => compareUtf8(a.state, b.state) || compareUtf8(a.type, b.type));
}

interface ContainerMeta {
  readonly g: number;
  readonly n: number;
  readonly b: number;
}

/** Values in full; maps and lists as their count and first elements, read from their own space. */
async function describe(browser: StoreBrowser, page: readonly Candidate[]): Promise<StateEntryView[]> {
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
      return { key, state: space.name, type, value, elementCount: meta.n, bytes: meta.b };
    }),
  );
}
