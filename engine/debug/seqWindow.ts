// Per-step facts kept for the last steps of a debug run only, so that a long run holds bounded
// memory: a window of consecutive step numbers, the oldest dropped as new ones come.

export class SeqWindow<T> {
  private items: (T | undefined)[] = [];
  /** The step number of items[0]. */
  private first = 1;

  constructor(private readonly capacity: number) {}

  get(seq: number): T | undefined {
    return seq >= this.first ? this.items[seq - this.first] : undefined;
  }

  /** Sets step `seq`, which may be at most one past the last kept. */
  set(seq: number, item: T): void {
    if (seq < this.first) return;
    const end = this.first + this.items.length;
    if (seq > end) {
      // A gap (steps not kept in between): start afresh from here.
      this.items = [];
      this.first = seq;
    }
    this.items[seq - this.first] = item;
    if (this.items.length > this.capacity + this.capacity / 4) {
      const drop = this.items.length - this.capacity;
      this.items = this.items.slice(drop);
      this.first += drop;
    }
  }

  /** Forgets every step after `seq`. */
  truncateAfter(seq: number): void {
    if (seq < this.first) {
      this.items = [];
      this.first = seq + 1;
      return;
    }
    this.items.length = Math.min(this.items.length, seq - this.first + 1);
  }

  /** The oldest step kept. */
  get oldest(): number {
    return this.first;
  }
}
