// One firing of timers up to a time (a watermark, or the wall clock): every timer due, across
// the subtask's key groups, in order of time, then key group, then key (Flink fires a subtask's
// timers in time order too). Each key group's due timers are read in order from the store and
// merged, so a million due timers are read as they fire, never all held at once. A timer the
// firing itself registers, if due, fires in the same firing; one deleted before its turn does not.
import type { StoredTimer, TimerDomain, TimerStore } from '../state/timerStore.js';

interface Head {
  readonly iterator: AsyncGenerator<StoredTimer>;
  timer: StoredTimer;
  /** The store's deletion count when the group's read began. */
  readonly deletions: number;
}

function before(a: StoredTimer, b: StoredTimer): boolean {
  if (a.timestamp !== b.timestamp) return a.timestamp < b.timestamp;
  if (a.keyGroup !== b.keyGroup) return a.keyGroup < b.keyGroup;
  return a.entry < b.entry;
}

export class TimerFiring {
  private readonly heap: Head[] = [];

  constructor(
    private readonly timers: TimerStore,
    readonly domain: TimerDomain,
    /** Timers at or before this time fire. */
    readonly upTo: number,
  ) {}

  /** The next timer to fire, taken out of the store; undefined once none is due. */
  async next(): Promise<StoredTimer | undefined> {
    for (;;) {
      if (this.heap.length === 0) {
        // Either the start, or every group read so far is done: timers registered while they
        // fired may be due too.
        const groups = this.timers.dueKeyGroups(this.domain, this.upTo);
        if (groups.length === 0) return undefined;
        for (const keyGroup of groups) await this.openGroup(keyGroup);
        continue;
      }
      const head = this.heap[0]!;
      const timer = head.timer;
      const unchanged = head.deletions === this.timers.deletions;
      await this.advance(head);
      if (this.timers.take(this.domain, timer, unchanged)) return timer;
    }
  }

  private async openGroup(keyGroup: number): Promise<void> {
    this.timers.claim(this.domain, keyGroup);
    const deletions = this.timers.deletions;
    const iterator = this.timers.timers(this.domain, keyGroup);
    const first = await iterator.next();
    if (first.done) return;
    if (first.value.timestamp > this.upTo) {
      this.timers.lowerBound(this.domain, keyGroup, first.value.timestamp);
      await iterator.return(undefined);
      return;
    }
    this.push({ iterator, timer: first.value, deletions });
  }

  /** Moves the top head to its group's next due timer, or drops it. */
  private async advance(head: Head): Promise<void> {
    const next = await head.iterator.next();
    if (!next.done && next.value.timestamp <= this.upTo) {
      head.timer = next.value;
      this.siftDown(0);
      return;
    }
    if (!next.done) {
      this.timers.lowerBound(this.domain, next.value.keyGroup, next.value.timestamp);
      await head.iterator.return(undefined);
    }
    const last = this.heap.pop()!;
    if (this.heap.length > 0 && last !== head) {
      this.heap[0] = last;
      this.siftDown(0);
    }
  }

  /** The run stopped while firing: iterators still open are closed. */
  async close(): Promise<void> {
    const heads = this.heap.splice(0);
    await Promise.allSettled(heads.map((h) => h.iterator.return(undefined)));
  }

  private push(head: Head): void {
    const heap = this.heap;
    heap.push(head);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(heap[i]!.timer, heap[parent]!.timer)) break;
      [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
      i = parent;
    }
  }

  private siftDown(i: number): void {
    const heap = this.heap;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let least = i;
      if (left < heap.length && before(heap[left]!.timer, heap[least]!.timer)) least = left;
      if (right < heap.length && before(heap[right]!.timer, heap[least]!.timer)) least = right;
      if (least === i) return;
      [heap[i], heap[least]] = [heap[least]!, heap[i]!];
      i = least;
    }
  }
}
