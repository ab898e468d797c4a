// What the Checkpoints panel says besides its table: what its two sizes count, which of the run's
// checkpoints are still kept, and why there is none, said true to where the run stands (a run
// that has ended will take none "yet").
//
// The two sizes are the engine's (engine/metrics/checkpointFigures.ts). `bytes` is what the
// checkpoint wrote: the keyed state's changes since the checkpoint before, or, at a base, every
// entry the subtask's store holds (timers and the entries that keep maps and lists included); a
// sink's output staged until the checkpoint completes; records logged round loops. `fullBytes` is
// the size of the state the operators' code keeps: the keys and values of value, map and list
// state, nothing else. So written can be larger than the state: measured on NEXMark q5, a base of
// its window was 451 KB for 140 KB of state, the rest being timers (110 KB) and map entries' own
// bookkeeping (126 KB).
import { settingsSchema } from '../../engine/graph/index.js';
import type { RunCheckpointEvent } from '../../engine/protocol/protocol.js';
import { isObject, type JobDraft } from '../document/jobDraft';
import { isActive, type RunPhase } from './runControls';

export const WRITTEN_TITLE =
  'What this checkpoint wrote to disk: the keyed state’s changes since the checkpoint before, or a full copy (a base) of everything the subtask keeps, timers and the bookkeeping of maps and lists included; the sinks’ output waiting to be published; records logged round loops.';
export const STATE_TITLE =
  'The keyed state this checkpoint stands for: the keys and values of the operators’ value, map and list state, as held. Timers, the bookkeeping of maps and lists, and the sinks’ output are not counted.';
export const LEGEND =
  'Written is what each checkpoint wrote to disk; State size is the keyed state it stands for. Written can be larger than State size: a full copy also holds timers and the bookkeeping of maps and lists, and a sink’s output is written but is no state. Between full copies a checkpoint writes only what changed.';

export interface CheckpointSettings {
  readonly intervalMs: number;
  readonly retained: number;
}

const DEFAULTS = settingsSchema.parse({}) as { checkpointIntervalMs: number; checkpointsRetained: number };

/** The job's checkpoint settings, each its default when absent or not valid. */
export function checkpointSettingsOf(draft: JobDraft | undefined): CheckpointSettings {
  const settings = draft !== undefined && isObject(draft.settings) ? draft.settings : {};
  const interval = settingsSchema.shape.checkpointIntervalMs.safeParse(settings.checkpointIntervalMs);
  const retained = settingsSchema.shape.checkpointsRetained.safeParse(settings.checkpointsRetained);
  return {
    intervalMs: interval.success ? interval.data : DEFAULTS.checkpointIntervalMs,
    retained: retained.success ? retained.data : DEFAULTS.checkpointsRetained,
  };
}

/** The completed checkpoints the run has let go: all but the newest `retained` completed ones. */
export function letGo(checkpoints: readonly RunCheckpointEvent[], retained: number): ReadonlySet<number> {
  const completed = checkpoints.filter((c) => c.status === 'completed').sort((a, b) => b.id - a.id);
  return new Set(completed.slice(retained).map((c) => c.id));
}

/** What the panel says while the run has no checkpoint to list. */
export function noCheckpointText(
  status: RunPhase,
  settings: CheckpointSettings,
  previewSinks: boolean,
): string {
  if (status === 'idle') return 'Each checkpoint’s status, size and duration appear here while the job runs.';
  const every = `the job takes one every ${settings.intervalMs} ms (its checkpointIntervalMs)`;
  if (settings.intervalMs === 0) return 'Checkpoints are off for this job: its checkpointIntervalMs is 0.';
  if (previewSinks) return 'A preview run takes no checkpoints: they could not cover output it never writes.';
  if (isActive(status)) return `No checkpoint yet in this run: ${every}.`;
  return `This run took no checkpoint: it ended before the first was due; ${every}.`;
}
