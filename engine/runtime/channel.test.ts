// LocalChannel: a FIFO that keeps its storage. Every record passes through one or two channels,
// so a queue that gave up its array whenever it ran empty and grew it again allocated ~40 bytes
// a record (V8's sampling heap profiler, garbage included).
import { describe, expect, it } from 'vitest';
import { bytesPerCall } from '../../test/bytesAllocated.js';
import type { PlannedEdge } from '../graph/plan.js';
import { LocalChannel } from './channel.js';
import { type ChannelItem, envelope, watermark } from './envelope.js';

function channel(capacity = 1000, feedback = false) {
  const counter = { queued: 0 };
  const edge = { id: 'e', feedback } as unknown as PlannedEdge;
  return { counter, channel: new LocalChannel(edge, 0, 0, capacity, counter) };
}

const record = (n: number) => envelope(n, undefined, -1, undefined, undefined, n);

function drain(c: LocalChannel): ChannelItem[] {
  const out: ChannelItem[] = [];
  for (let item = c.shift(); item !== undefined; item = c.shift()) out.push(item);
  return out;
}

describe('LocalChannel', () => {
  it('is first in, first out across growth and wrap-around, and counts what is queued', () => {
    const { channel: c, counter } = channel(4);
    let next = 0;
    let expected = 0;
    for (let round = 0; round < 50; round++) {
      const pushes = (round * 7) % 13;
      for (let i = 0; i < pushes; i++) c.push(record(next++));
      expect(c.size).toBe(next - expected);
      expect(counter.queued).toBe(next - expected);
      expect(c.full).toBe(c.size >= 4);
      const shifts = (round * 5) % 11;
      for (let i = 0; i < shifts && c.size > 0; i++) {
        expect((c.shift() as { value: number }).value).toBe(expected++);
      }
      expect(c.contents().map((item) => (item as { value: number }).value)).toEqual(
        Array.from({ length: next - expected }, (_, i) => expected + i),
      );
    }
    expect(drain(c).length).toBe(next - expected);
    expect(c.shift()).toBeUndefined();
    expect(counter.queued).toBe(0);
  });

  it('lets a watermark right behind another take its place, also after a wrap', () => {
    const { channel: c } = channel();
    for (let i = 0; i < 3; i++) c.push(record(i));
    drain(c);
    c.push(watermark(1));
    c.push(watermark(2));
    c.push(record(9));
    c.push(watermark(3));
    expect(drain(c)).toEqual([watermark(2), record(9), watermark(3)]);
    // Nothing queued: a watermark is queued, not merged with one already taken.
    c.push(watermark(4));
    expect(drain(c)).toEqual([watermark(4)]);
  });

  it('is put back as its contents were (time travel)', () => {
    const { channel: c, counter } = channel();
    for (let i = 0; i < 10; i++) c.push(record(i));
    for (let i = 0; i < 4; i++) c.shift();
    const saved = c.contents();
    drain(c);
    c.push(record(99));
    c.restore(saved, 7, false);
    expect(counter.queued).toBe(6);
    expect(c.delivered).toBe(7);
    c.push(record(10));
    expect(drain(c).map((item) => (item as { value: number }).value)).toEqual([4, 5, 6, 7, 8, 9, 10]);
  });

  it('allocates nothing of its own per item once it has grown', async () => {
    const { channel: c } = channel(1024);
    const items = Array.from({ length: 1000 }, (_, i) => record(i));
    const cycle = () => {
      // Indexed: a for-of makes an iteration result per item until V8 optimizes the loop.
      for (let i = 0; i < items.length; i++) c.push(items[i]!);
      while (c.shift() !== undefined) {}
    };
    // Per item pushed and shifted, over 200 cycles of 1000 items (as many run first to warm up).
    const perCycle = await bytesPerCall(cycle, 200);
    expect(perCycle / items.length).toBeLessThan(4);
  });
});
