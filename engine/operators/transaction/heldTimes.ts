// The event times of the records a transaction operator has taken and not yet emitted (or
// skipped): the watermark it passes on waits for the least of them, so a transaction that ran
// late in the serial order is not late downstream. A binary heap with deletions kept aside
// until they reach its top: a record costs O(log n) in and out.
export class HeldTimes {
  private readonly heap: number[] = [];
  /** Times let go of while not at the top, with how many of each. */
  private readonly gone = new Map<number, number>();

  add(time: number): void {
    const heap = this.heap;
    let i = heap.push(time) - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (heap[parent]! <= time) break;
      heap[i] = heap[parent]!;
      i = parent;
    }
    heap[i] = time;
  }

  remove(time: number): void {
    this.gone.set(time, (this.gone.get(time) ?? 0) + 1);
  }

  /** The least time held, Infinity when none. */
  least(): number {
    const heap = this.heap;
    while (heap.length > 0) {
      const top = heap[0]!;
      const gone = this.gone.get(top);
      if (gone === undefined) return top;
      if (gone === 1) this.gone.delete(top);
      else this.gone.set(top, gone - 1);
      this.pop();
    }
    return Number.POSITIVE_INFINITY;
  }

  clear(): void {
    this.heap.length = 0;
    this.gone.clear();
  }

  private pop(): void {
    const heap = this.heap;
    const last = heap.pop()!;
    if (heap.length === 0) return;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= heap.length) break;
      const right = left + 1;
      const child = right < heap.length && heap[right]! < heap[left]! ? right : left;
      if (heap[child]! >= last) break;
      heap[i] = heap[child]!;
      i = child;
    }
    heap[i] = last;
  }
}
