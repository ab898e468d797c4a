import { describe, expect, it } from 'vitest';
import { BatchDecoder, BatchEncoder } from './batchCodec.js';
import { barrier, type ChannelItem, END_OF_STREAM, envelope } from './envelope.js';
import type { RecordSource } from './recordSource.js';

const file: RecordSource = { kind: 'file', operatorId: 'src', file: '/data/in.jsonl' };
const gen: RecordSource = { kind: 'generator', operatorId: 'g' };

function roundTrip(encoder: BatchEncoder, decoder: BatchDecoder, batches: [number, ChannelItem[]][]) {
  const out: [number, ChannelItem[]][] = [];
  const count = decoder.decode(encoder.encode(batches), (channel, items) => out.push([channel, items]));
  return { out, count };
}

describe('batchCodec', () => {
  it('gives back every item of every channel, in order, as it was', () => {
    const items: ChannelItem[] = [
      envelope({ k: 'a', v: 1, nested: [1, { x: null }] }, 'a', 17, undefined, file, 0),
      envelope('text', ['a', 2], 3, 1_700_000_000_000, gen, 42),
      barrier(7),
      envelope(0, undefined, 0, undefined, undefined, 2 ** 40),
      envelope(null, null, 5, 0, file, 9),
      END_OF_STREAM,
    ];
    const { out, count } = roundTrip(new BatchEncoder(), new BatchDecoder(), [
      [4, items],
      [0, [barrier(8)]],
    ]);
    expect(count).toBe(7);
    expect(out).toEqual([
      [4, items],
      [0, [barrier(8)]],
    ]);
    // The decoded end of stream is the one marker every channel shares.
    expect(out[0]![1][5]).toBe(END_OF_STREAM);
  });

  it("gives back a routed edge's progress marks and a record's skipped count as they were", () => {
    const items: ChannelItem[] = [
      { type: 'skipped', skipped: [3] },
      envelope({ id: 1 }, [2, 0, 1_700_000_000_000], -1, 1_700_000_000_001, file, 5),
      { type: 'skipped', skipped: [4, 1, 17] },
      envelope({ id: 2 }, undefined, -1, undefined, file, 6),
    ];
    const { out, count } = roundTrip(new BatchEncoder(), new BatchDecoder(), [[1, items]]);
    expect(count).toBe(4);
    expect(out).toEqual([[1, items]]);
  });

  it('sends a source once per direction, and its records still name it after', () => {
    const encoder = new BatchEncoder();
    const decoder = new BatchDecoder();
    const first = encoder.encode([[1, [envelope(1, undefined, 0, undefined, file, 0)]]]);
    const second = encoder.encode([[1, [envelope(2, undefined, 0, undefined, file, 5)]]]);
    expect(first).toContain('in.jsonl');
    expect(second).not.toContain('in.jsonl');
    const seen: ChannelItem[] = [];
    decoder.decode(first, (_, items) => seen.push(...items));
    decoder.decode(second, (_, items) => seen.push(...items));
    expect(seen.map((e) => (e.type === 'record' ? [e.source, e.position] : e))).toEqual([
      [file, 0],
      [file, 5],
    ]);
  });

  it('keeps an undefined key apart from a null one', () => {
    const { out } = roundTrip(new BatchEncoder(), new BatchDecoder(), [
      [
        0,
        [envelope(1, undefined, 0, undefined, undefined, 0), envelope(1, null, 0, undefined, undefined, 0)],
      ],
    ]);
    const keys = out[0]![1].map((e) => (e.type === 'record' ? e.key : 'x'));
    expect(keys).toEqual([undefined, null]);
  });
});
