import { describe, expect, it } from 'vitest';
import { skewedIndexes, skewMessage } from './skew';

describe('skewedIndexes', () => {
  it('finds the subtasks above twice the mean', () => {
    // mean 25: 70 > 50
    expect(skewedIndexes([10, 10, 10, 70])).toEqual([3]);
  });

  it('does not flag exactly twice the mean, nor an even spread', () => {
    // mean 10, max 20
    expect(skewedIndexes([20, 5, 5, 10])).toEqual([]);
    expect(skewedIndexes([5, 5, 5, 5])).toEqual([]);
  });

  it('says nothing for one subtask or no state at all', () => {
    expect(skewedIndexes([100])).toEqual([]);
    expect(skewedIndexes([0, 0, 0])).toEqual([]);
    expect(skewedIndexes([])).toEqual([]);
  });

  it('flags a single subtask holding everything', () => {
    expect(skewedIndexes([0, 0, 9, 0])).toEqual([2]);
  });
});

describe('skewMessage', () => {
  it('names the subtasks', () => {
    expect(skewMessage([])).toBeUndefined();
    expect(skewMessage([2])).toBe('subtask 2 holds more than twice the mean');
    expect(skewMessage([0, 3])).toBe('subtasks 0 and 3 hold more than twice the mean');
    expect(skewMessage([0, 1, 5])).toBe('subtasks 0, 1 and 5 hold more than twice the mean');
  });
});
