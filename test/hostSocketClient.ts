// A client of the browser form's host over its real WebSocket, for tests that send it frames no
// designer would: it sends any frame, awaits the answer by the id it must carry (any number of
// them in flight), gives up after a bound, and notes whatever else arrives that should not.
import WebSocket from 'ws';
import { HOST_PATH, type WebServer } from '../engine/host/webServer.js';
import type { EventMessage, HostMessage, ResponseMessage, RunInfo } from '../engine/protocol/protocol.js';
import type { Frame } from './hostProtocolFrames.js';

type Waiter = (message: ResponseMessage) => void;

export class HostSocketClient {
  /** Who awaits an answer with this id, first sent first. */
  private readonly waiting = new Map<number, Waiter[]>();
  /** What arrived that should not have: an answer nobody asked for, an event of the wrong shape. */
  readonly problems: string[] = [];
  readonly statuses: RunInfo[] = [];

  private constructor(
    private readonly socket: WebSocket,
    private readonly boundMs: number,
  ) {
    socket.on('message', (data, isBinary) => this.receive(String(data), isBinary));
  }

  /** Connects as the server's own page does; an answer that takes longer than `boundMs` is a hang. */
  static async open(server: WebServer, boundMs: number): Promise<HostSocketClient> {
    const socket = new WebSocket(`ws://127.0.0.1:${server.port}${HOST_PATH}?token=${server.token}`, {
      origin: `http://127.0.0.1:${server.port}`,
    });
    await new Promise((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('error', reject);
    });
    return new HostSocketClient(socket, boundMs);
  }

  private receive(text: string, isBinary: boolean): void {
    let message: HostMessage;
    try {
      message = JSON.parse(text);
    } catch {
      this.problems.push(`the host sent a frame that is not JSON: ${text.slice(0, 200)}`);
      return;
    }
    if (isBinary) this.problems.push('the host sent a binary frame');
    if (message.type === 'event') {
      this.event(message);
      return;
    }
    const waiter = this.waiting.get(message.id)?.shift();
    if (waiter === undefined) this.problems.push(`an answer nobody waited for: ${text.slice(0, 200)}`);
    else waiter(message);
  }

  private event(message: EventMessage): void {
    const data = message.data as unknown;
    if (typeof message.event !== 'string' || typeof data !== 'object' || data === null) {
      this.problems.push(`an event of no known shape: ${JSON.stringify(message).slice(0, 200)}`);
    } else if (message.event === 'run.status') {
      this.statuses.push(data as RunInfo);
    }
  }

  /** Sends a frame and resolves with the answer carrying `id`; rejects if none comes within the bound. */
  ask(frame: Frame, id: number): Promise<ResponseMessage> {
    return new Promise((resolve, reject) => {
      if (this.socket.readyState !== WebSocket.OPEN) {
        reject(new Error(`the host closed the connection (state ${this.socket.readyState})`));
        return;
      }
      const queue = this.waiting.get(id) ?? [];
      this.waiting.set(id, queue);
      const done = (settle: () => void): void => {
        clearTimeout(timer);
        const at = queue.indexOf(waiter);
        if (at >= 0) queue.splice(at, 1);
        this.socket.off('close', onClose);
        settle();
      };
      const waiter: Waiter = (message) => done(() => resolve(message));
      const timer = setTimeout(
        () => done(() => reject(new Error(`no answer within ${this.boundMs} ms`))),
        this.boundMs,
      );
      const onClose = (code: number): void =>
        done(() => reject(new Error(`the host closed the connection (${code}) instead of answering`)));
      this.socket.once('close', onClose);
      queue.push(waiter);
      const data = frame.kind === 'text' ? frame.text : frame.bytes;
      this.socket.send(data, { binary: frame.kind === 'binary' }, (error) => {
        if (error) done(() => reject(error));
      });
    });
  }

  /** A request as a designer sends it; resolves with its answer. */
  call(id: number, method: unknown, params: unknown): Promise<ResponseMessage> {
    return this.ask({ kind: 'text', text: JSON.stringify({ type: 'request', id, method, params }) }, id);
  }

  close(): void {
    this.socket.close();
  }
}
