// The two ways the renderer reaches the host: a MessagePort handed over by Electron's preload,
// or a WebSocket to the browser form's server (same origin, token from the page's URL).
import {
  type ClientMessage,
  type HostMessage,
  MAX_MESSAGE_BYTES,
  type MessageChannelLike,
} from '../../engine/protocol/protocol.js';

/** The window message Electron's preload posts with the host's MessagePort attached. */
export const HOST_PORT_MESSAGE = 'pipewright:host-port';
/** Asks the preload for a (new) port: the page may load before or after the preload first posts one. */
export const HOST_PORT_REQUEST = 'pipewright:host-port-request';

type Channel = MessageChannelLike<HostMessage, ClientMessage>;

function listenerSet<T>() {
  const set = new Set<(value: T) => void>();
  return {
    add(l: (value: T) => void) {
      set.add(l);
      return () => {
        set.delete(l);
      };
    },
    emit(value: T) {
      for (const l of set) l(value);
    },
  };
}

const MIB = 1024 * 1024;

/**
 * The message as sent, or an error saying it is too large: the host closes a connection that
 * sends more than MAX_MESSAGE_BYTES, which would fail every other request with it.
 */
export function encodeForHost(message: ClientMessage): string {
  const text = JSON.stringify(message);
  // A UTF-16 unit is at most 3 bytes of UTF-8: only a long text needs counting.
  if (text.length * 3 > MAX_MESSAGE_BYTES) {
    const bytes = new TextEncoder().encode(text).length;
    if (bytes > MAX_MESSAGE_BYTES) {
      throw new Error(
        `${message.method}: ${Math.ceil(bytes / MIB)} MiB is more than the engine host takes in one message (${MAX_MESSAGE_BYTES / MIB} MiB)`,
      );
    }
  }
  return text;
}

export function webSocketChannel(url: string): Promise<Channel> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url);
    const messages = listenerSet<HostMessage>();
    const closes = listenerSet<string>();
    let opened = false;
    socket.addEventListener('open', () => {
      opened = true;
      resolve({
        send: (m) => socket.send(encodeForHost(m)),
        onMessage: messages.add,
        onClose: closes.add,
      });
    });
    socket.addEventListener('message', (event) => {
      if (typeof event.data === 'string') messages.emit(JSON.parse(event.data) as HostMessage);
    });
    socket.addEventListener('close', (event) => {
      if (!opened)
        reject(new Error(`cannot reach the engine host at ${url.replace(/token=[^&]+/, 'token=…')}`));
      else closes.emit(event.reason || `connection closed (code ${event.code})`);
    });
  });
}

export function messagePortChannel(port: MessagePort): Channel {
  const messages = listenerSet<HostMessage>();
  const closes = listenerSet<string>();
  port.onmessage = (event: MessageEvent) => messages.emit(event.data as HostMessage);
  port.addEventListener('close', () => closes.emit('the engine host process ended'));
  port.start();
  return { send: (m) => port.postMessage(m), onMessage: messages.add, onClose: closes.add };
}

/** Waits for the port Electron's preload hands over. */
export function electronPortChannel(): Promise<Channel> {
  return new Promise((resolve) => {
    const onMessage = (event: MessageEvent) => {
      if (event.source !== window || event.data !== HOST_PORT_MESSAGE || event.ports[0] === undefined) return;
      window.removeEventListener('message', onMessage);
      resolve(messagePortChannel(event.ports[0]));
    };
    window.addEventListener('message', onMessage);
    window.postMessage(HOST_PORT_REQUEST, '*');
  });
}

/** The browser form's WebSocket address, from the page's own URL and token. */
export function browserHostUrl(location: Location): string {
  const token = new URLSearchParams(location.search).get('token') ?? '';
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  return `${scheme}//${location.host}/host?token=${encodeURIComponent(token)}`;
}
