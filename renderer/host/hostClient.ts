// The renderer's only way to the engine host: a promise per request, whatever carries the
// messages (Node-RED's editor/runtime split). Nothing here knows the transport.
import type {
  ClientMessage,
  HostEvent,
  HostEvents,
  HostMessage,
  HostMethod,
  MessageChannelLike,
  ParamsOf,
  ResultOf,
} from '../../engine/protocol/protocol.js';

export interface HostClient {
  request<M extends HostMethod>(method: M, params: ParamsOf<M>): Promise<ResultOf<M>>;
  on<E extends HostEvent>(event: E, listener: (data: HostEvents[E]) => void): () => void;
  /** Called once if the connection drops; requests in flight fail with the reason. */
  onClose(listener: (reason: string) => void): () => void;
}

export function createHostClient(channel: MessageChannelLike<HostMessage, ClientMessage>): HostClient {
  let nextId = 1;
  let closedReason: string | undefined;
  const pending = new Map<
    number,
    { resolve: (v: unknown) => void; reject: (e: Error) => void; method: string }
  >();
  const listeners = new Map<string, Set<(data: unknown) => void>>();

  channel.onMessage((message) => {
    if (message.type === 'response') {
      const waiting = pending.get(message.id);
      if (waiting === undefined) return;
      pending.delete(message.id);
      if (message.error !== undefined) waiting.reject(new Error(message.error.message));
      else waiting.resolve(message.result);
    } else if (message.type === 'event') {
      for (const l of listeners.get(message.event) ?? []) l(message.data);
    }
  });
  channel.onClose((reason) => {
    closedReason = reason;
    for (const waiting of pending.values()) {
      waiting.reject(new Error(`${waiting.method}: the engine host disconnected (${reason})`));
    }
    pending.clear();
  });

  return {
    request(method, params) {
      if (closedReason !== undefined) {
        return Promise.reject(new Error(`${method}: the engine host disconnected (${closedReason})`));
      }
      const id = nextId++;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve: resolve as (v: unknown) => void, reject, method });
        try {
          channel.send({ type: 'request', id, method, params });
        } catch (error) {
          // Not sent (too large for the transport): this request fails, the connection stays.
          pending.delete(id);
          reject(error instanceof Error ? error : new Error(String(error)));
        }
      });
    },
    on(event, listener) {
      let set = listeners.get(event);
      if (set === undefined) {
        set = new Set();
        listeners.set(event, set);
      }
      const l = listener as (data: unknown) => void;
      set.add(l);
      return () => set.delete(l);
    },
    onClose(listener) {
      return channel.onClose(listener);
    },
  };
}
