import { describe, expect, it } from 'vitest';
import type { PlannedEdge } from '../graph/plan.js';
import { LocalChannel } from './channel.js';
import { watermark } from './envelope.js';
import { NO_WATERMARK } from './timers.js';
import { WatermarkValve } from './watermarkValve.js';

function edge(id: string, feedback = false): PlannedEdge {
  return {
    id,
    from: 'a',
    fromPort: 'out',
    to: 'b',
    partition: 'forward',
    keyPaths: [],
    compositeKey: false,
    feedback,
  };
}

function setup() {
  const counter = { queued: 0 };
  const a = new LocalChannel(edge('a'), 0, 0, 8, counter);
  const b = new LocalChannel(edge('b'), 0, 0, 8, counter);
  const loop = new LocalChannel(edge('loop', true), 0, 0, 8, counter);
  return { a, b, loop, valve: new WatermarkValve([loop, a, b]) };
}

describe('WatermarkValve', () => {
  it('is the least of its inputs and advances only when the least one does', () => {
    const { a, b, valve } = setup();
    expect(valve.current).toBe(NO_WATERMARK);
    expect(valve.watermark(a, 100)).toBeUndefined();
    expect(valve.watermark(b, 50)).toBe(50);
    expect(valve.watermark(b, 150)).toBe(100);
    expect(valve.watermark(b, 300)).toBeUndefined();
    expect(valve.watermark(a, 200)).toBe(200);
    expect(valve.current).toBe(200);
  });

  it('never goes back', () => {
    const { a, b, valve } = setup();
    valve.watermark(a, 100);
    valve.watermark(b, 100);
    expect(valve.watermark(a, 80)).toBeUndefined();
    expect(valve.current).toBe(100);
  });

  it('counts no feedback input: a loop does not hold event time back', () => {
    const { a, b, loop, valve } = setup();
    expect(valve.watermark(loop, 10)).toBeUndefined();
    valve.watermark(a, 100);
    expect(valve.watermark(b, 100)).toBe(100);
  });

  it('leaves an idle input out until it brings something again', () => {
    const { a, b, valve } = setup();
    valve.watermark(a, 100);
    expect(valve.markIdle(b)).toBe(100);
    expect(valve.watermark(a, 200)).toBe(200);
    // Back from idle behind the others: it cannot pull the watermark back, but holds it again.
    valve.recordOn(b);
    expect(valve.watermark(a, 300)).toBeUndefined();
    expect(valve.current).toBe(200);
    expect(valve.watermark(b, 250)).toBe(250);
  });

  it('says when every input is idle', () => {
    const { a, b, valve } = setup();
    valve.markIdle(a);
    expect(valve.allIdle).toBe(false);
    valve.markIdle(b);
    expect(valve.allIdle).toBe(true);
    valve.watermark(a, 5);
    expect(valve.allIdle).toBe(false);
  });

  it('takes an ended input as +Infinity: the last input to end brings the final watermark', () => {
    const { a, b, valve } = setup();
    valve.watermark(a, 10);
    valve.watermark(b, 20);
    expect(valve.ended(a)).toBe(20);
    expect(valve.ended(b)).toBe(Number.POSITIVE_INFINITY);
  });

  it('restores each channel exactly at the same parallelism, the least when rescaled', () => {
    const first = setup();
    first.valve.watermark(first.a, 100);
    first.valve.watermark(first.b, 40);
    const state = JSON.parse(JSON.stringify(first.valve.state()));
    const same = setup();
    same.valve.restore([state]);
    expect(same.valve.current).toBe(40);
    expect(same.valve.watermark(same.b, 120)).toBe(100);

    const other = setup();
    other.valve.watermark(other.a, 70);
    const rescaled = setup();
    rescaled.valve.restore([state, JSON.parse(JSON.stringify(other.valve.state()))]);
    expect(rescaled.valve.current).toBe(NO_WATERMARK);
  });
});

describe('watermarks on a channel', () => {
  it('a watermark right behind another takes its place; one behind a record does not', () => {
    const counter = { queued: 0 };
    const channel = new LocalChannel(edge('a'), 0, 0, 8, counter);
    channel.push(watermark(1));
    channel.push(watermark(2));
    expect(channel.contents()).toEqual([watermark(2)]);
    expect(counter.queued).toBe(1);
    channel.push({ type: 'end' });
    channel.push(watermark(3));
    expect(channel.size).toBe(3);
  });
});
