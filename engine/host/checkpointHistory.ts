// The completed checkpoints of a job, for "Restart from checkpoint…" and for comparing a key
// between two checkpoints: read from the metadata files in its checkpoint folder, newest first.
// The metadata holds what a checkpoint wrote and what it stands for, but not how long each
// subtask's parts took; those timings are known only for checkpoints this host saw being taken,
// and are 0 for the others (taken by the CLI, or before the host started).
import { stat } from 'node:fs/promises';
import type { CheckpointMetadata, FileRef } from '../checkpoint/checkpointMetadata.js';
import { CheckpointStorage, referencedFiles } from '../checkpoint/checkpointStorage.js';
import type { RunCheckpointEvent } from '../protocol/runProtocol.js';

/** Checkpoint events this host saw, by checkpoint folder and id; bounded, oldest forgotten first. */
export class CheckpointTimings {
  private readonly seen = new Map<string, RunCheckpointEvent>();

  constructor(private readonly kept = 1000) {}

  private static name(dir: string, id: number): string {
    return `${dir}\n${id}`;
  }

  remember(dir: string, event: RunCheckpointEvent): void {
    this.seen.set(CheckpointTimings.name(dir, event.id), event);
    if (this.seen.size > this.kept) this.seen.delete(this.seen.keys().next().value!);
  }

  get(dir: string, id: number): RunCheckpointEvent | undefined {
    return this.seen.get(CheckpointTimings.name(dir, id));
  }
}

/** The files a checkpoint wrote itself (the others it shares with earlier checkpoints). */
function ownFiles(refs: readonly FileRef[], id: number): FileRef[] {
  const own = new RegExp(`-${id}\\.[a-z]+$`);
  return refs.filter((ref) => own.test(ref.path));
}

function fromMetadata(
  metadata: CheckpointMetadata,
  seen: RunCheckpointEvent | undefined,
): RunCheckpointEvent {
  const id = metadata.id;
  const timing = new Map(seen?.subtasks.map((s) => [`${s.operator}#${s.subtask}`, s]));
  const subtasks = metadata.subtasks.map((s) => {
    const refs = [
      ...(s.state?.base ? [s.state.base] : []),
      ...(s.state?.changes ?? []),
      ...(s.feedback ? [s.feedback] : []),
      ...(s.splits ?? []).flatMap((split) => split.files ?? []),
      ...(s.committable?.files ?? []),
    ];
    const t = timing.get(`${s.operator}#${s.subtask}`);
    return {
      operator: s.operator,
      subtask: s.subtask,
      bytes: ownFiles(refs, id).reduce((n, ref) => n + ref.bytes, 0),
      fullBytes: s.state?.bytes ?? 0,
      syncMs: t?.syncMs ?? 0,
      asyncMs: t?.asyncMs ?? 0,
      alignmentMs: t?.alignmentMs ?? 0,
    };
  });
  return {
    runId: seen?.runId ?? '',
    id,
    status: 'completed',
    triggeredAt: metadata.triggeredAt,
    durationMs: seen?.durationMs ?? Date.parse(metadata.completedAt) - Date.parse(metadata.triggeredAt),
    bytes: subtasks.reduce((n, s) => n + s.bytes, 0),
    fullBytes: subtasks.reduce((n, s) => n + s.fullBytes, 0),
    inFlightRecords: metadata.subtasks.reduce((n, s) => n + (s.feedbackRecords ?? 0), 0),
    subtasks,
  };
}

function unusable(id: number, reason: string, triggeredAt = ''): RunCheckpointEvent {
  return {
    runId: '',
    id,
    status: 'failed',
    reason,
    triggeredAt,
    durationMs: 0,
    bytes: 0,
    fullBytes: 0,
    inFlightRecords: 0,
    subtasks: [],
  };
}

/**
 * Every checkpoint whose metadata exists in `dir`, newest first. One that cannot be restored (its
 * metadata unreadable, damaged or of another format, a file missing or of the wrong size) is
 * listed as failed with the reason; the data files' checksums are left to the restore, which
 * reads every file anyway.
 */
export async function listCheckpoints(
  dir: string,
  timings: CheckpointTimings,
): Promise<RunCheckpointEvent[]> {
  const storage = new CheckpointStorage(dir);
  const list: RunCheckpointEvent[] = [];
  for (const id of await storage.completedIds()) {
    let metadata: CheckpointMetadata;
    try {
      // Checked as a restore checks it (its checksum, format and id), so a list never offers one
      // the restore would refuse for its metadata.
      metadata = await storage.readMetadata(id);
    } catch (error) {
      list.push(unusable(id, (error as Error).message.replace(/^checkpoint \d+: /, '')));
      continue;
    }
    const problem = await missingFile(storage, metadata);
    list.push(
      problem === undefined
        ? fromMetadata(metadata, timings.get(dir, id))
        : unusable(id, problem, metadata.triggeredAt),
    );
  }
  return list;
}

async function missingFile(
  storage: CheckpointStorage,
  metadata: CheckpointMetadata,
): Promise<string | undefined> {
  for (const ref of referencedFiles(metadata)) {
    const size = await stat(storage.absolute(ref)).then(
      (s) => s.size,
      () => undefined,
    );
    if (size === undefined) return `file ${ref.path} is missing`;
    if (size !== ref.bytes) return `file ${ref.path} has ${size} bytes, not ${ref.bytes}`;
  }
  return undefined;
}
