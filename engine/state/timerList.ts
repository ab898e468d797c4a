// A key group's cached timers in the store's order (timerGroup.ts). Each timer sits in a slot
// that never moves; the order is a typed array of slot numbers with room at both ends, so taking
// the first or the last, or adding before the first or after the last, moves nothing, and an
// insertion or removal in between moves the shorter side as one memmove. An array of the timers
// themselves moved every timer after the insertion point, each move of a reference paying V8's
// write barrier: the 2M-timer job, whose timers are set latest first, spent 8% of its run thread
// in that `splice` (measured). The times sit beside the slots in a Float64Array too, and the key
// texts in an array, so a binary search compares without reaching each timer object (a cache
// miss each).

/** The least room, in slots and in places of the order. */
const FIRST_CAPACITY = 16;

export class TimerList<T extends { readonly timestamp: number; readonly keyText: string }> {
  /** The timers by slot; a slot is reused once its timer is taken out (`free`). */
  private readonly slots: (T | undefined)[] = [];
  private readonly free: number[] = [];
  /** Each slot's timer's time. */
  private times = new Float64Array(FIRST_CAPACITY);
  /** Each slot's timer's key text (a binary search compares it where times are equal). */
  private readonly keys: string[] = [];
  /** Slot numbers in order, at [head, head + length). */
  private order: Int32Array;
  private head: number;
  length = 0;

  constructor(items: readonly T[] = []) {
    const capacity = Math.max(FIRST_CAPACITY, items.length * 2);
    this.order = new Int32Array(capacity);
    this.head = (capacity - items.length) >> 1;
    for (let i = 0; i < items.length; i++) this.order[this.head + i] = this.slotFor(items[i]!);
    this.length = items.length;
  }

  /** The timer at `index` (0 ≤ index < length). */
  at(index: number): T {
    return this.slots[this.order[this.head + index]!]!;
  }

  /** The time of the timer at `index`, read without reaching the timer. */
  timeAt(index: number): number {
    return this.times[this.order[this.head + index]!]!;
  }

  /** The key text of the timer at `index`, read without reaching the timer. */
  keyAt(index: number): string {
    return this.keys[this.order[this.head + index]!]!;
  }

  last(): T | undefined {
    return this.length === 0 ? undefined : this.at(this.length - 1);
  }

  push(item: T): void {
    this.insert(this.length, item);
  }

  /** Puts `item` at `index` (0 ≤ index ≤ length), moving the places before or after it, whichever are fewer. */
  insert(index: number, item: T): void {
    const slot = this.slotFor(item);
    const front = index < this.length - index;
    if (front ? this.head === 0 : this.head + this.length === this.order.length) this.recenter();
    const order = this.order;
    const head = this.head;
    if (front) {
      order.copyWithin(head - 1, head, head + index);
      this.head = head - 1;
    } else order.copyWithin(head + index + 1, head + index, head + this.length);
    order[this.head + index] = slot;
    this.length++;
  }

  /** Takes the timer at `index` out, moving the places before or after it, whichever are fewer. */
  removeAt(index: number): T {
    const order = this.order;
    const head = this.head;
    const slot = order[head + index]!;
    if (index < this.length - 1 - index) {
      order.copyWithin(head + 1, head, head + index);
      this.head = head + 1;
    } else order.copyWithin(head + index, head + index + 1, head + this.length);
    this.length--;
    return this.release(slot);
  }

  shift(): T | undefined {
    if (this.length === 0) return undefined;
    const slot = this.order[this.head]!;
    this.head++;
    this.length--;
    return this.release(slot);
  }

  pop(): T | undefined {
    if (this.length === 0) return undefined;
    this.length--;
    return this.release(this.order[this.head + this.length]!);
  }

  toArray(): T[] {
    const items = new Array<T>(this.length);
    for (let i = 0; i < this.length; i++) items[i] = this.at(i);
    return items;
  }

  private slotFor(item: T): number {
    const slot = this.free.length > 0 ? this.free.pop()! : this.slots.length;
    this.slots[slot] = item;
    if (slot === this.times.length) {
      const times = new Float64Array(this.times.length * 2);
      times.set(this.times);
      this.times = times;
    }
    this.times[slot] = item.timestamp;
    this.keys[slot] = item.keyText;
    return slot;
  }

  private release(slot: number): T {
    const item = this.slots[slot]!;
    this.slots[slot] = undefined;
    this.keys[slot] = '';
    this.free.push(slot);
    return item;
  }

  /** Puts the order in the middle of an array at least twice its length, room at both ends. */
  private recenter(): void {
    const capacity = Math.max(this.order.length, (this.length + 1) * 2);
    const head = (capacity - this.length) >> 1;
    if (capacity === this.order.length) this.order.copyWithin(head, this.head, this.head + this.length);
    else {
      const order = new Int32Array(capacity);
      order.set(this.order.subarray(this.head, this.head + this.length), head);
      this.order = order;
    }
    this.head = head;
  }
}
