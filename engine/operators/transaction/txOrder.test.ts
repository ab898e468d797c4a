import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SkipTally } from '../../runtime/edgeRouter.js';
import { envelope } from '../../runtime/envelope.js';
import { ChannelClock, OrderedInput } from './txOrder.js';

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

    // Into another layout every record comes carried (as restoredQueue marks them).
    const other = new OrderedInput(3);
    other.restore(
      queued.map((r, i) => ({ ...r, carried: i })),
      clocks,
    );
    other.add(2, rec('c0'));
    expect(drain(other)).toEqual(['a2']);
  });
});

// A routed edge (runtime/edgeRouter.ts) sends a subtask only the records of its rows and counts
// the others (SkipTally); the subtask's clock must then give its records the keys, and the
// channel the bounds, that a clock taking every record gives: that is the serial order.
type Event =
  | { readonly kind: 'record'; readonly timestamp: number | undefined; readonly mine: boolean }
  | { readonly kind: 'watermark'; readonly timestamp: number }
  | { readonly kind: 'mark' }
  | { readonly kind: 'restore' };

const eventArb: fc.Arbitrary<Event> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('record' as const),
      timestamp: fc.option(fc.integer({ min: 0, max: 60 }), { nil: undefined }),
      mine: fc.boolean(),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('watermark' as const),
      timestamp: fc.integer({ min: 0, max: 60 }),
    }),
  },
  { weight: 2, arbitrary: fc.constant({ kind: 'mark' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'restore' as const }) },
);

describe('ChannelClock told of skipped records', () => {
  it('numbers its records, and bounds the channel, as a clock that took every record', () => {
    fc.assert(
      fc.property(fc.array(eventArb, { maxLength: 60 }), (events) => {
        let all = new ChannelClock(0);
        let mine = new ChannelClock(0);
        let tally = new SkipTally(1);
        // What the producer's emitter has sent since it opened: a restore opens a new one.
        let watermark = Number.NEGATIVE_INFINITY;
        const told = () => {
          const skipped = tally.take(0);
          if (skipped !== undefined) mine.skip(skipped);
        };
        for (const event of events) {
          switch (event.kind) {
            case 'record': {
              const key = all.stamp(event.timestamp);
              if (!event.mine) {
                tally.skip(0, event.timestamp, watermark);
                break;
              }
              told();
              expect(mine.stamp(event.timestamp)).toEqual(key);
              break;
            }
            case 'watermark':
              watermark = Math.max(watermark, event.timestamp);
              all.progress(event.timestamp);
              mine.progress(event.timestamp);
              break;
            case 'mark':
              told();
              expect(mine.bound()).toEqual(all.bound());
              break;
            case 'restore': {
              // A barrier: the producer tells what it skipped first, then both clocks are
              // checkpointed and come back; the producer starts afresh.
              told();
              const saved = [all.state(), mine.state()] as const;
              all = new ChannelClock(0);
              all.restore(saved[0]);
              mine = new ChannelClock(0);
              mine.restore(saved[1]);
              tally = new SkipTally(1);
              watermark = Number.NEGATIVE_INFINITY;
              break;
            }
          }
        }
      }),
      { numRuns: 2000 },
    );
  });
});
