// Where a subtask's inputs' watermarks become its own (Flink's StatusWatermarkValve): each regular
// input channel's watermark is the last it brought, an ended channel's is +Infinity, and the
// subtask's is the least of them over the channels that are not idle. It never goes back: a
// channel that comes back from idle behind it cannot pull it back. Feedback channels carry no
// watermarks and are not counted: a loop head's event time is that of its regular inputs, or
// the watermark would wait on its own output forever.
import type { Channel } from './channel.js';
import { NO_WATERMARK } from './timers.js';

/** A time as JSON holds it: JSON has no infinities. */
export type StoredTime = number | '+inf' | '-inf';

/** A valve's position, as checkpoints keep it: per input channel, then the combined one. */
export interface ValveState {
  /** [edge id, producer subtask, watermark] per regular input channel. */
  readonly inputs: readonly (readonly [string, number, StoredTime])[];
  readonly current: StoredTime;
}

export class WatermarkValve {
  private readonly marks: number[];
  private readonly idle: boolean[];
  private readonly index = new Map<Channel, number>();
  private idleCount = 0;
  /** The subtask's watermark. */
  current = NO_WATERMARK;
  /** Every regular input is idle (or there is none): the subtask's own output is idle. */
  allIdle = false;

  constructor(private readonly channels: readonly Channel[]) {
    const regular = channels.filter((c) => !c.edge.feedback);
    regular.forEach((channel, i) => {
      this.index.set(channel, i);
    });
    this.marks = regular.map(() => NO_WATERMARK);
    this.idle = regular.map(() => false);
  }

  private slot(channel: Channel): number | undefined {
    return this.index.get(channel);
  }

  /** A watermark came on `channel`: the subtask's new watermark if it advanced. */
  watermark(channel: Channel, timestamp: number): number | undefined {
    const i = this.slot(channel);
    if (i === undefined) return undefined;
    this.activate(i);
    if (timestamp <= this.marks[i]!) return undefined;
    this.marks[i] = timestamp;
    return this.combine();
  }

  /** The channel ended: it holds nothing back any more. */
  ended(channel: Channel): number | undefined {
    return this.watermark(channel, Number.POSITIVE_INFINITY);
  }

  /** The channel's producer went idle. The new watermark, if leaving it out advanced it. */
  markIdle(channel: Channel): number | undefined {
    const i = this.slot(channel);
    if (i === undefined || this.idle[i]) return undefined;
    this.idle[i] = true;
    this.idleCount++;
    return this.combine();
  }

  /** A record came on `channel`: an idle channel is active again. */
  recordOn(channel: Channel): void {
    if (this.idleCount === 0) return;
    const i = this.slot(channel);
    if (i !== undefined) this.activate(i);
  }

  private activate(i: number): void {
    if (!this.idle[i]) return;
    this.idle[i] = false;
    this.idleCount--;
    this.allIdle = false;
  }

  private combine(): number | undefined {
    let least = Number.POSITIVE_INFINITY;
    let active = 0;
    for (let i = 0; i < this.marks.length; i++) {
      if (this.idle[i]) continue;
      active++;
      const mark = this.marks[i]!;
      if (mark < least) least = mark;
    }
    this.allIdle = active === 0;
    if (active === 0 || least <= this.current) return undefined;
    this.current = least;
    return least;
  }

  state(): ValveState {
    const regular = this.channels.filter((c) => !c.edge.feedback);
    return {
      inputs: regular.map((c, i) => [c.edge.id, c.fromSubtask, storedTime(this.marks[i]!)] as const),
      current: storedTime(this.current),
    };
  }

  /**
   * Puts the valve back as checkpoints left it. At the same parallelism each channel gets its
   * own watermark back; where the producers were rescaled, every channel starts at the least
   * watermark the old subtasks had, which holds back no record the run had not already passed.
   */
  restore(states: readonly ValveState[]): void {
    if (states.length === 0) return;
    const byChannel = new Map<string, number>();
    let least = Number.POSITIVE_INFINITY;
    for (const state of states) {
      least = Math.min(least, fromStored(state.current));
      for (const [edge, from, mark] of state.inputs) byChannel.set(`${edge}\0${from}`, fromStored(mark));
    }
    const exact = states.length === 1;
    this.index.forEach((i, channel) => {
      const own = byChannel.get(`${channel.edge.id}\0${channel.fromSubtask}`);
      this.marks[i] = exact && own !== undefined ? own : least;
    });
    this.current = exact ? fromStored(states[0]!.current) : least;
  }
}

export function storedTime(value: number): StoredTime {
  if (value === Number.POSITIVE_INFINITY) return '+inf';
  if (value === Number.NEGATIVE_INFINITY) return '-inf';
  return value;
}

export function fromStored(value: StoredTime): number {
  if (value === '+inf') return Number.POSITIVE_INFINITY;
  if (value === '-inf') return Number.NEGATIVE_INFINITY;
  return value;
}
