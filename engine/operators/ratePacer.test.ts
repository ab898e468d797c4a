// A source's ratePerSec on a clock of its own (performance.now() faked): how many records the
// pacer lets a source make by a given time, slice after slice as the executor would ask.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RatePacer } from './ratePacer.js';

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['performance', 'setTimeout'] });
});
afterEach(() => {
  vi.useRealTimers();
});

/** Slices as the executor runs them at this moment, until the pacer says wait: the records made. */
function sliceUntilWait(pacer: RatePacer): number {
  let made = 0;
  for (let slices = 0; slices < 1_000_000; slices++) {
    if (pacer.wait() !== undefined) return made;
    pacer.made(pacer.perSlice);
    made += pacer.perSlice;
  }
  throw new Error('the pacer never said wait');
}

describe('RatePacer', () => {
  it('makes 5,000 records a second in slices of 50, one slice ahead of its schedule', () => {
    const pacer = new RatePacer(5000, 1);
    expect(pacer.perSlice).toBe(50);
    let made = sliceUntilWait(pacer);
    for (let t = 10; t <= 1000; t += 10) {
      vi.advanceTimersByTime(10);
      made += sliceUntilWait(pacer);
    }
    expect(made).toBe(5000 + 50);
  });

  it('makes up for a thread woken late (a loaded machine), up to 100 ms of it', () => {
    const pacer = new RatePacer(5000, 1);
    let made = sliceUntilWait(pacer);
    // Its timer was due at 10 ms and fires at 90 ms: what was due by then comes at once.
    vi.advanceTimersByTime(90);
    made += sliceUntilWait(pacer);
    expect(made).toBe(5000 * 0.09 + 50);
    // Held back for 10 s (backpressure, a stall, a pause): 100 ms' worth, not ten seconds'.
    vi.advanceTimersByTime(10_000);
    expect(sliceUntilWait(pacer)).toBe(5000 * 0.1 + 50);
  });

  it('starts its schedule with its first slice, whenever that comes', () => {
    const pacer = new RatePacer(5000, 1);
    // The job took 2 s to open: those are not owed.
    vi.advanceTimersByTime(2000);
    expect(sliceUntilWait(pacer)).toBe(50);
    vi.advanceTimersByTime(100);
    expect(sliceUntilWait(pacer)).toBe(500);
  });
});
