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
// Asked for (`sizes`), a page also counts the subtask's distinct keys, and its keys, entries and
// bytes per state (stateSizes.ts).

import type { StatePage } from '../protocol/runProtocol.js';
import { compareUtf8, type KeyRange, type StoreBrowser } from '../state/storeBrowser.js';
import { readKeyTimers } from './keyTimers.js';
import { readStateSizes } from './stateSizes.js';
import {
  type Candidate,
  describeEntries,
  type EntryTag,
  findSpaces,
  isEntryTag,
  spaceEnd,
} from './stateSpaces.js';

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
  const entries = await describeEntries(browser, page);
  const timers = await readKeyTimers(
    browser,
    page.map((c) => ({ keyGroup: c.space.keyGroup, keyText: c.keyText })),
  );
  return {
    entries,
    ...(best.length > query.limit ? { next: encodeCursor(page.at(-1)!) } : {}),
    ...(timers.length > 0 ? { timers } : {}),
    ...(query.sizes === true ? await readStateSizes(browser, keyGroups) : {}),
  };
}
