// The random numbers of one NEXMark event: reseeded from (seed, event number) before each event,
// so event n is the same whatever subtask makes it, after whatever events came before it there.
// (Flink's generator draws from one unseeded SplittableRandom per subtask; Beam's original seeds
// a Random with the event id, which is what this follows.)

const TWO_POW_32 = 2 ** 32;

/** murmur3's finalizer: spreads every input bit over the 32 output bits. */
function mix32(h: number): number {
  let x = h;
  x = Math.imul(x ^ (x >>> 16), 0x85ebca6b);
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35);
  return (x ^ (x >>> 16)) >>> 0;
}

export class EventRandom {
  private state = 0;

  /** Starts the sequence of event `eventNumber` (a whole number below 2^53) for `seed`. */
  reseed(seed: number, eventNumber: number): this {
    const seedLo = seed | 0;
    const seedHi = Math.floor(seed / TWO_POW_32) | 0;
    const lo = eventNumber >>> 0;
    const hi = Math.floor(eventNumber / TWO_POW_32) >>> 0;
    let h = mix32(seedLo ^ 0x9e3779b9);
    h = mix32(h ^ seedHi);
    h = mix32(h ^ lo);
    this.state = mix32(h ^ Math.imul(hi, 0x27d4eb2f)) | 0;
    return this;
  }

  /** mulberry32: a uniform 32-bit unsigned integer. */
  nextUint32(): number {
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = Math.imul(this.state ^ (this.state >>> 15), 1 | this.state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return (t ^ (t >>> 14)) >>> 0;
  }

  /** Uniform in [0, 1), with 53 bits. */
  nextDouble(): number {
    const high = this.nextUint32() >>> 5;
    const low = this.nextUint32() >>> 6;
    return (high * 67108864 + low) / 9007199254740992;
  }

  /** Uniform whole number in [0, bound), bound at least 1. */
  nextInt(bound: number): number {
    if (bound <= TWO_POW_32) return Math.floor((this.nextUint32() / TWO_POW_32) * bound);
    return Math.floor(this.nextDouble() * bound);
  }
}
