// What an operator may do in the checkpoint folder, without knowing the checkpoint code: the
// folder is engine/checkpoint's (CheckpointStorage implements this), the files in it that a
// connector writes (a sink's parts) are the connector's.

/**
 * A file under the checkpoint directory, by path relative to it, with the checksum of its bytes:
 * CRC-32 (8 hex digits) for the files the checkpoint writes itself, SHA-256 for sink parts.
 */
export type FileRef = {
  readonly path: string;
  readonly bytes: number;
} & ({ readonly crc32: string } | { readonly sha256: string });

export interface CheckpointFiles {
  /** The checkpoint folder, absolute. */
  readonly root: string;
  /** Where a subtask's file of that name goes, relative to the folder. */
  dataPath(operator: string, subtask: number, name: string): string;
  /** A file of the folder (relative as a ref names it), absolute. */
  absolute(ref: FileRef | string): string;
}
