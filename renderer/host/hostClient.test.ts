// A request too large for the host's transport fails alone, with one line saying so: sent, it
// would make the host close the connection and fail every other request with it.
import { describe, expect, it } from 'vitest';
import type { ClientMessage, HostMessage, MessageChannelLike } from '../../engine/protocol/protocol.js';
import { MAX_MESSAGE_BYTES } from '../../engine/protocol/protocol.js';
import { createHostClient } from './hostClient';
import { encodeForHost } from './hostTransports';

describe('encodeForHost', () => {
  it('gives the message as JSON while it fits the host’s limit', () => {
    const message: ClientMessage = { type: 'request', id: 1, method: 'file.read', params: { path: '/a' } };
    expect(encodeForHost(message)).toBe(JSON.stringify(message));
  });

  it('refuses a message over the limit, counting bytes of UTF-8, naming the method and both sizes', () => {
    const text = 'é'.repeat(MAX_MESSAGE_BYTES / 2 + 1024);
    const message: ClientMessage = {
      type: 'request',
      id: 2,
      method: 'file.write',
      params: { path: '/a', text },
    };
    expect(() => encodeForHost(message)).toThrow(
      'file.write: 65 MiB is more than the engine host takes in one message (64 MiB)',
    );
    // Under the limit in bytes though three times its length in UTF-16 would be over: taken.
    const ascii = 'a'.repeat(MAX_MESSAGE_BYTES / 2);
    expect(() =>
      encodeForHost({ type: 'request', id: 3, method: 'file.write', params: { path: '/a', text: ascii } }),
    ).not.toThrow();
  });
});

describe('a request the channel cannot send', () => {
  it('fails that request only; the client goes on with the next', async () => {
    const sent: ClientMessage[] = [];
    let deliver: (message: HostMessage) => void = () => {};
    const channel: MessageChannelLike<HostMessage, ClientMessage> = {
      send(message) {
        if (message.method === 'file.write')
          throw new Error('file.write: 65 MiB is more than the engine host takes');
        sent.push(message);
      },
      onMessage(listener) {
        deliver = listener;
        return () => {};
      },
      onClose: () => () => {},
    };
    const client = createHostClient(channel);
    await expect(client.request('file.write', { path: '/a', text: 'big' })).rejects.toThrow(
      /^file\.write: 65 MiB is more than/,
    );
    const next = client.request('recent.list', {});
    expect(sent.map((m) => m.method)).toEqual(['recent.list']);
    deliver({ type: 'response', id: sent[0]!.id, result: ['/a'] });
    expect(await next).toEqual(['/a']);
  });
});
