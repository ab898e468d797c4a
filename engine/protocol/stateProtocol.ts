// The state browser's part of the run protocol: types only (the renderer imports them). A page
// of one subtask's keyed state, one key found by the key alone, a key's map or list a page of
// elements at a time, and one key compared between two checkpoints or the live state. The rows
// that answer with them are in RunMethods (runProtocol.ts).

export interface StateEntryView {
  /** The key as `ctx.key` shows it. */
  readonly key: unknown;
  readonly state: string;
  readonly type: 'value' | 'map' | 'list';
  /**
   * A value's value; for map and list state, the first elements (see elementCount): a map's as
   * [key, value] pairs, a list's as its values, in order.
   */
  readonly value: unknown;
  readonly elementCount?: number;
  /** A map or list with more elements than shown: pass as `after` to state.elements for the next. */
  readonly elementsAfter?: string;
  readonly bytes: number;
}

/** The timers of one key on a state page, listed under the key. */
export interface KeyTimersView {
  /** The key as `ctx.key` shows it. */
  readonly key: unknown;
  /** Its first timers, event time first, each domain in time order. */
  readonly timers: readonly {
    readonly domain: 'eventTime' | 'processingTime';
    /** Epoch ms. */
    readonly timestamp: number;
  }[];
  /** How many timers it has. */
  readonly count: number;
  /** Its key group holds more timers than a page reads: it may have more than `count`. */
  readonly atLeast?: boolean;
}

export interface StatePage {
  readonly entries: readonly StateEntryView[];
  /** Pass as `after` for the next page; absent on the last page. */
  readonly next?: string;
  /** The timers of the page's keys, for those that have any. */
  readonly timers?: readonly KeyTimersView[];
  /** Asked for with `sizes`: the subtask's keys, entries and bytes per state (a transaction's tables). */
  readonly states?: readonly StateSizeView[];
  /** Asked for with `sizes`: how many distinct keys hold state in the subtask, whatever states each holds. */
  readonly keys?: number;
}

/** One state of one subtask: how many keys hold it and their bytes, as state sizes count them. */
export interface StateSizeView {
  readonly state: string;
  readonly type: 'value' | 'map' | 'list';
  /** Keys holding it (a value set, a map or list not empty): a table's rows. */
  readonly keys: number;
  /** Its entries: one per value, one per element of a map or list. */
  readonly entries: number;
  readonly bytes: number;
}

/** One key's state, found by the key alone (state.key): where it lives and what it holds there. */
export interface KeyStateView {
  /** The key as `ctx.key` shows it. */
  readonly key: unknown;
  readonly keyGroup: number;
  /** The subtask that owns its key group (as the checkpoint has it, when one was asked for). */
  readonly subtask: number;
  /** Its states; none when it holds none (a map or list emptied again holds none). */
  readonly entries: readonly StateEntryView[];
  readonly timers?: KeyTimersView;
}

/** One element of a map (its key) or list (its index), and its value. */
export interface StateElementView {
  readonly element: unknown;
  readonly value: unknown;
}

/** A page of one key's map or list elements, in order (state.elements). */
export interface StateElementsPage {
  readonly elements: readonly StateElementView[];
  /** How many it has in all. */
  readonly count: number;
  /** Pass as `after` for the next page; absent on the last. */
  readonly next?: string;
}

/** A side of a compare: a completed checkpoint's id, or the run's state now. */
export type CompareSide = number | 'live';

/** An element of a map or list that differs between the two sides of a compare. */
export interface ElementChangeView {
  readonly element: unknown;
  readonly change: 'added' | 'removed' | 'changed';
  /** Absent when added. */
  readonly before?: unknown;
  /** Absent when removed. */
  readonly after?: unknown;
}

/** One state of a key in a compare: a value's before and after, a map's or list's changed elements. */
export interface StateCompareView {
  readonly state: string;
  readonly type: 'value' | 'map' | 'list';
  /** Absent while a map or list is compared only in part and no change has been found yet. */
  readonly change?: 'added' | 'removed' | 'changed' | 'same';
  /** A value's value on each side (absent where it has none). */
  readonly before?: unknown;
  readonly after?: unknown;
  /** A map's or list's elements on each side. */
  readonly countBefore?: number;
  readonly countAfter?: number;
  /** A map's or list's elements that differ, in element order (this page of them). */
  readonly changes?: readonly ElementChangeView[];
  /** Elements compared on this page and found the same. */
  readonly unchanged?: number;
  /** More of its elements are left to compare: pass as `after` with `state` and `type`. */
  readonly next?: string;
}

/** One key's state on two sides (state.compare), state by state. */
export interface KeyCompareView {
  readonly key: unknown;
  readonly keyGroup: number;
  /** The subtask that owns the key on each side (a restore may have rescaled the operator). */
  readonly fromSubtask: number;
  readonly toSubtask: number;
  readonly states: readonly StateCompareView[];
}
