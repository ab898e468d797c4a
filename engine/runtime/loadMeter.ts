// Measures where the time of one thread's subtasks goes (see subtaskLoad.ts), as Flink's task
// does with its mailbox's idle timer and its output's backpressure timer. Here many subtasks
// share a thread, so the executor marks each slice boundary: the time since the last mark is put
// down for every subtask of the thread as what it was doing, and what each does until the next
// mark is decided now. One pass over the thread's subtasks per slice, never per record; on a
// thread of many subtasks (a long chain), one pass every few milliseconds instead, which samples
// what they do: a pass per slice there was a pass over thousands of subtasks for each few records
// (a chain of 2,000 maps ran 3 times slower).
//
// What each subtask is doing between two marks:
// - the one the executor gave the slice is busy, except a source that made nothing in it (it
//   waited for its schedule, or on a server: nothing to do) and a source before its schedule
//   says its next records are due (idle until then);
// - one with nothing to do is idle: no input, a source that is exhausted or made nothing last
//   time, a source ahead of its schedule (until its records are due), a call waiting on the world;
// - one with something to do that cannot hand on what it makes is backpressured: its output has
//   no room (a full channel, no credit from another thread), or the executor gave the thread to a
//   subtask downstream of it, which is how one thread holds a producer back without any queue
//   filling (the most downstream subtask with input runs first: a producer waits while its
//   consumers have not yet taken what it gave them);
// - one with something to do that waits only for the thread (a sibling has it) is busy, as a
//   Flink task waiting for a CPU is: neither idle nor held back by its output.
import type { Emitter } from './emitter.js';
import type { SubtaskLoad } from './subtaskLoad.js';

/** What the meter reads of a subtask (a Subtask; tests give a stand-in). */
export interface MeteredSubtask {
  readonly label: string;
  readonly isSource: boolean;
  /** Records taken so far; a source's are the records it made. */
  readonly recordsIn: number;
  readonly load: SubtaskLoad;
  readonly emitter: Pick<Emitter, 'canSend' | 'allChannels'>;
  /** Something to do now, whether or not its output has room for what that would make. */
  hasWork(): boolean;
  /** A source on a schedule: when its next records are due (performance.now()); none: now. */
  dueAt(): number | undefined;
}

const IDLE = 0;
const BUSY = 1;
const HELD = 2;

/** Up to this many subtasks on a thread, every slice boundary is marked. */
const EXACT_UP_TO = 64;
/** Above it, a mark at most every ms for each this many subtasks: the passes cost ~1% of the thread. */
const SUBTASKS_PER_MS = 500;

export class LoadMeter {
  private readonly count: number;
  /** The least time between two marks (0: every slice boundary is marked). */
  private readonly every: number;
  /** producers[j]: the subtasks of this thread with a channel into subtask j (loops' way back aside). */
  private readonly producers: number[][];
  /** upstream[i] === stamp: subtask i is upstream of the one running, on this thread. */
  private readonly upstream: Uint32Array;
  private stamp = 0;
  private lastMark = Number.NEGATIVE_INFINITY;
  /** What each subtask does from the last mark on, and until when it is idle first (a schedule). */
  private readonly states: Uint8Array;
  private readonly idleUntil: Float64Array;
  /** Sources: their last slice made records (one that made none is idle until it runs again). */
  private readonly productive: Uint8Array;
  private last: number;
  /** The run is over: nothing more is put down. */
  private ended = false;
  private running = -1;
  private madeBefore = 0;

  constructor(
    private readonly subtasks: readonly MeteredSubtask[],
    now: number,
  ) {
    const n = subtasks.length;
    this.count = n;
    this.every = n <= EXACT_UP_TO ? 0 : Math.max(1, n / SUBTASKS_PER_MS);
    this.producers = producersOnThread(subtasks);
    this.upstream = new Uint32Array(n);
    this.states = new Uint8Array(n);
    this.idleUntil = new Float64Array(n);
    this.productive = new Uint8Array(n).fill(1);
    subtasks.forEach((s, i) => {
      s.load.slot = i;
    });
    this.last = now;
  }

