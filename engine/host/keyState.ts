// One key's state, found by the key alone: the key-group formula (graph/keyGroups.ts, Flink's)
// says which key group holds it and so which subtask owns it, and within that key group each
// state's entry of the key is one look-up. So a key is found among any number of subtasks and
// keys without browsing them, and a map or list of it is read a page of elements at a time.
import { keyGroupOf, subtaskOfKeyGroup } from '../graph/keyGroups.js';
import type { KeyTimersView, StateElementsPage, StateEntryView } from '../protocol/runProtocol.js';
import { containerSpace, decodeKey, encodeKey, StateTag, stateSpace } from '../state/stateKeys.js';
import { compareUtf8, type KeyRange, type StoreBrowser } from '../state/storeBrowser.js';
import { readKeyTimers } from './keyTimers.js';
import { type ContainerMeta, describeEntries, findSpaces, spaceEnd } from './stateSpaces.js';

/** Where a key lives among `parallelism` subtasks: its key group and the subtask that owns it. */
export function locateKey(
  key: unknown,
  parallelism: number,
  maxParallelism: number,
): { keyGroup: number; subtask: number } {
  const keyGroup = keyGroupOf(key, maxParallelism);
  return { keyGroup, subtask: subtaskOfKeyGroup(keyGroup, parallelism, maxParallelism) };
}

/** Every state the key holds, by name (a map or list emptied again holds none), and its timers. */
export async function readKeyState(
  browser: StoreBrowser,
  keyGroup: number,
  key: unknown,
): Promise<{ entries: StateEntryView[]; timers?: KeyTimersView }> {
  const keyText = encodeKey(key);
  const spaces = await findSpaces(browser, { start: keyGroup, end: keyGroup });
  const described = await describeEntries(
    browser,
    spaces.map((space) => ({ space, keyText })),
  );
  // Not there (no such entry in this key group), or a map or list emptied again: no state.
  const entries = described
    .filter((e) => e.bytes > 0)
    .sort((a, b) => compareUtf8(a.state, b.state) || compareUtf8(a.type, b.type));
  const [timers] = await readKeyTimers(browser, [{ keyGroup, keyText }]);
  return { entries, ...(timers === undefined ? {} : { timers }) };
}

const ELEMENT_TAGS = {
  map: [StateTag.MapMeta, StateTag.MapElements],
  list: [StateTag.ListMeta, StateTag.ListElements],
} as const;

/** A list's element text is its position: in a list that is only added to, its index. */
export function elementOf(type: 'map' | 'list', text: string): unknown {
  return type === 'map' ? decodeKey(text) : Number.parseInt(text, 36);
}

/** The cursor of a page of elements: the last element's text, as JSON. */
function decodeElementCursor(after: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(after);
  } catch {
    parsed = undefined;
  }
  if (typeof parsed !== 'string') {
    throw new Error(
      'state.elements: params.after is not a cursor this host handed out (pass a page\'s "next" or an entry\'s "elementsAfter")',
    );
  }
  return parsed;
}

/** The meta entry of one key's map or list, or undefined when it has none. */
export async function readContainerMeta(
  browser: StoreBrowser,
  keyGroup: number,
  type: 'map' | 'list',
  state: string,
  keyText: string,
): Promise<ContainerMeta | undefined> {
  const [json] = await browser.values([stateSpace(keyGroup, ELEMENT_TAGS[type][0], state) + keyText]);
  return json === undefined ? undefined : (JSON.parse(json) as ContainerMeta);
}

/** The space of one key's map or list elements (its generation, from its meta entry). */
export function elementSpace(
  keyGroup: number,
  type: 'map' | 'list',
  state: string,
  keyText: string,
  meta: ContainerMeta,
): string {
  return containerSpace(keyGroup, ELEMENT_TAGS[type][1], state, keyText, meta.g);
}

/** One page of a key's map or list elements, in order, after the cursor `after`. */
export async function readElements(
  browser: StoreBrowser,
  keyGroup: number,
  key: unknown,
  query: { state: string; type: 'map' | 'list'; after?: string; limit: number },
): Promise<StateElementsPage> {
  const keyText = encodeKey(key);
  const from = query.after === undefined ? undefined : decodeElementCursor(query.after);
  const meta = await readContainerMeta(browser, keyGroup, query.type, query.state, keyText);
  if (meta === undefined || meta.n === 0) return { elements: [], count: 0 };
  const space = elementSpace(keyGroup, query.type, query.state, keyText, meta);
  const lt = spaceEnd(space);
  const range: KeyRange = from === undefined ? { gte: space, lt } : { gt: space + from, lt };
  const read = await browser.entries(range, query.limit + 1);
  const page = read.slice(0, query.limit);
  const last = page.at(-1)?.[0].slice(space.length);
  return {
    elements: page.map(([full, json]) => ({
      element: elementOf(query.type, full.slice(space.length)),
      value: JSON.parse(json) as unknown,
    })),
    count: meta.n,
    ...(read.length > query.limit && last !== undefined ? { next: JSON.stringify(last) } : {}),
  };
}
