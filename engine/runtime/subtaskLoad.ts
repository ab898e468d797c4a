// Where a subtask's time goes, as Flink's task metrics say it since 1.13: busy (processing),
// backpressured (it has output ready, or a source is behind its schedule, but cannot hand it on)
// and idle (nothing to do). Its thread's LoadMeter (loadMeter.ts) adds the time up here; the
// figures are shares of the last second of measured time, in ms per second, so that they add up
// to 1000 (Flink's busyTimeMsPerSecond, backPressuredTimeMsPerSecond, idleTimeMsPerSecond).
// Measured time, not wall time: a paused run's pause is not in it, and a run that has ended keeps
// the figures of its last second.

export interface LoadFigures {
  readonly busyTimeMsPerSecond: number;
  readonly backPressuredTimeMsPerSecond: number;
  readonly idleTimeMsPerSecond: number;
}

/** The figures cover at least this much measured time (and a sampling interval more at most). */
export const LOAD_WINDOW_MS = 1000;
/** Readings closer together than this are not kept: a caller sampling in a loop costs no memory. */
const READING_EVERY_MS = 50;

interface Reading {
  readonly total: number;
  readonly busy: number;
  readonly backPressured: number;
  readonly idle: number;
}

export class SubtaskLoad {
  /** Time in each state since the run began, in ms. */
  busyMs = 0;
  backPressuredMs = 0;
  idleMs = 0;
  /** This subtask's index in its thread's meter. */
  slot = -1;
  /** Totals as they were when the figures were asked for, oldest first: the window's start is one of them. */
  private readings: Reading[] = [{ total: 0, busy: 0, backPressured: 0, idle: 0 }];

  /** Over the last LOAD_WINDOW_MS of measured time; undefined before any time was measured. */
  perSecond(): LoadFigures | undefined {
    const busy = this.busyMs;
    const backPressured = this.backPressuredMs;
    const idle = this.idleMs;
    const total = busy + backPressured + idle;
    const readings = this.readings;
    if (total - readings[readings.length - 1]!.total >= READING_EVERY_MS) {
      readings.push({ total, busy, backPressured, idle });
    }
    // The newest reading a whole window back starts it; older ones are of no more use.
    let start = 0;
    for (let i = readings.length - 1; i > 0; i--) {
      if (readings[i]!.total <= total - LOAD_WINDOW_MS) {
        start = i;
        break;
      }
    }
    if (start > 0) readings.splice(0, start);
    const from = readings[0]!;
    const span = total - from.total;
    if (span <= 0) return undefined;
    const backPressuredShare = Math.round((1000 * (backPressured - from.backPressured)) / span);
    const idleShare = Math.round((1000 * (idle - from.idle)) / span);
    // As Flink: busy is the rest, so the three add up to a second however they round.
    return {
      busyTimeMsPerSecond: Math.max(0, 1000 - backPressuredShare - idleShare),
      backPressuredTimeMsPerSecond: backPressuredShare,
      idleTimeMsPerSecond: idleShare,
    };
  }
}
