// One thread's side of the link to another thread of the same run: a MessagePort over which
// the channels between their subtasks send batches one way and credit the other. Batches go
// out when one is full, when a barrier or an end of stream waits (checkpoints and loops must
// not wait on a batch filling up), when the oldest item has waited MAX_DELAY_MS, and whenever
// this thread has nothing left to run. Messages are taken synchronously between slices
// (receiveMessageOnPort), so a busy thread never waits for its event loop to get them; a
// 'message' listener wakes a thread that is idle.
import { type MessagePort, receiveMessageOnPort } from 'node:worker_threads';
import { BatchDecoder, BatchEncoder, type EncodedBatch } from './batchCodec.js';
import type { InboundChannel, LinkOut, OutboundChannel } from './threadChannel.js';

/** Items that make a batch worth sending on their own. */
export const BATCH_ITEMS = 256;
/** How long an item may wait for its batch to fill (so a slow trickle still flows). */
const MAX_DELAY_MS = 5;

/** A message on a link: encoded batches (see batchCodec.ts), and credit as [channel, items] pairs. */
interface LinkMessage {
  readonly batch?: EncodedBatch;
  readonly credit?: number[];
}

export class ThreadLink implements LinkOut {
  private readonly outbound: OutboundChannel[] = [];
  private readonly inbound = new Map<number, InboundChannel>();
  private readonly outById = new Map<number, OutboundChannel>();
  private readonly encoder = new BatchEncoder();
  private readonly decoder = new BatchDecoder();
  private pendingItems = 0;
  private oldestPending = 0;
  private hasUrgent = false;
  /** Messages sent and received: the run's quiet detection compares the sums over all threads. */
  sent = 0;
  received = 0;

  constructor(
    private readonly port: MessagePort,
    /** Told when a message arrived while the thread was idle. */
    private readonly onArrival: () => void,
  ) {
    port.on('message', (message: LinkMessage) => {
      this.handle(message);
      this.onArrival();
    });
  }

  addOutbound(channel: OutboundChannel): void {
    this.outbound.push(channel);
    this.outById.set(channel.id, channel);
  }

  addInbound(channel: InboundChannel): void {
    this.inbound.set(channel.id, channel);
  }

  urgent(): void {
    this.hasUrgent = true;
  }

  /** Takes every message that has arrived; true if there was one. */
  receive(): boolean {
    let any = false;
    for (let m = receiveMessageOnPort(this.port); m !== undefined; m = receiveMessageOnPort(this.port)) {
      this.handle(m.message as LinkMessage);
      any = true;
    }
    return any;
  }

  private handle(message: LinkMessage): void {
    this.received++;
    const credit = message.credit;
    if (credit !== undefined) {
      for (let i = 0; i < credit.length; i += 2) this.outById.get(credit[i]!)!.credit(credit[i + 1]!);
    }
    if (message.batch !== undefined) {
      this.decoder.decode(message.batch, (channel, items) => this.inbound.get(channel)!.receive(items));
    }
  }

  /**
   * Sends what is due: everything when `all` (the thread is going idle), else a batch that is
   * full, urgent or old, and credit once a channel has taken a quarter of its capacity.
   */
  flush(all: boolean, now: number): void {
    let pendingItems = 0;
    for (const channel of this.outbound) pendingItems += channel.pending.length;
    if (pendingItems > 0 && this.pendingItems === 0) this.oldestPending = now;
    this.pendingItems = pendingItems;
    const sendBatch =
      pendingItems > 0 &&
      (all || this.hasUrgent || pendingItems >= BATCH_ITEMS || now - this.oldestPending >= MAX_DELAY_MS);
    let credit: number[] | undefined;
    for (const channel of this.inbound.values()) {
      if (channel.taken > 0 && (all || channel.taken * 4 >= channel.capacity)) {
        credit ??= [];
        credit.push(channel.id, channel.takeCredit());
      }
    }
    if (!sendBatch && credit === undefined) return;
    const message: { batch?: EncodedBatch; credit?: number[] } = {};
    if (credit !== undefined) message.credit = credit;
    if (sendBatch) {
      const batches: [number, ReturnType<OutboundChannel['takePending']>, boolean][] = [];
      for (const channel of this.outbound) {
        if (channel.pending.length > 0) {
          batches.push([channel.id, channel.takePending(), channel.sendsJsonText]);
        }
      }
      message.batch = this.encoder.encode(batches);
      this.pendingItems = 0;
      this.hasUrgent = false;
    }
    this.sent++;
    // The numbers' buffer is the batch's own: it moves to the other thread instead of a copy.
    if (message.batch !== undefined) this.port.postMessage(message, [message.batch.numbers.buffer]);
    else this.port.postMessage(message);
  }

  /** Nothing queued to send (credit aside: it is sent whenever the thread goes idle). */
  get drained(): boolean {
    for (const channel of this.outbound) if (channel.pending.length > 0) return false;
    return true;
  }

  close(): void {
    this.port.close();
  }
}
