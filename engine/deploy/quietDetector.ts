// When is a job on several threads quiet: nothing runs anywhere and nothing is in flight between
// threads? Loop heads wait for that moment (see DeterministicExecutor.advanceLoops, which on
// one thread simply sees it). Each thread reports its state when it runs out of work; no thread
// can see the others, so this uses Mattern's four-counter method: once every thread's last
// report says it is quiet and the messages sent equal those received, every thread is asked
// again (a second wave); if all are still quiet and their counts have not moved since the first
// wave, no message was in flight in between and the job is quiet. The main thread's own
// messages that make a thread send (a checkpoint's trigger) are not counted by the threads: one
// sent during the second wave voids it, and the next wave, asked after it, sees what it caused.
import type { PartStatus } from '../runtime/partExecutor.js';

/** What the job does at a quiet moment (as advanceLoops does on one thread). */
export type QuietAction =
  /** Loop heads told that input ended have no more records coming round: they close. */
  | 'closeLoops'
  /** Loop heads whose regular input ended are told so. */
  | 'tellLoopsEnded'
  /** A call waits on a promise nothing is left to settle. */
  | 'neverSettles'
  /** Nothing is left to run, yet some subtask has not finished. */
  | 'stalled'
  /** Every subtask has finished. */
  | 'none';

export class QuietDetector {
  private readonly reports: (PartStatus | undefined)[];
  private round = 0;
  /** The first wave's counts of the round in progress, per thread. */
  private wave: readonly PartStatus[] | undefined;
  private readonly answers = new Map<number, PartStatus>();
  /** The threads were sent work during the wave in progress. */
  private mailedDuringWave = false;

  constructor(
    private readonly threads: number,
    /** Asks every thread for its state now, tagged with `round`. */
    private readonly probe: (round: number) => void,
    private readonly onQuiet: (action: QuietAction) => void,
  ) {
    this.reports = new Array(threads).fill(undefined);
  }

  /** A thread ran out of work. */
  reported(thread: number, status: PartStatus): void {
    this.reports[thread] = status;
    this.maybeProbe();
  }

  /**
   * The main thread sent the threads something that can make them send (a checkpoint's
   * trigger). A thread that answers the wave before it takes it would look quiet, and what it
   * sends afterwards would come after the action (a loop head closed while a barrier goes
   * round to it). Probes go after it on the same ports, so the next wave sees it.
   */
  mailed(): void {
    if (this.wave !== undefined) this.mailedDuringWave = true;
  }

  /** Starts the second wave once the latest reports all say quiet, with nothing in flight. */
  private maybeProbe(): void {
    if (this.wave !== undefined) return;
    const all = this.reports;
    if (!all.every((r) => r?.quiet === true)) return;
    if (!balanced(all as PartStatus[])) return;
    this.wave = [...(all as PartStatus[])];
    this.mailedDuringWave = false;
    this.answers.clear();
    this.probe(++this.round);
  }

  /**
   * A thread's answer to the second wave. It is that thread's latest word, as a report is: a
   * thread's messages come in the order it sent them, so whichever came last says where it
   * stands, and a report that comes after it replaces it.
   */
  probed(thread: number, round: number, status: PartStatus): void {
    if (round !== this.round || this.wave === undefined) return;
    this.answers.set(thread, status);
    this.reports[thread] = status;
    if (this.answers.size < this.threads) return;
    const first = this.wave;
    const second = [...Array(this.threads).keys()].map((t) => this.answers.get(t)!);
    this.wave = undefined;
    const still =
      !this.mailedDuringWave &&
      second.every((s, t) => s.quiet && s.sent === first[t]!.sent && s.received === first[t]!.received);
    if (!still) {
      // Someone moved, or was sent work. The latest reports (answers, or reports that came
      // after them) may start the next round at once: no other report may follow. Not the
      // answers alone: a thread that answered while it ran (or before a message reached it)
      // and then reported, all before the last answer came, reports nothing more once asleep.
      this.maybeProbe();
      return;
    }
    // What the action changes, the threads report afresh.
    this.reports.fill(undefined);
    this.onQuiet(actionAt(second));
  }
}

function balanced(statuses: readonly PartStatus[]): boolean {
  let sent = 0;
  let received = 0;
  for (const s of statuses) {
    sent += s.sent;
    received += s.received;
  }
  return sent === received;
}

function actionAt(statuses: readonly PartStatus[]): QuietAction {
  const sum = (f: (s: PartStatus) => number) => statuses.reduce((n, s) => n + f(s), 0);
  if (statuses.some((s) => s.waitsOnNothing)) return 'neverSettles';
  if (sum((s) => s.drainingLoop) > 0) return 'closeLoops';
  if (sum((s) => s.awaitingLoop) > 0) return 'tellLoopsEnded';
  if (sum((s) => s.unfinished) > 0) return 'stalled';
  return 'none';
}
