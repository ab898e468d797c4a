// The length of a JSON value's text, counted without making the text: the heap keeps state
// sizes as LevelDB's JSON text would make them.
import { NEEDS_ESCAPE } from './stateCodecs.js';

/** Length of JSON.stringify(text), without building it. */
export function stringLength(text: string): number {
  if (!NEEDS_ESCAPE.test(text)) return text.length + 2;
  let n = 2;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 || c === 0x5c) n += 2;
    else if (c < 0x20) n += c === 8 || c === 9 || c === 10 || c === 12 || c === 13 ? 2 : 6;
    else if (c >= 0xd800 && c <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        n += 2;
        i++;
      } else n += 6;
    } else if (c >= 0xdc00 && c <= 0xdfff) n += 6;
    else n += 1;
  }
  return n;
}

/** Field names recur (every record has the same few): their JSON length is looked up, not scanned. */
const keyLengths = new Map<string, number>();

export function keyLength(key: string): number {
  let length = keyLengths.get(key);
  if (length === undefined) {
    length = stringLength(key);
    if (keyLengths.size < 4096) keyLengths.set(key, length);
  }
  return length;
}

export function numberLength(value: number): number {
  if (Number.isInteger(value) && value > -1e9 && value < 1e9) {
    // Compared, not divided: a division per digit was most of measuring a counter (measured).
    const a = value < 0 ? -value : value;
    const digits =
      a < 1e4
        ? a < 10
          ? 1
          : a < 100
            ? 2
            : a < 1e3
              ? 3
              : 4
        : a < 1e6
          ? a < 1e5
            ? 5
            : 6
          : a < 1e7
            ? 7
            : a < 1e8
              ? 8
              : 9;
    return value < 0 ? digits + 1 : digits;
  }
  return String(value).length;
}
