// What a completed checkpoint records. The metadata file is the checkpoint: it is written last,
// atomically, and names every file the checkpoint needs with its size and checksum.

import type { FileRef } from '../runtime/checkpointFiles.js';
import type { ConnectorState } from '../runtime/connectorState.js';
import type { SourceTimeState } from '../runtime/sourceWatermarks.js';
import type { SubtaskTimeState } from '../runtime/subtaskTime.js';

export type { FileRef } from '../runtime/checkpointFiles.js';
export type { ConnectorState } from '../runtime/connectorState.js';

/**
 * 2: keyed state in length-prefixed binary files (stateFile.ts) and CRC-32 checksums.
 * 3: sources' splits and sinks' committables and commits are connector state, `{kind, payload}`.
 * 4: the metadata has a CRC-32 of its own (metadataFile.ts).
 * (A /2 or /3 checkpoint is migrated as it is read: checkpointMigration.ts.)
 */
export const CHECKPOINT_FORMAT = 'pipewright.checkpoint/4';

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
  /** A source's splits still to read (see runtime/source.ts). */
  readonly splits?: readonly ConnectorState[];
  readonly state?: StateHandle;
  /** Records that came round a feedback edge after this subtask's snapshot, in arrival order. */
  readonly feedback?: FileRef;
  readonly feedbackRecords?: number;
  /** A sink's output since the previous checkpoint, as its writer prepared it (see runtime/sink.ts). */
  readonly committable?: ConnectorState;
  /** Its inputs' watermarks at the cut (runtime/watermarkValve.ts); absent where none had come. */
  readonly time?: SubtaskTimeState;
  /** A source with event time: the highest record time it had emitted (runtime/sourceWatermarks.ts). */
  readonly sourceTime?: SourceTimeState;
  /** What the operator holds beyond state, as JSON: a transaction's records not yet run. */
  readonly operatorState?: unknown;
}

/** What a sink's committer commits when the checkpoint completes, and a restore redoes. */
export interface SinkCommit extends ConnectorState {
  readonly operator: string;
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
  /**
   * Taken once every subtask had finished: the end of a bounded job (FLIP-147's final
   * checkpoint), whose completion made the sinks' last commit. A restore of it runs nothing: it
   * makes that commit again where it was not made, and the run is over (absent: false).
   */
  readonly finished?: true;
}

/** Every checkpoint file the connectors' state names (splits, committables, commits). */
export function connectorFiles(metadata: CheckpointMetadata): FileRef[] {
  const refs: FileRef[] = [];
  for (const s of metadata.subtasks) {
    for (const split of s.splits ?? []) refs.push(...(split.files ?? []));
    refs.push(...(s.committable?.files ?? []));
  }
  for (const sink of metadata.sinks) refs.push(...(sink.files ?? []));
  return refs;
}
