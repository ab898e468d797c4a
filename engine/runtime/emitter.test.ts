// What an emitter hands each channel of a record that goes to several: the record itself to its
// first reader, a copy to each other reader (user code downstream may change what it got), and
// no copy to a channel to another thread that sends the text the record was parsed from.
import { describe, expect, it } from 'vitest';
import type { PlannedEdge } from '../graph/plan.js';
import { type Channel, LocalChannel } from './channel.js';
import { Emitter } from './emitter.js';
import type { Envelope } from './envelope.js';
import { OutboundChannel } from './threadChannel.js';

const edge: PlannedEdge = {
  id: 'e1',
  from: 'src',
  fromPort: 'out',
  to: 'all',
  partition: 'broadcast',
  keyPaths: [],
  compositeKey: false,
  feedback: false,
};

const link = { urgent() {} };
const outbound = (asText = false) => new OutboundChannel(0, edge, 0, 0, 100, link, asText);
const local = (to: number) => new LocalChannel(edge, 0, to, 100, { queued: 0 });

function sent(channel: Channel): unknown {
  const items = channel instanceof OutboundChannel ? channel.pending : channel.contents();
  return (items[0] as Envelope).value;
}

function emitTo(channels: Channel[], value: unknown, text?: string): void {
  new Emitter(0, 128, new Map([['out', [edge]]]), () => channels).emit(value, undefined, text);
}

describe('a record emitted to several channels', () => {
  it('goes uncopied to its one reader when the other channel crosses threads as the text it was parsed from', () => {
    const record = { k: 'a', v: [1] };
    const channels = [outbound(), local(1)];
    emitTo(channels, record, '{"k":"a","v":[1]}');
    expect(sent(channels[1]!)).toBe(record);
  });

  it('is copied for each reader after the first', () => {
    const record = { k: 'a', v: [1] };
    const channels = [local(0), local(1), outbound()];
    // No text: the channel to another thread encodes the value itself, so it reads it too.
    emitTo(channels, record);
    expect(sent(channels[0]!)).toBe(record);
    for (const channel of channels.slice(1)) {
      expect(sent(channel)).toEqual(record);
      expect(sent(channel)).not.toBe(record);
    }
  });

  it('is copied for a channel to a sink that writes it as JSON text, which reads the value', () => {
    const record = { k: 'a' };
    const channels = [local(0), outbound(true)];
    emitTo(channels, record, '{"k": "a"}');
    expect(sent(channels[1]!)).not.toBe(record);
  });
});
