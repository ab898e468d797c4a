import { describe, expect, it } from 'vitest';
import type { PlannedEdge } from '../graph/plan.js';
import { BarrierAligner } from './barrierAligner.js';
import { LocalChannel } from './channel.js';
import { envelope } from './envelope.js';

function edge(id: string, feedback: boolean): PlannedEdge {
  return {
    id,
    from: 'a',
    fromPort: 'out',
    to: 'b',
    partition: 'hash',
    keyPaths: [['k']],
    compositeKey: false,
    feedback,
  };
}

function setup() {
  const counter = { queued: 0 };
  const regularA = new LocalChannel(edge('a', false), 0, 0, 8, counter);
  const regularB = new LocalChannel(edge('b', false), 1, 0, 8, counter);
  const loop1 = new LocalChannel(edge('loop', true), 0, 0, 8, counter);
  const loop2 = new LocalChannel(edge('loop', true), 1, 0, 8, counter);
  const aligner = new BarrierAligner([loop1, loop2, regularA, regularB]);
  return { aligner, regularA, regularB, loop1, loop2 };
}

const record = (n: number) => envelope({ n }, n, 0, undefined, undefined, n);

describe('BarrierAligner', () => {
  it('blocks each regular input at its barrier until all have theirs', () => {
    const { aligner, regularA, regularB } = setup();
    aligner.expected = 1;
    expect(aligner.regularBarrier(regularA, 1)).toBe(false);
    expect(aligner.isBlocked(regularA)).toBe(true);
    expect(aligner.isBlocked(regularB)).toBe(false);
    expect(aligner.regularBarrier(regularB, 1)).toBe(true);
    aligner.release(1, false);
    expect(aligner.isBlocked(regularA)).toBe(false);
  });

  it('counts an ended input as aligned, also before any barrier came', () => {
    const { aligner, regularA, regularB } = setup();
    aligner.expected = 4;
    regularA.ended = true;
    expect(aligner.regularEnded()).toBe(undefined);
    regularB.ended = true;
    expect(aligner.regularEnded()).toBe(4);
  });

  it('logs feedback records after the snapshot until the barrier comes back on each feedback input', () => {
    const { aligner, regularA, regularB, loop1, loop2 } = setup();
    aligner.expected = 2;
    aligner.feedbackRecord(loop1, record(0)); // before the snapshot: state has it, not the log
    aligner.regularBarrier(regularA, 2);
    expect(aligner.regularBarrier(regularB, 2)).toBe(true);
    aligner.release(2, true);
    aligner.feedbackRecord(loop1, record(1));
    aligner.feedbackRecord(loop2, record(2));
    expect(aligner.feedbackBarrier(loop1, 2)).toBeUndefined();
    aligner.feedbackRecord(loop1, record(3)); // after its barrier: belongs to the next checkpoint
    aligner.feedbackRecord(loop2, record(4));
    const log = aligner.feedbackBarrier(loop2, 2);
    expect(log?.checkpointId).toBe(2);
    expect(log?.records.map((e) => e.key)).toEqual([1, 2, 4]);
  });

  it('holds a feedback input whose barrier comes round before this head has snapshotted', () => {
    const { aligner, regularA, regularB, loop1, loop2 } = setup();
    aligner.expected = 3;
    expect(aligner.feedbackBarrier(loop1, 3)).toBeUndefined();
    expect(aligner.isBlocked(loop1)).toBe(true);
    aligner.regularBarrier(regularA, 3);
    aligner.regularBarrier(regularB, 3);
    aligner.release(3, true);
    expect(aligner.isBlocked(loop1)).toBe(false);
    // Only the other feedback input is awaited now.
    aligner.feedbackRecord(loop1, record(7));
    aligner.feedbackRecord(loop2, record(8));
    const log = aligner.feedbackEnded(loop2);
    expect(log?.records.map((e) => e.key)).toEqual([8]);
  });
});
