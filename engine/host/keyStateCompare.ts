// One key's state on two sides (two checkpoints, or a checkpoint and the live state), state by
// state: a value's before and after; of a map or list, each element added, removed or changed.
// Both sides keep a map's or list's elements in the same order (their element texts), so they
// are read side by side a chunk at a time and merged: a map far bigger than memory is compared
// a page of changes at a time, never loaded whole. A page stops at `limit` changes, or after
// SCAN_BUDGET elements however few differ, so one request never holds the host for long.
import type { ElementChangeView, StateCompareView } from '../protocol/runProtocol.js';
import { encodeKey, StateTag, stateSpace } from '../state/stateKeys.js';
import { compareUtf8, type KeyRange, type StoreBrowser } from '../state/storeBrowser.js';
import { elementOf, elementSpace, readContainerMeta } from './keyState.js';
import { type ContainerMeta, findSpaces, spaceEnd, TYPE_OF } from './stateSpaces.js';

/** Elements read at a time from each side. */
const CHUNK = 500;
/** Elements one request compares at most (per side), changed or not. */
export const SCAN_BUDGET = 20_000;

type StateType = StateCompareView['type'];

export interface CompareQuery {
  /** Only this state (with `type`), from after `after`: the next page of its changes. */
  readonly state?: string;
  readonly type?: StateType;
  readonly after?: string;
  readonly limit: number;
}

/** The states (name and type) of a key group on one side. */
async function statesOf(browser: StoreBrowser, keyGroup: number): Promise<[string, StateType][]> {
  const spaces = await findSpaces(browser, { start: keyGroup, end: keyGroup });
  return spaces.map((space) => [space.name, TYPE_OF[space.tag]]);
}

function decodeAfter(after: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(after);
  } catch {
    parsed = undefined;
  }
  if (typeof parsed !== 'string') {
    throw new Error(
      'state.compare: params.after is not a cursor this host handed out (pass a state\'s "next")',
    );
  }
  return parsed;
}

/** One side's elements, a chunk at a time. */
class ElementReader {
  private chunk: [string, string][] = [];
  private at = 0;
  private range: KeyRange;
  private done = false;

  constructor(
    private readonly browser: StoreBrowser,
    private readonly space: string,
    after: string | undefined,
  ) {
    const lt = spaceEnd(space);
    this.range = after === undefined ? { gte: space, lt } : { gt: space + after, lt };
  }

  /** [element text, JSON] at hand, or undefined at the end. */
  async head(): Promise<[string, string] | undefined> {
    if (this.at < this.chunk.length) return this.entry(this.at);
    if (this.done) return undefined;
    this.chunk = await this.browser.entries(this.range, CHUNK);
    this.at = 0;
    if (this.chunk.length < CHUNK) this.done = true;
    const last = this.chunk.at(-1);
    if (last !== undefined) this.range = { gt: last[0], lt: this.range.lt };
    return this.chunk.length === 0 ? undefined : this.entry(0);
  }

  private entry(index: number): [string, string] {
    const [full, json] = this.chunk[index]!;
    return [full.slice(this.space.length), json];
  }

  next(): void {
    this.at++;
  }
}

/** A side's map or list of the key: its elements' reader, or none when it holds no elements. */
function reader(
  side: Side,
  type: 'map' | 'list',
  state: string,
  keyText: string,
  meta: ContainerMeta | undefined,
  after: string | undefined,
): ElementReader | undefined {
  if (meta === undefined || meta.n === 0) return undefined;
  return new ElementReader(side.browser, elementSpace(side.keyGroup, type, state, keyText, meta), after);
}

/** One side of a compare: its store, and the key group the key is in there. */
export interface Side {
  readonly browser: StoreBrowser;
  readonly keyGroup: number;
}

async function compareValue(
  from: Side,
  to: Side,
  state: string,
  keyText: string,
): Promise<StateCompareView | undefined> {
  const full = (side: Side) => stateSpace(side.keyGroup, StateTag.Value, state) + keyText;
  const [[before], [after]] = await Promise.all([
    from.browser.values([full(from)]),
    to.browser.values([full(to)]),
  ]);
  if (before === undefined && after === undefined) return undefined;
  const change =
    before === undefined ? 'added' : after === undefined ? 'removed' : before === after ? 'same' : 'changed';
  return {
    state,
    type: 'value',
    change,
    ...(before === undefined ? {} : { before: JSON.parse(before) as unknown }),
    ...(after === undefined ? {} : { after: JSON.parse(after) as unknown }),
  };
}

