// How keyed state is laid out as strings. Every key starts with its key group (4 hex digits), so
// the state of one key group is one contiguous range that can later move to another subtask.
// "\0" separates parts: JSON never contains a raw NUL and state names are checked not to.

const KEY_GROUP_PREFIXES: string[] = [];

export function keyGroupPrefix(keyGroup: number): string {
  let prefix = KEY_GROUP_PREFIXES[keyGroup];
  if (prefix === undefined) {
    prefix = keyGroup.toString(16).padStart(4, '0');
    KEY_GROUP_PREFIXES[keyGroup] = prefix;
  }
  return prefix;
}

export enum StateTag {
  Value = 'v',
  MapMeta = 'M',
  MapElements = 'm',
  ListMeta = 'L',
  ListElements = 'l',
}

export function stateKey(keyGroup: number, tag: StateTag, name: string, keyJson: string): string {
  return `${keyGroupPrefix(keyGroup)}${tag}${name}\0${keyJson}`;
}

/** A container holds one generation of a map or list; clearing starts a new generation. */
export function containerKey(
  keyGroup: number,
  tag: StateTag,
  name: string,
  keyJson: string,
  generation: number,
): string {
  return `${keyGroupPrefix(keyGroup)}${tag}${name}\0${keyJson}\0${generation}`;
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
