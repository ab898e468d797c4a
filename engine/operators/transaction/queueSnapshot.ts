// What a transaction operator's checkpoint keeps beyond its rows: the records taken and not yet
// run, and each input channel's clock, as JSON (the checkpoint's `operatorState`). At a cut
// every subtask's clocks count the same records (a routed edge tells what it skipped before a
// barrier), and each holds the waiting records of its rows (before routing, all of them): a
// restore at any parallelism takes the first one's clocks and the union of the records.
import { type Envelope, envelope } from '../../runtime/envelope.js';
import { type ChannelClockState, compareOrder, type OrderKey, type QueuedRecord } from './txOrder.js';

/**
 * A queued record: [time, channel, position, value, timestamp, source, sourcePosition], and its
 * place among the carried ones when a restore carried it over (checkpoints before had no 8th).
 */
type SavedRecord = [number, number, number, unknown, number | null, unknown, number, number?];

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
    queued: queued.map(({ key, envelope, carried }): SavedRecord => {
      const saved: SavedRecord = [
        key.time,
        key.channel,
        key.position,
        envelope.value,
        envelope.timestamp ?? null,
        envelope.source ?? null,
        envelope.position,
      ];
      if (carried !== undefined) saved.push(carried);
      return saved;
    }),
  };
}

/**
 * The records a checkpoint's old subtasks held (each once: a record of several subtasks' rows
 * waited on each) and the clocks of the first that held any, if any. When the input now has
 * another number of `channels` than the checkpoint's (an upstream rescaled), every record is
 * carried: numbered in the order they run, the same on every subtask, since each takes the same
 * union. (Their old keys could collide with the new channels' records, counted from 0 again.)
 */
export function restoredQueue(
  states: readonly unknown[],
  channels: number,
): { records: QueuedRecord[]; clocks: ChannelClockState[] } | undefined {
  const all = states.filter((s) => s !== undefined) as QueueSnapshot[];
  const saved = all[0];
  if (saved === undefined) return undefined;
  const seen = new Set<string>();
  let records: QueuedRecord[] = [];
  for (const state of all) {
    for (const [time, channel, position, value, timestamp, source, sourcePosition, carried] of state.queued) {
      const id = carried === undefined ? `${channel}:${position}` : `carried ${carried}`;
      if (seen.has(id)) continue;
      seen.add(id);
      const restored = envelope(
        value,
        undefined,
        -1,
        timestamp ?? undefined,
        (source ?? undefined) as Envelope['source'],
        sourcePosition,
      );
      const key: OrderKey = { time, channel, position };
      records.push(
        carried === undefined ? { key, envelope: restored } : { key, envelope: restored, carried },
      );
    }
  }
  if (saved.clocks.length !== channels) {
    // Carried ones first (they ran first), then the rest in the old layout's order.
    records.sort((a, b) =>
      a.carried !== undefined || b.carried !== undefined
        ? (a.carried ?? Number.POSITIVE_INFINITY) - (b.carried ?? Number.POSITIVE_INFINITY)
        : compareOrder(a.key, b.key),
    );
    records = records.map((record, i) => ({ key: record.key, envelope: record.envelope, carried: i }));
  }
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
