// What a connector puts into a checkpoint (a source's splits, a sink's committables and commits):
// data the engine stores and hands back as it is, which only the kind that wrote it reads.
import type { FileRef } from './checkpointFiles.js';

export interface ConnectorState {
  /** Who reads `payload` back: a kind's split or committable type, e.g. "source.jsonl". */
  readonly kind: string;
  /** Plain JSON data. */
  readonly payload: unknown;
  /**
   * Files in the checkpoint folder the payload names: a restore checks them (size, checksum) and
   * retention keeps them as long as the checkpoint.
   */
  readonly files?: readonly FileRef[];
}
