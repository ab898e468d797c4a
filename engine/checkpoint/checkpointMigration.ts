// Checkpoints written by earlier versions, read as this one writes them. Format 2 knew two source
// splits and one sink by their shapes; format 3 stores any kind's as connector state, so a /2
// checkpoint's are rewritten into the state the built-in kinds read (same data, new envelope).
// Format 4 is format 3 with a checksum of the metadata itself (metadataFile.ts): a /3 checkpoint
// has none, and is read as it is.
import { CHECKPOINT_FORMAT, type FileRef } from './checkpointMetadata.js';

const FORMAT_2 = 'pipewright.checkpoint/2';
const FORMAT_3 = 'pipewright.checkpoint/3';

type Json = Record<string, unknown>;

/** The metadata as this version reads it: a /2 or /3 checkpoint migrated, anything else as it is. */
export function migrateCheckpoint(raw: unknown): unknown {
  if (raw === null || typeof raw !== 'object') return raw;
  const format = (raw as Json).format;
  if (format === FORMAT_3) return { ...(raw as Json), format: CHECKPOINT_FORMAT };
  if (format !== FORMAT_2) return raw;
  const old = raw as Json;
  return {
    ...old,
    format: CHECKPOINT_FORMAT,
    subtasks: ((old.subtasks ?? []) as Json[]).map(migrateSubtask),
    sinks: ((old.sinks ?? []) as Json[]).map((sink) => {
      const parts = (sink.parts ?? []) as FileRef[];
      return {
        operator: sink.operator,
        kind: 'sink.jsonl',
        payload: { path: sink.path, committedLength: sink.committedLength, parts },
        files: parts,
      };
    }),
  };
}

function migrateSubtask(subtask: Json): Json {
  const { splits, sinkPart, ...rest } = subtask;
  const migrated: Json = { ...rest };
  if (Array.isArray(splits)) {
    migrated.splits = (splits as Json[]).map((split) =>
      split.kind === 'file'
        ? { kind: 'source.jsonl', payload: { file: split.file, start: split.start, end: split.end } }
        : { kind: 'source.generator', payload: { next: split.next, stride: split.stride } },
    );
  }
  if (sinkPart !== undefined) {
    migrated.committable = { kind: 'sink.jsonl', payload: sinkPart, files: [sinkPart as FileRef] };
  }
  return migrated;
}
