// One key of a window operator and the accumulators of its windows held on the heap
// (windowAccumulators.ts). A record finds its key once and its windows beside it: the first four
// in the key's own fields, so that a record of a sliding window (size / slide windows, three or
// four open at a time) and the firing of one touch one object, where a Map of keys per window
// and an object per (key, window) cost a cache miss per window. More windows (a slide much
// smaller than the size, or event time far ahead of the watermark) go on in an array.
//
// A window is kept by its place: its start less the first start the operator saw, a small
// integer that V8 keeps in the object itself (a start in epoch ms would be a number boxed apart
// from it: one more cache miss per look-up).

// The bits of a held (key, window)'s flags.
/** Keyed state holds this (key, window) too: it was read from there or written back. */
export const STORED = 1;
/**
 * Its timers are registered (it was read from the store or written back). They stay when it fires
 * from here: a timer at one time may also be another window's cleanup, and a timer that finds its
 * window gone or held here does nothing (WindowLogic's windowTimer).
 */
export const TIMERS = 2;
/** Changed since it was last read or written back. */
export const DIRTY = 4;

/** Windows kept in the key's own fields. */
const INLINE = 4;
/** A window beyond them takes four entries of `more`: its place, accumulator, flags, bytes. */
const PLACE = 0;
const ACC = 1;
const FLAGS = 2;
const BYTES = 3;
const SLOT = 4;

/** A key's window: 0 to `windows` − 1, the first INLINE of them in fields, the rest in `more`. */
export type Slot = number;

export class HeldKey {
  /** Windows held for the key, in slots 0 to windows − 1. */
  windows = 0;
  // Slots 0-3: place, accumulator, flags, bytes (for the state size while not stored).
  private p0 = 0;
  private a0: unknown = undefined;
  private f0 = 0;
  private b0 = 0;
  private p1 = 0;
  private a1: unknown = undefined;
  private f1 = 0;
  private b1 = 0;
  private p2 = 0;
  private a2: unknown = undefined;
  private f2 = 0;
  private b2 = 0;
  private p3 = 0;
  private a3: unknown = undefined;
  private f3 = 0;
  private b3 = 0;
  /** Slots from INLINE on, four entries each; it keeps its length as windows come and go. */
  private more: unknown[] | undefined;

  constructor(
    readonly keyGroup: number,
    readonly key: unknown,
    /** The key as keyed state encodes it, and whether `<` orders it as UTF-8 does (no unit ≥ U+D800). */
    readonly keyText: string,
    readonly plain: boolean,
  ) {}

  /** The window at `place`, or -1. */
  slotOf(place: number): Slot {
    const n = this.windows;
    if (n > 0 && this.p0 === place) return 0;
    if (n > 1 && this.p1 === place) return 1;
    if (n > 2 && this.p2 === place) return 2;
    if (n > 3 && this.p3 === place) return 3;
    for (let at = INLINE; at < n; at++) if (this.more![(at - INLINE) * SLOT + PLACE] === place) return at;
    return -1;
  }

  /** A window more; `flags` are the bits above, `bytes` its entry's estimated size while not stored. */
  add(place: number, acc: unknown, flags: number, bytes: number): void {
    const at = this.windows++;
    if (at >= INLINE) this.more ??= [];
    this.set(at, place, acc, flags, bytes);
  }

  /** The window at `at` goes; the last one takes its slot (their order means nothing). */
  remove(at: Slot): void {
    const last = --this.windows;
    if (at !== last) this.set(at, this.placeAt(last), this.acc(last), this.flags(last), this.bytes(last));
    // What the last slot held is not kept alive by it.
    this.setAcc(last, undefined);
  }

  placeAt(at: Slot): number {
    switch (at) {
      case 0:
        return this.p0;
      case 1:
        return this.p1;
      case 2:
        return this.p2;
      case 3:
        return this.p3;
      default:
        return this.more![(at - INLINE) * SLOT + PLACE] as number;
    }
  }

  acc(at: Slot): unknown {
    switch (at) {
      case 0:
        return this.a0;
      case 1:
        return this.a1;
      case 2:
        return this.a2;
      case 3:
        return this.a3;
      default:
        return this.more![(at - INLINE) * SLOT + ACC];
    }
  }

  setAcc(at: Slot, acc: unknown): void {
    switch (at) {
      case 0:
        this.a0 = acc;
        return;
      case 1:
        this.a1 = acc;
        return;
      case 2:
        this.a2 = acc;
        return;
      case 3:
        this.a3 = acc;
        return;
      default:
        this.more![(at - INLINE) * SLOT + ACC] = acc;
    }
  }

  flags(at: Slot): number {
    switch (at) {
      case 0:
        return this.f0;
      case 1:
        return this.f1;
      case 2:
        return this.f2;
      case 3:
        return this.f3;
      default:
        return this.more![(at - INLINE) * SLOT + FLAGS] as number;
    }
  }

  setFlags(at: Slot, flags: number): void {
    switch (at) {
      case 0:
        this.f0 = flags;
        return;
      case 1:
        this.f1 = flags;
        return;
      case 2:
        this.f2 = flags;
        return;
      case 3:
        this.f3 = flags;
        return;
      default:
        this.more![(at - INLINE) * SLOT + FLAGS] = flags;
    }
  }

  bytes(at: Slot): number {
    switch (at) {
      case 0:
        return this.b0;
      case 1:
        return this.b1;
      case 2:
        return this.b2;
      case 3:
        return this.b3;
      default:
        return this.more![(at - INLINE) * SLOT + BYTES] as number;
    }
  }

  setBytes(at: Slot, bytes: number): void {
    switch (at) {
      case 0:
        this.b0 = bytes;
        return;
      case 1:
        this.b1 = bytes;
        return;
      case 2:
        this.b2 = bytes;
        return;
      case 3:
        this.b3 = bytes;
        return;
      default:
        this.more![(at - INLINE) * SLOT + BYTES] = bytes;
    }
  }

  private set(at: Slot, place: number, acc: unknown, flags: number, bytes: number): void {
    switch (at) {
      case 0:
        this.p0 = place;
        break;
      case 1:
        this.p1 = place;
        break;
      case 2:
        this.p2 = place;
        break;
      case 3:
        this.p3 = place;
        break;
      default:
        this.more![(at - INLINE) * SLOT + PLACE] = place;
    }
    this.setAcc(at, acc);
    this.setFlags(at, flags);
    this.setBytes(at, bytes);
  }
}
