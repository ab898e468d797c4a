// How keyed state is laid out as strings. Every space starts with its key group (4 hex digits),
// so the state of one key group is one contiguous range that can later move to another subtask.
// "\0" ends each part: encoded keys never hold a raw NUL and state names are checked not to.
import { canonicalJson } from '../graph/canonicalJson.js';

export enum StateTag {
  Value = 'v',
  MapMeta = 'M',
  MapElements = 'm',
  ListMeta = 'L',
  ListElements = 'l',
  /** Timers, one entry each, ordered by time then key (see timerStore.ts). */
  EventTimers = 'T',
  ProcessingTimers = 'P',
}

/** The first four characters of every key of a key group. */
export function keyGroupPrefix(keyGroup: number): string {
  return keyGroup.toString(16).padStart(4, '0');
}

export function stateSpace(keyGroup: number, tag: StateTag, name: string): string {
  return `${keyGroupPrefix(keyGroup)}${tag}${name}\0`;
}

/** A container holds one generation of one key's map or list; clearing starts a new one. */
export function containerSpace(
  keyGroup: number,
  tag: StateTag,
  name: string,
  keyText: string,
  generation: number,
): string {
  return `${keyGroupPrefix(keyGroup)}${tag}${name}\0${keyText}\0${generation}\0`;
}

/** Where the space ends in a full key: after the name for a value or meta entry, after the generation for an element. */
export function splitStoreKey(full: string): [space: string, key: string] {
  const tag = full.charAt(4);
  let end = full.indexOf('\0') + 1;
  if (tag === StateTag.MapElements || tag === StateTag.ListElements) {
    end = full.indexOf('\0', full.indexOf('\0', end) + 1) + 1;
  }
  return [full.slice(0, end), full.slice(end)];
}

/** The key group of a full key (or of a space). */
export function keyGroupOfStoreKey(full: string): number {
  return Number.parseInt(full.slice(0, 4), 16);
}

/** Whether a full key is a timer's (either domain). */
export function isTimerEntry(full: string): boolean {
  const tag = full.charAt(4);
  return tag === StateTag.EventTimers || tag === StateTag.ProcessingTimers;
}

/** Whether a full key holds user state (a value or an element) rather than a meta entry. */
export function isUserEntry(full: string): boolean {
  const tag = full.charAt(4);
  return tag === StateTag.Value || tag === StateTag.MapElements || tag === StateTag.ListElements;
}

/**
 * How a key (ctx.key, or a map key) is written into a store key. A string is used as it is:
 * the common case costs no encoding. Anything else, and a string that could be mistaken for an
 * encoded value (starting with \x01), holds a NUL or is not well-formed UTF-16, is \x01
 * followed by canonical JSON.
 */
export function encodeKey(key: unknown): string {
  // A lone surrogate would reach LevelDB as U+FFFD and collide with other keys: encode those too.
  if (typeof key === 'string' && key.charCodeAt(0) !== 1 && key.indexOf('\0') === -1 && isWellFormed(key)) {
    return key;
  }
  // A number's canonical JSON is its JSON (window starts and counters are map keys per record),
  // which for a finite number is its String(): ~40 ns less a key than JSON.stringify (measured),
  // and a transaction's rows encode theirs four times.
  if (typeof key === 'number' && Number.isFinite(key)) return `\x01${String(key)}`;
  return `\x01${canonicalJson(key)}`;
}

/** String.prototype.isWellFormed: in Node 20, but typed only from lib ES2024, which Node 20 lacks in part. */
function isWellFormed(text: string): boolean {
  return (text as string & { isWellFormed(): boolean }).isWellFormed();
}

export function decodeKey(text: string): unknown {
  return text.charCodeAt(0) === 1 ? JSON.parse(text.slice(1)) : text;
}

/** List positions sort as strings in insertion order. */
export function listPosition(sequence: number): string {
  return sequence.toString(36).padStart(11, '0');
}

export function checkStateName(name: unknown): string {
  if (typeof name !== 'string' || name.length === 0 || name.length > 200 || name.includes('\0')) {
    throw new TypeError(`state names are non-empty strings of at most 200 characters (got ${String(name)})`);
  }
  return name;
}
