// Where a source record is, as a person looks for it, for traces: a file's line (not the byte
// offset the engine keeps), a Kafka partition and offset, a PostgreSQL change's LSN as the server
// writes it. Lines are counted only when a trace asks, and each file's counts are kept, so
// tracing records further down a file reads only what lies between.
import { basename } from 'node:path';
import { countNewlines } from '../runtime/fileNewlines.js';
import type { RecordSource } from '../runtime/recordSource.js';

/** Offsets whose line is kept per file: a trace names a few records, a session a few hundred. */
const KEPT_PER_FILE = 1024;

/** Line numbers of byte offsets in input files, counted from the nearest offset counted before. */
export class LineNumbers {
  /** Per file, [offset, line] pairs in offset order. */
  private readonly known = new Map<string, [number, number][]>();

  lineAt(file: string, offset: number): number {
    let marks = this.known.get(file);
    if (marks === undefined) {
      marks = [[0, 1]];
      this.known.set(file, marks);
    }
    let below = 0;
    while (below + 1 < marks.length && marks[below + 1]![0] <= offset) below++;
    const [from, fromLine] = marks[below]!;
    if (from === offset) return fromLine;
    const line = fromLine + countNewlines(file, from, offset);
    marks.splice(below + 1, 0, [offset, line]);
    // Forget the ones furthest from the start but the first: any count goes on from an earlier one.
    if (marks.length > KEPT_PER_FILE) marks.splice(1, 1);
    return line;
  }
}

/** An LSN as PostgreSQL writes it: the high and low 32 bits in hex, `16/B374D848`. */
export function lsnText(lsn: number): string {
  const high = Math.floor(lsn / 0x1_0000_0000);
  const low = lsn - high * 0x1_0000_0000;
  return `${high.toString(16).toUpperCase()}/${low.toString(16).toUpperCase()}`;
}

/**
 * `events.jsonl line 12`, `Kafka topic "t" partition 0 offset 42`, `table "t" change at LSN
 * 0/16B3748`, `generator "g" record 7`. A file no longer there is named by its byte offset.
 */
export function recordPlace(source: RecordSource, position: number, lines: LineNumbers): string {
  switch (source.kind) {
    case 'file': {
      const name = basename(source.file);
      try {
        return `${name} line ${lines.lineAt(source.file, position)}`;
      } catch {
        return `${name} at byte ${position}`;
      }
    }
    case 'generator':
      return `generator "${source.operatorId}" record ${position}`;
    case 'loop':
      return `record ${position} in flight round a loop at checkpoint ${source.checkpointId}`;
    case 'at':
      // The PostgreSQL source keeps an LSN as its number (engine/operators/postgres).
      return source.label.endsWith(' at LSN')
        ? `${source.label} ${lsnText(position)}`
        : `${source.label} ${position}`;
  }
}
