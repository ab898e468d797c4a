import { describe, expect, it } from 'vitest';
import { BatchDecoder, BatchEncoder } from './batchCodec.js';
import { barrier, type ChannelItem, END_OF_STREAM, envelope, IDLE, watermark } from './envelope.js';
import { JsonTextEnvelope } from './jsonTextEnvelope.js';
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
      watermark(Number.POSITIVE_INFINITY),
      watermark(-5),
      IDLE,
      END_OF_STREAM,
    ];
    const { out, count } = roundTrip(new BatchEncoder(), new BatchDecoder(), [
      [4, items],
      [0, [barrier(8)]],
    ]);
    expect(count).toBe(10);
    expect(out).toEqual([
      [4, items],
      [0, [barrier(8)]],
    ]);
    // The decoded end of stream is the one marker every channel shares.
    expect(out[0]![1][8]).toBe(END_OF_STREAM);
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
    expect(first.sources).toEqual([file]);
    expect(second.sources).toBeUndefined();
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

  it('sends a value that came with its text as that text, and each record gets its own value back', () => {
    const line = '{"k": "a",   "v": 1e2}';
    const items: ChannelItem[] = [
      envelope({ k: 'a', v: 100 }, 'a', 17, undefined, file, 0, line),
      envelope({ k: 'b', v: 2 }, 'b', 3, undefined, file, 24),
      envelope({ k: 'c', v: 3 }, undefined, -1, 5, file, 40, '{"k":"c","v":3}'),
    ];
    const encoder = new BatchEncoder();
    const encoded = encoder.encode([[2, items]]);
    expect(encoded.lines).toBe(`[${line},{"k":"c","v":3}]`);
    expect(encoded.values).toBe('["a",{"k":"b","v":2},"b"]');
    const { out } = roundTrip(encoder, new BatchDecoder(), [[2, items]]);
    const records = out[0]![1].map((e) =>
      e.type === 'record' ? [e.value, e.key, e.keyGroup, e.timestamp] : e,
    );
    expect(records).toEqual([
      [{ k: 'a', v: 100 }, 'a', 17, undefined],
      [{ k: 'b', v: 2 }, 'b', 3, undefined],
      [{ k: 'c', v: 3 }, undefined, -1, 5],
    ]);
  });

  it('sends the values for a sink that writes JSON text as that text, which it gets back unparsed', () => {
    const line = '{"k": "a",   "v": 1e2}';
    const items: ChannelItem[] = [
      envelope({ k: 'a', v: 100 }, undefined, -1, undefined, file, 0, line),
      envelope({ n: 1, s: 'é"\\' }, 'x', 9, 7, gen, 3),
      barrier(2),
    ];
    const encoder = new BatchEncoder();
    const encoded = encoder.encode([[5, items, true]]);
    // Not the line as it was read: what the sink writes is JSON.stringify of the value.
    expect(encoded.texts).toBe('{"k":"a","v":100}{"n":1,"s":"é\\"\\\\"}');
    expect(encoded.lines).toBeUndefined();
    const out: ChannelItem[] = [];
    new BatchDecoder().decode(encoder.encode([[5, items, true]]), (_, got) => out.push(...got));
    expect(out[0]).toBeInstanceOf(JsonTextEnvelope);
    expect(
      out.map((e) => (e.type === 'record' ? [e.text, e.key, e.keyGroup, e.timestamp, e.position] : e)),
    ).toEqual([
      ['{"k":"a","v":100}', undefined, -1, undefined, 0],
      ['{"n":1,"s":"é\\"\\\\"}', 'x', 9, 7, 3],
      barrier(2),
    ]);
    expect(out[1]!.type === 'record' && out[1]!.value).toEqual({ n: 1, s: 'é"\\' });
  });
});