async function compareContainer(
  from: Side,
  to: Side,
  type: 'map' | 'list',
  state: string,
  keyText: string,
  query: CompareQuery,
): Promise<StateCompareView | undefined> {
  const [metaBefore, metaAfter] = await Promise.all([
    readContainerMeta(from.browser, from.keyGroup, type, state, keyText),
    readContainerMeta(to.browser, to.keyGroup, type, state, keyText),
  ]);
  const countBefore = metaBefore?.n ?? 0;
  const countAfter = metaAfter?.n ?? 0;
  if (countBefore === 0 && countAfter === 0) return undefined;
  const after = query.after === undefined ? undefined : decodeAfter(query.after);
  const a = reader(from, type, state, keyText, metaBefore, after);
  const b = reader(to, type, state, keyText, metaAfter, after);
  const changes: ElementChangeView[] = [];
  let unchanged = 0;
  let scanned = 0;
  let last: string | undefined;
  for (;;) {
    const [ha, hb] = await Promise.all([a?.head(), b?.head()]);
    if (ha === undefined && hb === undefined) {
      last = undefined;
      break;
    }
    if (changes.length >= query.limit || scanned >= SCAN_BUDGET) break;
    scanned++;
    const order = ha === undefined ? 1 : hb === undefined ? -1 : compareUtf8(ha[0], hb[0]);
    if (order < 0) {
      changes.push({ element: elementOf(type, ha![0]), change: 'removed', before: JSON.parse(ha![1]) });
      last = ha![0];
      a!.next();
    } else if (order > 0) {
      changes.push({ element: elementOf(type, hb![0]), change: 'added', after: JSON.parse(hb![1]) });
      last = hb![0];
      b!.next();
    } else {
      if (ha![1] === hb![1]) unchanged++;
      else {
        changes.push({
          element: elementOf(type, ha![0]),
          change: 'changed',
          before: JSON.parse(ha![1]),
          after: JSON.parse(hb![1]),
        });
      }
      last = ha![0];
      a!.next();
      b!.next();
    }
  }
  const complete = last === undefined;
  // "same" only when every element was compared on this page: a later page cannot tell.
  const change =
    countBefore === 0
      ? 'added'
      : countAfter === 0
        ? 'removed'
        : changes.length > 0
          ? 'changed'
          : complete && after === undefined
            ? 'same'
            : undefined;
  return {
    state,
    type,
    ...(change === undefined ? {} : { change }),
    countBefore,
    countAfter,
    changes,
    unchanged,
    ...(complete ? {} : { next: JSON.stringify(last) }),
  };
}

/** The key's states on the two sides, in state order, each compared (one page of a map's or list's elements). */
export async function compareKeyState(
  from: Side,
  to: Side,
  key: unknown,
  query: CompareQuery,
): Promise<StateCompareView[]> {
  const keyText = encodeKey(key);
  const names = new Map<string, [string, StateType]>();
  if (query.state !== undefined) {
    if (query.type === undefined) throw new Error('state.compare: params.type is needed with params.state');
    names.set(`${query.state}\0${query.type}`, [query.state, query.type]);
  } else {
    const [a, b] = await Promise.all([
      statesOf(from.browser, from.keyGroup),
      statesOf(to.browser, to.keyGroup),
    ]);
    for (const [name, type] of [...a, ...b]) names.set(`${name}\0${type}`, [name, type]);
  }
  const ordered = [...names.values()].sort(([a, x], [b, y]) => compareUtf8(a, b) || compareUtf8(x, y));
  const views: StateCompareView[] = [];
  for (const [state, type] of ordered) {
    const view =
      type === 'value'
        ? await compareValue(from, to, state, keyText)
        : await compareContainer(from, to, type, state, keyText, query);
    if (view !== undefined) views.push(view);
  }
  return views;
}
