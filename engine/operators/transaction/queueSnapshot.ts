// What a transaction operator's checkpoint keeps beyond its rows: the records taken and not yet
// run, and each input channel's clock, as JSON (the checkpoint's `operatorState`). At a cut
// every subtask holds the same of both, so a restore at any parallelism takes the first one's.
import { type Envelope, envelope } from '../../runtime/envelope.js';
import type { ChannelClockState, OrderKey, QueuedRecord } from './txOrder.js';

/** A queued record: [time, channel, position, value, timestamp, source, sourcePosition]. */
type SavedRecord = [number, number, number, unknown, number | null, unknown, number];

export interface QueueSnapshot {
  readonly clocks: ReadonlyArray<Record<string, number | boolean | null>>;
  readonly queued: readonly SavedRecord[];
}

// JSON has no infinities: a clock's "nothing yet" is written as null.
const finite = (n: number) => (Number.isFinite(n) ? n : null);
const orMinusInfinity = (n: unknown) => (typeof n === 'number' ? n : Number.NEGATIVE_INFINITY);

export function queueSnapshot(
  clocks: readonly ChannelClockState[],
  queued: readonly QueuedRecord[],
): QueueSnapshot {
  return {
    clocks: clocks.map((c) => ({
      next: c.next,
      time: finite(c.time),
      timed: c.timed,
      watermark: finite(c.watermark),
      ended: c.ended,
    })),
    queued: queued.map(
      ({ key, envelope }): SavedRecord => [
        key.time,
        key.channel,
        key.position,
        envelope.value,
        envelope.timestamp ?? null,
        envelope.source ?? null,
        envelope.position,
      ],
    ),
  };
}

/** The records and clocks a checkpoint's old subtasks held (the first that held any), if any. */
export function restoredQueue(
  states: readonly unknown[],
): { records: QueuedRecord[]; clocks: ChannelClockState[] } | undefined {
  const saved = states.find((s) => s !== undefined) as QueueSnapshot | undefined;
  if (saved === undefined) return undefined;
  const records = saved.queued.map(([time, channel, position, value, timestamp, source, sourcePosition]) => {
    const key: OrderKey = { time, channel, position };
    const restored = envelope(
      value,
      undefined,
      -1,
      timestamp ?? undefined,
      (source ?? undefined) as Envelope['source'],
      sourcePosition,
    );
    return { key, envelope: restored };
  });
  const clocks = saved.clocks.map(
    (c): ChannelClockState => ({
      next: c.next as number,
      time: orMinusInfinity(c.time),
      timed: c.timed === true,
      watermark: orMinusInfinity(c.watermark),
      ended: c.ended === true,
    }),
  );
  return { records, clocks };
}
