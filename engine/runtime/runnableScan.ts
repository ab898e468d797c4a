// Which subtask an executor runs next: the most downstream one that can run. Scanning the whole
// order before every slice cost a slice O(subtasks), so a record crossing a chain of N
// operators cost N^2/2 looks (a chain of 16,000 map operators spent 15 s on ten records). The
// scan remembers instead where the last one began: the subtasks before it could not run then,
// and a slice changes only what its subtask shares a channel with (input that came, room that
// was made), so the next scan begins at the lowest of those. Everything else that makes a
// subtask runnable (mail: checkpoints, a call that settled, the clock; a stop; loops told that
// their input ended) starts the next scan from the top: the executor calls reset(). The order
// chosen is the full scan's, exactly.
import type { Subtask } from './subtask.js';

export class RunnableScan {
  /** Per position in `order`: the least position of itself and every subtask it shares a channel with. */
  private readonly lowestTouched: Int32Array;
  private readonly positions = new Map<Subtask, number>();
  /** The subtasks before this position cannot run (until a reset()). */
  private from = 0;

  constructor(
    /** Most downstream first. */
    private readonly order: readonly Subtask[],
  ) {
    const byName = new Map<string, number>();
    order.forEach((subtask, i) => {
      this.positions.set(subtask, i);
      byName.set(`${subtask.operator.id}\u0000${subtask.subtask}`, i);
    });
    // A channel's other end on another thread (the parallel executor) has no position here: what
    // comes from there arrives through a link, which resets.
    const at = (operator: string, subtask: number) =>
      byName.get(`${operator}\u0000${subtask}`) ?? Number.POSITIVE_INFINITY;
    this.lowestTouched = Int32Array.from(order, (subtask, i) => {
      let lowest = i;
      for (const channel of subtask.inputs)
        lowest = Math.min(lowest, at(channel.edge.from, channel.fromSubtask));
      for (const channel of subtask.emitter.allChannels) {
        lowest = Math.min(lowest, at(channel.edge.to, channel.toSubtask));
      }
      return lowest;
    });
  }

  /** The most downstream subtask that can run now, or undefined. */
  next(): Subtask | undefined {
    const order = this.order;
    for (let i = this.from; i < order.length; i++) {
      const subtask = order[i]!;
      if (subtask.runnable()) {
        this.from = i;
        return subtask;
      }
    }
    this.from = order.length;
    return undefined;
  }

  /** `subtask` (the last next()) ran a slice: its neighbours may run now. */
  ran(subtask: Subtask): void {
    const lowest = this.lowestTouched[this.positions.get(subtask)!]!;
    if (lowest < this.from) this.from = lowest;
  }

  /** Something besides a slice changed what can run: the next scan looks at every subtask. */
  reset(): void {
    this.from = 0;
  }
}