  /**
   * A slice boundary: the time since the last mark is put down, then `next` has the thread
   * (undefined: none, the thread waits) until the next mark.
   */
  mark(now: number, next: MeteredSubtask | undefined): void {
    // Between marks the time goes on being put down as the last mark decided.
    if (this.every > 0 && now - this.lastMark < this.every) return;
    this.lastMark = now;
    this.settle(now);
    const ran = this.running;
    if (ran >= 0) {
      const source = this.subtasks[ran]!;
      if (source.isSource) this.productive[ran] = source.recordsIn !== this.madeBefore ? 1 : 0;
    }
    const running = next === undefined ? -1 : next.load.slot;
    this.running = running;
    const n = this.count;
    const subtasks = this.subtasks;
    const states = this.states;
    const idleUntil = this.idleUntil;
    const stamp = this.markUpstream(running);
    const upstream = this.upstream;
    for (let i = 0; i < n; i++) {
      const s = subtasks[i]!;
      if (i === running) {
        states[i] = BUSY;
        idleUntil[i] = s.isSource ? (s.dueAt() ?? 0) : 0;
        this.madeBefore = s.recordsIn;
        continue;
      }
      if (!s.hasWork() || (s.isSource && this.productive[i] === 0)) {
        states[i] = IDLE;
        idleUntil[i] = 0;
        continue;
      }
      idleUntil[i] = s.isSource ? (s.dueAt() ?? 0) : 0;
      const held = !s.emitter.canSend() || upstream[i] === stamp;
      states[i] = held ? HELD : BUSY;
    }
  }

  /**
   * Puts down the time up to `now` as each subtask is spending it, without a new mark (the
   * figures are read between marks, and the slice under way goes on as it was).
   */
  settle(now: number): void {
    if (this.ended) return;
    const from = this.last;
    const span = now - from;
    if (span <= 0) return;
    this.last = now;
    const running = this.running;
    // A source's slice that made nothing was a wait: for its schedule, or on a server.
    const ran = running >= 0 ? this.subtasks[running]! : undefined;
    const waited = ran?.isSource === true && ran.recordsIn === this.madeBefore;
    for (let i = 0; i < this.count; i++) {
      const load = this.subtasks[i]!.load;
      const until = this.idleUntil[i]!;
      const idle = until > from ? Math.min(until, now) - from : 0;
      const rest = span - idle;
      const state = i === running && waited ? IDLE : this.states[i];
      load.idleMs += idle;
      if (state === BUSY) load.busyMs += rest;
      else if (state === HELD) load.backPressuredMs += rest;
      else load.idleMs += rest;
    }
  }

  /** The executor's run is over: the time up to `now` is put down, and no more after it. */
  end(now: number): void {
    this.settle(now);
    this.ended = true;
  }

  /**
   * Marks the subtasks upstream of `running` (none for -1) with a new stamp, and returns it: a
   * walk up from the one running, not a table of every pair (a chain of n subtasks is n² pairs).
   */
  private markUpstream(running: number): number {
    if (this.stamp === 0xffffffff) {
      this.upstream.fill(0);
      this.stamp = 0;
    }
    const stamp = ++this.stamp;
    if (running < 0) return stamp;
    const upstream = this.upstream;
    const stack = [...this.producers[running]!];
    while (stack.length > 0) {
      const i = stack.pop()!;
      if (upstream[i] === stamp) continue;
      upstream[i] = stamp;
      for (const p of this.producers[i]!) stack.push(p);
    }
    return stamp;
  }

  /** The time since the last mark is not measured (the run was paused): the next mark starts afresh. */
  skip(now: number): void {
    this.last = now;
  }
}

/**
 * Which subtasks of this thread feed which, over the channels between them (feedback edges
 * aside: a loop's way back does not hold its head back). A path through another thread does not
 * count: there the channel's credit says whether the producer is held back.
 */
function producersOnThread(subtasks: readonly MeteredSubtask[]): number[][] {
  const index = new Map(subtasks.map((s, i) => [s.label, i]));
  const producers: Set<number>[] = subtasks.map(() => new Set());
  subtasks.forEach((s, i) => {
    for (const channel of s.emitter.allChannels) {
      if (channel.edge.feedback) continue;
      const target = index.get(`${channel.edge.to}#${channel.toSubtask}`);
      if (target !== undefined) producers[target]!.add(i);
    }
  });
  return producers.map((p) => [...p]);
}
