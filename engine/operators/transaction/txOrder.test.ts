import { describe, expect, it } from 'vitest';
import { envelope } from '../../runtime/envelope.js';
import { OrderedInput } from './txOrder.js';

const rec = (value: unknown, timestamp?: number) => envelope(value, undefined, -1, timestamp, undefined, 0);

/** Takes every runnable record, in order. */
function drain(input: OrderedInput): unknown[] {
  const out: unknown[] = [];
  for (let next = input.peek(); next !== undefined; next = input.peek()) {
    input.take(next);
    out.push(next.envelope.value);
  }
  return out;
}

describe('OrderedInput', () => {
  it('keeps one channel in its order', () => {
    const input = new OrderedInput(1);
    for (const v of ['a', 'b', 'c']) input.add(0, rec(v));
    expect(drain(input)).toEqual(['a', 'b', 'c']);
  });

  it('without event time merges channels round robin by position, waiting for a channel that may still bring an earlier one', () => {
    const input = new OrderedInput(2);
    input.add(0, rec('a0'));
    input.add(0, rec('a1'));
    // a0 (position 0, channel 0) goes first; a1 (1, 0) waits: channel 1 may still bring (0, 1).
    expect(drain(input)).toEqual(['a0']);
    input.add(1, rec('b0'));
    expect(drain(input)).toEqual(['b0', 'a1']);
    input.clocks[0]!.progress(Number.POSITIVE_INFINITY);
    input.add(1, rec('b1'));
    input.add(1, rec('b2'));
    expect(drain(input)).toEqual(['b1', 'b2']);
  });

  it('with event time merges by the highest time each channel has carried so far', () => {
    const input = new OrderedInput(2);
    input.add(0, rec('a@10', 10));
    input.add(0, rec('a@5', 5)); // out of order: its place is time 10, after a@10
    input.add(1, rec('b@7', 7));
    input.add(1, rec('b@20', 20));
    input.clocks[0]!.progress(Number.POSITIVE_INFINITY);
    input.clocks[1]!.progress(Number.POSITIVE_INFINITY);
    expect(drain(input)).toEqual(['b@7', 'a@10', 'a@5', 'b@20']);
  });

  it('a watermark lets the other channels go on up to it', () => {
    const input = new OrderedInput(2);
    input.add(0, rec('a@10', 10));
    input.add(1, rec('b@3', 3));
    expect(drain(input)).toEqual(['b@3']);
    // Channel 1 is at time 3: a@10 waits until channel 1 says it is past 10.
    input.clocks[1]!.progress(9);
    expect(drain(input)).toEqual([]);
    input.clocks[1]!.progress(11);
    expect(drain(input)).toEqual(['a@10']);
  });

  it('restores queued records and clocks; with another channel layout the restored records run first', () => {
    const input = new OrderedInput(2);
    input.add(0, rec('a0'));
    input.add(0, rec('a1'));
    input.add(0, rec('a2'));
    input.add(1, rec('b0'));
    expect(drain(input)).toEqual(['a0', 'b0', 'a1']);
    const queued = input.queued();
    const clocks = input.clocks.map((c) => c.state());
    expect(queued.map((r) => r.envelope.value)).toEqual(['a2']);

    const same = new OrderedInput(2);
    same.restore(queued, clocks);
    same.add(1, rec('b1'));
    expect(drain(same)).toEqual(['b1', 'a2']);

    const other = new OrderedInput(3);
    other.restore(queued, clocks);
    other.add(2, rec('c0'));
    expect(drain(other)).toEqual(['a2']);
  });
});
