// What a completed checkpoint records. The metadata file is the checkpoint: it is written last,
// atomically, and names every file the checkpoint needs with its size and checksum.

/** 2: keyed state in length-prefixed binary files (stateFile.ts) and CRC-32 checksums. */
export const CHECKPOINT_FORMAT = 'pipewright.checkpoint/2';

/**
 * A file under the checkpoint directory, by path relative to it, with the checksum of its bytes:
 * CRC-32 (8 hex digits) for the files the checkpoint writes itself, SHA-256 for sink parts.
 */
export type FileRef = {
  readonly path: string;
  readonly bytes: number;
} & ({ readonly crc32: string } | { readonly sha256: string });

/** What is left to read of a source: a byte range of a file, or a stream of generator indexes. */
export type SourceSplit =
  | { readonly kind: 'file'; readonly file: string; readonly start: number; readonly end: number }
  | { readonly kind: 'generator'; readonly next: number; readonly stride: number };

/** Keyed state of one subtask: a full copy (base) and the changes made after it, in order. */
export interface StateHandle {
  readonly base?: FileRef;
  readonly changes: readonly FileRef[];
  /** The key groups this subtask owned, inclusive. */
  readonly keyGroups: { readonly start: number; readonly end: number };
  readonly entries: number;
  readonly bytes: number;
}

export interface SubtaskSnapshot {
  readonly operator: string;
  readonly subtask: number;
  readonly splits?: readonly SourceSplit[];
  readonly state?: StateHandle;
  /** Records that came round a feedback edge after this subtask's snapshot, in arrival order. */
  readonly feedback?: FileRef;
  readonly feedbackRecords?: number;
  /** Output written since the previous checkpoint, to be published when this one completes. */
  readonly sinkPart?: FileRef;
}

export interface SinkCommit {
  readonly operator: string;
  /** The sink's target file, absolute. */
  readonly path: string;
  /** Length of the published file before this checkpoint's parts; -1: the parts replace it. */
  readonly committedLength: number;
  /** Parts in subtask order. */
  readonly parts: readonly FileRef[];
}

export interface OperatorRecord {
  readonly id: string;
  readonly kind: string;
  readonly parallelism: number;
  /** Key fields of each input edge, for operators with keyed state. */
  readonly keys: readonly string[];
  /** Whether any subtask held keyed state, or (a source) had input left to read. */
  readonly stateful: boolean;
}

export interface CheckpointMetadata {
  readonly format: typeof CHECKPOINT_FORMAT;
  readonly id: number;
  readonly job: string;
  readonly maxParallelism: number;
  readonly stateBackend: string;
  readonly triggeredAt: string;
  readonly completedAt: string;
  readonly operators: readonly OperatorRecord[];
  readonly subtasks: readonly SubtaskSnapshot[];
  readonly sinks: readonly SinkCommit[];
}
