import { describe, expect, it } from 'vitest';
import { JobError } from '../graph/jobError.js';
import { CallMarker, CallMarkerView, createMarkerBuffer, type MarkerUpdate } from './callMarker.js';
import type { Envelope, RecordSource } from './envelope.js';

const owner = { operator: { id: 'p1' }, failure: () => new JobError('x') };
const fileSource: RecordSource = { kind: 'file', operatorId: 'src', file: '/jobs/in.jsonl' };
const generated: RecordSource = { kind: 'generator', operatorId: 'gen' };
const envelope = (source: RecordSource, position: number) => ({ source, position }) as unknown as Envelope;

function pair() {
  const buffer = createMarkerBuffer();
  const view = new CallMarkerView(buffer);
  const updates: MarkerUpdate[] = [];
  const marker = new CallMarker(buffer, (update) => {
    updates.push(update);
    view.update(update);
  });
  marker.begin([
    { operatorId: 'src', subtask: 0, parallelism: 1 },
    { operatorId: 'p1', subtask: 0, parallelism: 2 },
    { operatorId: 'p1', subtask: 1, parallelism: 2 },
  ]);
  return { marker, view, updates };
}

describe('the call marker, as another thread reads it', () => {
  it('names the subtask, the record source and its position, and nothing between calls', () => {
    const { marker, view } = pair();
    expect(view.current()).toBeUndefined();
    marker.enter(2, owner, 'process', envelope(fileSource, 1234));
    expect(view.current()).toEqual({
      subtask: { operatorId: 'p1', subtask: 1, parallelism: 2 },
      kind: 'process',
      awaiting: false,
      source: { kind: 'file', operatorId: 'src', file: '/jobs/in.jsonl' },
      position: 1234,
    });
    marker.leave();
    expect(view.current()).toBeUndefined();
  });

  it('keeps positions past 2^32 (byte offsets of large inputs) exact', () => {
    const { marker, view } = pair();
    const far = 2 ** 40 + 12_345;
    marker.enter(1, owner, 'process', envelope(fileSource, far));
    expect(view.current()?.position).toBe(far);
  });

  it('sends what a source is once, and a call without a record has none', () => {
    const { marker, view, updates } = pair();
    marker.enter(1, owner, 'process', envelope(fileSource, 1));
    marker.enter(1, owner, 'process', envelope(generated, 2));
    marker.enter(2, owner, 'process', envelope(fileSource, 3));
    expect(updates.filter((u) => u.type === 'source')).toEqual([
      { type: 'source', ordinal: 0, source: { kind: 'file', operatorId: 'src', file: '/jobs/in.jsonl' } },
      { type: 'source', ordinal: 1, source: { kind: 'generator', operatorId: 'gen' } },
    ]);
    marker.enter(0, owner, 'produce', undefined);
    expect(view.current()).toMatchObject({
      kind: 'produce',
      source: undefined,
      subtask: { operatorId: 'src' },
    });
  });

  it('says when a call waits on the promise it returned, until it settles', () => {
    const { marker, view } = pair();
    marker.enter(1, owner, 'endInput', undefined);
    const call = marker.awaiting();
    expect(view.current()).toMatchObject({ kind: 'endInput', awaiting: true });
    expect(marker.running).toBe(false);
    expect(marker.owner).toBe(owner);
    marker.settled(call);
    expect(view.current()).toBeUndefined();
    expect(marker.owner).toBeUndefined();
  });

  it('keeps naming a call whose promise is pending while other calls of the thread come and go', () => {
    const { marker, view } = pair();
    marker.enter(1, owner, 'process', envelope(fileSource, 30));
    const first = marker.awaiting();
    expect(view.stuckFor(0)).toBe(0);
    // Its subtask is set aside; the other subtask of the thread takes records.
    marker.enter(2, owner, 'process', envelope(fileSource, 40));
    marker.leave();
    const aside = {
      subtask: { operatorId: 'p1', subtask: 0, parallelism: 2 },
      kind: 'process',
      awaiting: true,
      source: { kind: 'file', operatorId: 'src', file: '/jobs/in.jsonl' },
      position: 30,
    };
    expect(view.current()).toEqual(aside);
    expect(view.stuckFor(500)).toBe(500);
    // A short call in progress does not hide the one pending longer.
    marker.enter(2, owner, 'process', envelope(fileSource, 50));
    expect(view.stuckFor(900)).toBe(900);
    expect(view.current()).toEqual(aside);
    marker.leave();
    // A second pending call: the oldest is named until it settles.
    marker.enter(2, owner, 'process', envelope(fileSource, 60));
    const second = marker.awaiting();
    marker.leave();
    expect(view.current()).toMatchObject({ position: 30 });
    marker.settled(first);
    expect(view.current()).toMatchObject({ position: 60, awaiting: true });
    marker.settled(second);
    expect(view.current()).toBeUndefined();
  });

  it("names a breakpoint condition's breakpoint, operator and record", () => {
    const { marker, view, updates } = pair();
    marker.enterCondition(2, owner, envelope(fileSource, 7), 'b1');
    expect(view.current()).toEqual({
      subtask: { operatorId: 'p1', subtask: 1, parallelism: 2 },
      kind: 'condition',
      awaiting: false,
      source: { kind: 'file', operatorId: 'src', file: '/jobs/in.jsonl' },
      position: 7,
      breakpoint: 'b1',
    });
    marker.leave();
    marker.enterCondition(2, owner, envelope(fileSource, 8), 'b2');
    marker.enterCondition(2, owner, envelope(fileSource, 9), 'b1');
    expect(view.current()).toMatchObject({ breakpoint: 'b1', position: 9 });
    expect(updates.filter((u) => u.type === 'breakpoint')).toHaveLength(2);
  });

  it('measures how long one call lasts, starting again with the next call', () => {
    const { marker, view } = pair();
    expect(view.stuckFor(0)).toBe(0);
    marker.enter(1, owner, 'process', envelope(fileSource, 1));
    expect(view.stuckFor(100)).toBe(0);
    expect(view.stuckFor(1100)).toBe(1000);
    // Another call in between two readings, even of the same subtask and record.
    marker.leave();
    marker.enter(1, owner, 'process', envelope(fileSource, 1));
    expect(view.stuckFor(1200)).toBe(0);
    expect(view.stuckFor(1500)).toBe(300);
    marker.leave();
    expect(view.stuckFor(1600)).toBe(0);
  });
});
