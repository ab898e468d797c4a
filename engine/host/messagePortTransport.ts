// The host protocol over an Electron MessagePortMain, inside the utilityProcess the desktop shell
// forks: messages are structured-cloned objects, one per protocol message. The engine may not
// import 'electron', so the port is described by the shape it is used through;
// test/shellAgreement.test.ts checks at compile time that Electron's own types still fit it.

import type { HostMessage, MessageChannelLike } from '../protocol/protocol.js';
import { serveConnection } from './hostConnection.js';
import type { HostService } from './hostService.js';

export interface PortMessageEvent {
  readonly data: unknown;
  readonly ports: readonly MessagePortMainLike[];
}

/** What the engine uses of Electron's MessagePortMain. */
export interface MessagePortMainLike {
  on(event: 'message', listener: (event: PortMessageEvent) => void): unknown;
  on(event: 'close', listener: () => void): unknown;
  off(event: 'message', listener: (event: PortMessageEvent) => void): unknown;
  off(event: 'close', listener: () => void): unknown;
  postMessage(message: unknown): void;
  start(): void;
  close(): void;
}

/** What the engine uses of `process.parentPort` in a utilityProcess. */
export interface ParentPortLike {
  on(event: 'message', listener: (event: PortMessageEvent) => void): unknown;
  postMessage(message: unknown): void;
}

export function messagePortChannel(port: MessagePortMainLike): MessageChannelLike<unknown, HostMessage> {
  return {
    send(message) {
      try {
        port.postMessage(message);
      } catch {
        // The page went away (reload, window closed) between the request and its answer: nobody is left to tell.
      }
    },
    onMessage(listener) {
      const handle = (event: PortMessageEvent): void => listener(event.data);
      port.on('message', handle);
      return () => port.off('message', handle);
    },
    onClose(listener) {
      const handle = (): void => listener('port closed');
      port.on('close', handle);
      return () => port.off('close', handle);
    },
  };
}

/** Serves one page over its port; messages sent before this are queued by the port until start(). */
export function serveMessagePort(port: MessagePortMainLike, host: HostService): void {
  serveConnection(messagePortChannel(port), host);
  port.start();
}
