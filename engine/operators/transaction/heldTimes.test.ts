import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../../test/checkpointHelpers.js';
import { HeldTimes } from './heldTimes.js';

describe('HeldTimes', () => {
  it('is empty at Infinity', () => {
    expect(new HeldTimes().least()).toBe(Number.POSITIVE_INFINITY);
  });

  it('gives the least time held through any order of adds and removes, duplicates included', () => {
    const random = seededRandom(15);
    const held = new HeldTimes();
    const reference: number[] = [];
    for (let step = 0; step < 5000; step++) {
      if (reference.length === 0 || random() < 0.55) {
        const time = Math.floor(random() * 200);
        held.add(time);
        reference.push(time);
      } else {
        const time = reference.splice(Math.floor(random() * reference.length), 1)[0]!;
        held.remove(time);
      }
      expect(held.least(), `step ${step}`).toBe(
        reference.length === 0 ? Number.POSITIVE_INFINITY : Math.min(...reference),
      );
    }
  });
});
