// One client of the host, over whatever transport: every message in gets exactly one response
// (an error response for anything that is not a valid request), and the host's events go out
// until the channel closes.

import {
  HOST_METHODS,
  type HostMessage,
  type HostMethod,
  isRequestMessage,
  type MessageChannelLike,
  type ResponseMessage,
} from '../protocol/protocol.js';
import type { HostService, MethodSpec } from './hostService.js';

/** The id a response to a malformed message carries: the message's own if it has a usable one. */
export const NO_REQUEST_ID = -1;

function idOf(message: unknown): number {
  const id = (message as { id?: unknown } | null)?.id;
  return typeof id === 'number' && Number.isSafeInteger(id) ? id : NO_REQUEST_ID;
}

function whyInvalid(message: unknown): string {
  if (typeof message !== 'object' || message === null) return 'Invalid message: not a JSON object';
  const m = message as Record<string, unknown>;
  if (m.type !== 'request') return 'Invalid message: type must be "request"';
  if (!Number.isSafeInteger(m.id)) return 'Invalid request: id must be an integer';
  // Not String(m.method): an object from JSON may have a `toString` that is no function.
  if (typeof m.method !== 'string') return 'Invalid request: method must be a string';
  if (!(HOST_METHODS as readonly string[]).includes(m.method)) {
    return `Unknown method: ${m.method.slice(0, 80)}`;
  }
  return `Invalid request to ${m.method}: params must be an object`;
}

/**
 * An error is read by a person, on one line: past this length it is echoing a huge value the
 * client sent (a path of megabytes), so the middle goes and the start and the reason stay.
 */
export const MAX_ERROR_CHARS = 2000;

function bounded(text: string): string {
  if (text.length <= MAX_ERROR_CHARS) return text;
  const head = text.slice(0, MAX_ERROR_CHARS / 2);
  const tail = text.slice(-MAX_ERROR_CHARS / 4);
  return `${head} … (${text.length - head.length - tail.length} characters left out) … ${tail}`;
}

function errorText(error: unknown): string {
  return bounded(error instanceof Error ? error.message : String(error));
}

/** Never rejects: whatever goes wrong becomes the response's error. */
export async function answerMessage(host: HostService, message: unknown): Promise<ResponseMessage> {
  if (!isRequestMessage(message)) {
    return { type: 'response', id: idOf(message), error: { message: whyInvalid(message) } };
  }
  // The table is keyed by method, so this row's params and run belong together.
  const spec = host.methods[message.method] as MethodSpec<HostMethod>;
  try {
    const result = await spec.run(spec.params(message.params as Record<string, unknown>));
    return { type: 'response', id: message.id, result };
  } catch (error) {
    return { type: 'response', id: message.id, error: { message: errorText(error) } };
  }
}

/** Serves one client until its channel closes; the returned function stops earlier. */
export function serveConnection(
  channel: MessageChannelLike<unknown, HostMessage>,
  host: HostService,
): () => void {
  let open = true;
  const send = (message: HostMessage): void => {
    if (open) channel.send(message);
  };
  const stopEvents = host.subscribe(send);
  const stopMessages = channel.onMessage((message) => {
    void answerMessage(host, message).then(send);
  });
  const stopClose = channel.onClose(() => stop());
  function stop(): void {
    if (!open) return;
    open = false;
    stopEvents();
    stopMessages();
    stopClose();
  }
  return stop;
}
