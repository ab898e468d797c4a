// Comparing one key's state between two checkpoints (or a checkpoint and the live state): the
// state browser reads the key's entries from each side by prefix and lines them up by state name.
import type { StateEntryView } from '../../engine/protocol/protocol.js';

/** A key as the prefix search matches it: a string as it is, anything else as JSON. */
export function keyText(key: unknown): string {
  return typeof key === 'string' ? key : (JSON.stringify(key) ?? String(key));
}

export function entriesOfKey(entries: readonly StateEntryView[], key: string): StateEntryView[] {
  return entries.filter((e) => keyText(e.key) === key);
}

export interface CompareRow {
  readonly state: string;
  readonly type: StateEntryView['type'];
  readonly from: StateEntryView | undefined;
  readonly to: StateEntryView | undefined;
  readonly changed: boolean;
}

function same(a: StateEntryView | undefined, b: StateEntryView | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return JSON.stringify(a.value) === JSON.stringify(b.value) && a.elementCount === b.elementCount;
}

/** One row per state name present on either side, in the order first seen. */
export function compareEntries(from: readonly StateEntryView[], to: readonly StateEntryView[]): CompareRow[] {
  const names: string[] = [];
  for (const e of [...from, ...to]) if (!names.includes(e.state)) names.push(e.state);
  return names.map((state) => {
    const a = from.find((e) => e.state === state);
    const b = to.find((e) => e.state === state);
    return { state, type: (a ?? b)!.type, from: a, to: b, changed: !same(a, b) };
  });
}
