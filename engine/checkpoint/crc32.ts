// CRC-32 (the one of zlib, gzip and PNG) of checkpoint data files. It is there to catch a file that
// was damaged or cut short on disk, not one changed on purpose: for that a cryptographic hash would
// be needed, and SHA-256 cost several times as much CPU on the thread that runs the records.
import zlib from 'node:zlib';

/** Continues `value`, the CRC-32 of the bytes before `data`. */
export const crc32: (data: Uint8Array, value?: number) => number = zlib.crc32;

export function crc32Hex(value: number): string {
  return value.toString(16).padStart(8, '0');
}
