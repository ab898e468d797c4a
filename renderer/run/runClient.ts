// The run-and-debug methods and events of the host protocol, typed on RunMethods and RunEvents.
// The host client is typed on HostMethods; this goes through it by name, so it compiles the same
// whether or not HostMethods already includes the run methods.
import type { RunEvents, RunMethods } from '../../engine/protocol/protocol.js';
import type { HostClient } from '../host/hostClient';

export type RunMethod = keyof RunMethods;
export type RunEvent = keyof RunEvents;

export interface RunClient {
  request<M extends RunMethod>(method: M, params: RunMethods[M][0]): Promise<RunMethods[M][1]>;
  on<E extends RunEvent>(event: E, listener: (data: RunEvents[E]) => void): () => void;
}

type UntypedRequest = (method: string, params: unknown) => Promise<unknown>;
type UntypedOn = (event: string, listener: (data: unknown) => void) => () => void;

export function runClient(host: HostClient): RunClient {
  const request = host.request.bind(host) as unknown as UntypedRequest;
  const on = host.on.bind(host) as unknown as UntypedOn;
  return {
    request: (method, params) => request(method, params) as never,
    on: (event, listener) => on(event, listener as (data: unknown) => void),
  };
}
