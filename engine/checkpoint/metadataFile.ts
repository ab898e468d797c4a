// The metadata file's text: the checkpoint as JSON with a CRC-32 of its canonical form (keys
// sorted, engine/graph/canonicalJson.ts), so that a bit flipped on disk ("next": 5350 -> 5351,
// still valid JSON) is caught as the data files' checksums catch theirs, and the file may be
// reformatted (indentation, key order) without breaking it. Read through here, a metadata file
// is checked, migrated from an older format, and refused with the reason it is unusable.
import { canonicalJson } from '../graph/canonicalJson.js';
import { CHECKPOINT_FORMAT, type CheckpointMetadata } from './checkpointMetadata.js';
import { migrateCheckpoint } from './checkpointMigration.js';
import { crc32, crc32Hex } from './crc32.js';

/** The field that holds the checksum; it is not part of what it sums. */
const CHECKSUM = 'crc32';

type Json = Record<string, unknown>;

function checksumOf(content: Json): string {
  return crc32Hex(crc32(Buffer.from(canonicalJson(content, 'checkpoint metadata'), 'utf8')));
}

/** The file's text: the metadata, then its checksum. */
export function encodeMetadata(metadata: CheckpointMetadata): string {
  const content = metadata as unknown as Json;
  return `${JSON.stringify({ ...content, [CHECKSUM]: checksumOf(content) }, null, 1)}\n`;
}

/**
 * The metadata of checkpoint `id` from its file's text, or an Error saying why it is unusable
 * (the message starts with what is wrong, e.g. "its metadata is corrupted (checksum)").
 */
export function decodeMetadata(text: string, id: number): CheckpointMetadata {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new Error(`its metadata cannot be read (${(error as Error).message})`);
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new Error(`its metadata is not a Pipewright checkpoint (no "format": "${CHECKPOINT_FORMAT}")`);
  }
  const { [CHECKSUM]: recorded, ...content } = raw as Json;
  if (recorded !== undefined || content.format === CHECKPOINT_FORMAT) {
    // This format always has one, so a missing one is damage too (a bit flipped in its name);
    // older formats never had one, so one there is checked too (a bit flipped in "format").
    if (typeof recorded !== 'string') throw new Error('its metadata is corrupted (it has no checksum)');
    if (recorded !== checksumOf(content)) throw new Error('its metadata is corrupted (checksum)');
  }
  const metadata = migrateCheckpoint(content) as CheckpointMetadata;
  const format = (metadata as { format?: unknown }).format;
  if (format !== CHECKPOINT_FORMAT) {
    throw new Error(
      typeof format === 'string' && format.startsWith('pipewright.checkpoint/')
        ? `it was written in format ${format}, which this version of Pipewright cannot read (it reads ${CHECKPOINT_FORMAT} only)`
        : `its metadata is not a Pipewright checkpoint (no "format": "${CHECKPOINT_FORMAT}")`,
    );
  }
  if (metadata.id !== id) throw new Error(`its metadata is that of checkpoint ${metadata.id}`);
  return metadata;
}
