// Counting the newlines of a stretch of an input file: how a record kept by its byte offset is
// named by its line, for messages and traces. Read a chunk at a time, so a file of any size
// costs a buffer, and only when a message or a trace asks.
import { closeSync, openSync, readSync } from 'node:fs';

const CHUNK = 1 << 20;
const NEWLINE = 10;

/** The newlines in bytes [from, to) of `file` (fewer when the file is shorter). */
export function countNewlines(file: string, from: number, to: number): number {
  const fd = openSync(file, 'r');
  try {
    const buffer = Buffer.allocUnsafe(Math.min(CHUNK, Math.max(1, to - from)));
    let lines = 0;
    for (let at = from; at < to; ) {
      const n = readSync(fd, buffer, 0, Math.min(buffer.length, to - at), at);
      if (n === 0) break;
      for (let i = 0; i < n; i++) if (buffer[i] === NEWLINE) lines++;
      at += n;
    }
    return lines;
  } finally {
    closeSync(fd);
  }
}
