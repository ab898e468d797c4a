// CRC-32 (the one of zlib, gzip and PNG) of checkpoint data files. It is there to catch a file that
// was damaged or cut short on disk, not one changed on purpose: for that a cryptographic hash would
// be needed, and SHA-256 cost several times as much CPU on the thread that runs the records.
import zlib from 'node:zlib';

let table: Uint32Array | undefined;

function crc32Table(): Uint32Array {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
}

/** The same function in JavaScript, for Node 20 before 20.15, which lacks zlib.crc32 (and for tests). */
export function crc32InJs(data: Uint8Array, value = 0): number {
  table ??= crc32Table();
  let c = ~value;
  for (let i = 0; i < data.length; i++) c = table[(c ^ data[i]!) & 0xff]! ^ (c >>> 8);
  return ~c >>> 0;
}

/** Continues `value`, the CRC-32 of the bytes before `data`. */
export const crc32: (data: Uint8Array, value?: number) => number =
  typeof zlib.crc32 === 'function' ? zlib.crc32 : crc32InJs;

export function crc32Hex(value: number): string {
  return value.toString(16).padStart(8, '0');
}
