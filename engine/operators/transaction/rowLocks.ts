// Calvin's deterministic locks, for the rows one subtask owns: each row's transactions queue in
// the serial order and the first in line holds it. Requests are made in that order on every
// subtask, so the oldest unfinished transaction always holds all its rows everywhere: nothing
// deadlocks, and nothing waits on a transaction that touches other rows.
export class RowLocks<T> {
  private readonly queues = new Map<string, T[]>();

  /** Queues `holder` for `row`; true when it holds the row at once. */
  request(row: string, holder: T): boolean {
    const queue = this.queues.get(row);
    if (queue === undefined) {
      this.queues.set(row, [holder]);
      return true;
    }
    queue.push(holder);
    return false;
  }

  /** Some transaction holds the row (or waits for it). */
  isHeld(row: string): boolean {
    return this.queues.has(row);
  }

  /** `holder`, first in line, is done with `row`: the next in line (who holds it now), if any. */
  release(row: string, holder: T): T | undefined {
    const queue = this.queues.get(row);
    if (queue === undefined || queue[0] !== holder)
      throw new Error(`internal: row ${row} released by a transaction that did not hold it`);
    queue.shift();
    if (queue.length === 0) {
      this.queues.delete(row);
      return undefined;
    }
    return queue[0];
  }

  /** Rows some transaction holds or waits for. */
  get size(): number {
    return this.queues.size;
  }

  clear(): void {
    this.queues.clear();
  }
}
