// Where a record entered the job, as plain data: it travels with the record (across threads
// too, in the parallel executor) and turns into words only when a message needs them.
import { basename } from 'node:path';
import { countNewlines } from './fileNewlines.js';

export type RecordSource =
  /** A line of an input file; the position is the line's byte offset. */
  | { readonly kind: 'file'; readonly operatorId: string; readonly file: string }
  /** A record a generator made; the position is its index. */
  | { readonly kind: 'generator'; readonly operatorId: string }
  /** A record in flight round a loop when checkpoint `checkpointId` was taken, replayed on restore. */
  | { readonly kind: 'loop'; readonly operatorId: string; readonly checkpointId: number }
  /**
   * Any other connector's record: `label` says where, the position is its offset there, e.g.
   * label "topic orders partition 3 offset" and position 1234.
   */
  | { readonly kind: 'at'; readonly operatorId: string; readonly label: string };

/** `events.jsonl:17`, `generator "g" record 42`, `record 3 in flight round a loop at checkpoint 7`. */
export function describeRecordSource(source: RecordSource, position: number): string {
  switch (source.kind) {
    case 'file':
      return `${basename(source.file)}:${lineAt(source.file, position)}`;
    case 'generator':
      return `generator "${source.operatorId}" record ${position}`;
    case 'loop':
      return `record ${position} in flight round a loop at checkpoint ${source.checkpointId}`;
    case 'at':
      return `${source.label} ${position}`;
  }
}

/** One string per source: a source's records share it, on any thread. */
export function recordSourceKey(source: RecordSource): string {
  switch (source.kind) {
    case 'file':
      return `file\0${source.operatorId}\0${source.file}`;
    case 'generator':
      return `generator\0${source.operatorId}`;
    case 'loop':
      return `loop\0${source.operatorId}\0${source.checkpointId}`;
    case 'at':
      return `at\0${source.operatorId}\0${source.label}`;
  }
}

/** A byte offset's line, from 1: only needed for messages, so only counted then. */
function lineAt(file: string, offset: number): number {
  return 1 + countNewlines(file, 0, offset);
}
