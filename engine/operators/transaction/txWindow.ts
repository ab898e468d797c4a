// The transactions a subtask holds between their turn and their emit, in the serial order: a
// queue whose oldest leave as they emit. An index moves past those that left, and the array is
// cut only now and then: cutting it at every emit (splice) moved the whole window, up to 1,024
// entries, for each record while an old transaction waited for another subtask's rows.
import type { Pending } from './pending.js';

export class TxWindow {
  private items: Pending[] = [];
  private head = 0;

  get size(): number {
    return this.items.length - this.head;
  }

  push(pending: Pending): void {
    this.items.push(pending);
  }

  /** The oldest it holds. */
  first(): Pending | undefined {
    return this.items[this.head];
  }

  /** The oldest has emitted. */
  shift(): void {
    const head = this.head + 1;
    if (head === this.items.length) {
      this.items = [];
      this.head = 0;
    } else if (head >= 1024 && head * 2 >= this.items.length) {
      this.items.splice(0, head);
      this.head = 0;
    } else {
      this.head = head;
    }
  }

  /** What it holds, oldest first (snapshots of progress, time travel). */
  all(): Pending[] {
    return this.items.slice(this.head);
  }

  clear(): void {
    this.items = [];
    this.head = 0;
  }
}
