// The host protocol over a WebSocket (the browser form): one JSON text frame per message. A frame
// that is not JSON reaches the host as `undefined`, which it answers as an invalid message.
import type { RawData, WebSocket } from 'ws';
import type { HostMessage, MessageChannelLike } from '../protocol/protocol.js';

function parse(data: RawData, isBinary: boolean): unknown {
  if (isBinary) return undefined;
  const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data);
  const text = bytes.toString('utf8');
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export function webSocketChannel(socket: WebSocket): MessageChannelLike<unknown, HostMessage> {
  return {
    send(message) {
      if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(message));
    },
    onMessage(listener) {
      const handle = (data: RawData, isBinary: boolean): void => listener(parse(data, isBinary));
      socket.on('message', handle);
      return () => socket.off('message', handle);
    },
    onClose(listener) {
      const handle = (code: number, reason: Buffer): void =>
        listener(reason.toString() || `closed (${code})`);
      socket.on('close', handle);
      return () => socket.off('close', handle);
    },
  };
}
