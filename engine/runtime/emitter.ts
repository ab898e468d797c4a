// The output side of a subtask: ports to edges, edges to channels via their partitioner.
import { keyGroupOf, subtaskOfKeyGroup } from '../graph/keyGroups.js';
import type { PlannedEdge } from '../graph/plan.js';
import type { Channel } from './channel.js';
import { type EdgeRouter, SkipTally } from './edgeRouter.js';
import {
  type ChannelItem,
  type Envelope,
  IDLE,
  envelope as makeEnvelope,
  type RecordSource,
  type Skipped,
  watermark,
} from './envelope.js';
import { type KeyExtractor, keyExtractor } from './keyExtractor.js';
import { OutboundChannel } from './threadChannel.js';

interface Route {
  readonly edge: PlannedEdge;
  /** Channels of this edge from this subtask, indexed by target subtask. */
  readonly channels: readonly Channel[];
  readonly key: KeyExtractor | undefined;
  /** Next target of a rebalance edge. */
  next: number;
  /** A routed edge (planned as broadcast): who takes each record, and what the others skipped. */
  readonly router: EdgeRouter | undefined;
  readonly skips: SkipTally | undefined;
}

/**
 * Sees what a subtask emits (the debugger, only in debug runs): each record as it is emitted,
 * then each envelope it became, on which channel.
 */
export interface EmitTap {
  emitting(port: string, value: unknown): void;
  sent(channel: Channel, envelope: Envelope): void;
}

/** What an emitter has counted and where its round robins stand (time travel in debug runs). */
export interface EmitterProgress {
  readonly blocked: boolean;
  readonly recordsOut: number;
  readonly recordsDropped: number;
  readonly lineage: Readonly<Lineage>;
  readonly next: readonly number[];
}

/** The record being processed: records emitted for it inherit its time and origin. */
export interface Lineage {
  timestamp: number | undefined;
  source: RecordSource | undefined;
  position: number;
}

export class Emitter {
  /** Set when a send filled a channel: the subtask yields until its consumers catch up. */
  blocked = false;
  recordsOut = 0;
  /** Records emitted to a port no edge leaves from (dropped, as Flink and Node-RED do). */
  recordsDropped = 0;
  /** Input records a source skipped, as its params allow (a bad timestamp): counted, not emitted. */
  recordsSkipped = 0;
  readonly lineage: Lineage = { timestamp: undefined, source: undefined, position: 0 };
  private readonly routes = new Map<string, Route[]>();
  private readonly outRoutes: Route[] | undefined;
  /** The highest watermark sent since this emitter was made (routed edges count it in). */
  private watermarkSent = Number.NEGATIVE_INFINITY;
  /** Routes of routed edges, whose skipped records are told at the end of each slice. */
  private readonly routed: Route[] = [];
  readonly allChannels: Channel[] = [];
  tap: EmitTap | undefined;
  /** Channels of the record being emitted that were given the value itself or a copy to read. */
  private handedOut = 0;
  /** Sources with event time: told each record's time after it is sent (sourceWatermarks.ts). */
  afterRecord: ((timestamp: number | undefined) => void) | undefined;
  /**
   * Some channel leads to another thread: a source that parsed a record from JSON text hands the
   * text on with it (emit's `text`), so the transport need not encode the value again.
   */
  readonly crossesThreads: boolean;

  constructor(
    private readonly subtask: number,
    private readonly maxParallelism: number,
    outputs: ReadonlyMap<string, readonly PlannedEdge[]>,
    channelsOf: (edge: PlannedEdge) => Channel[],
    /** The router of each edge whose consumer places records itself (a transaction), if any. */
    routerOf?: (edge: PlannedEdge) => EdgeRouter | undefined,
  ) {
    for (const [port, edges] of outputs) {
      const routes = edges.map((edge): Route => {
        const channels = channelsOf(edge);
        const router = edge.partition === 'broadcast' ? routerOf?.(edge) : undefined;

        // Forward edges leave holes: only the channel to the same subtask index exists.
        for (const channel of channels) if (channel !== undefined) this.allChannels.push(channel);
        return {
          edge,
          channels,
          key: edge.partition === 'hash' ? keyExtractor(edge) : undefined,
          // Round robin starts at the subtask's own index, as a deterministic spread.
          next: subtask,
          router,
          skips: router === undefined ? undefined : new SkipTally(channels.length),
        };
      });
      this.routes.set(port, routes);
      for (const route of routes) if (route.skips !== undefined) this.routed.push(route);
    }
    this.outRoutes = this.routes.get('out');
    this.crossesThreads = this.allChannels.some((channel) => channel instanceof OutboundChannel);
  }

  /** `text`: the JSON text `value` was parsed from, given only when `crossesThreads`. */
  emit(value: unknown, port?: string, text?: string): void {
    this.tap?.emitting(port ?? 'out', value);
    const routes = port === undefined || port === 'out' ? this.outRoutes : this.routes.get(port);
    if (routes === undefined) {
      this.recordsDropped++;
      return;
    }
    this.handedOut = 0;
    for (const route of routes) {
      const channels = route.channels;
      switch (route.edge.partition) {
        case 'forward':
          this.send(
            channels[this.subtask]!,
            this.valueFor(channels[this.subtask]!, value, text),
            undefined,
            -1,
            text,
          );
          break;
        case 'rebalance': {
          const target = route.next % channels.length;
          route.next = target + 1;
          this.send(channels[target]!, this.valueFor(channels[target]!, value, text), undefined, -1, text);
          break;
        }
        case 'hash': {
          const key = route.key!(value);
          const keyGroup = keyGroupOf(key, this.maxParallelism);
          const target = subtaskOfKeyGroup(keyGroup, channels.length, this.maxParallelism);
          this.send(channels[target]!, this.valueFor(channels[target]!, value, text), key, keyGroup, text);
          break;
        }
        case 'broadcast':
          if (route.router !== undefined) {
            this.sendRouted(route, value, text);
            break;
          }
          for (const channel of channels) {
            this.send(channel, this.valueFor(channel, value, text), undefined, -1, text);
          }
          break;
      }
    }
    // One record out per edge, however many of its channels it went to: a broadcast edge (into
    // a transaction, every one) does not multiply what the source read.
    this.recordsOut += routes.length;
    this.afterRecord?.(this.lineage.timestamp);
  }

  /**
   * A routed edge: the record to the subtasks its router names, each with what it skipped just
   * before (in the envelope's key); the others count it as skipped.
   */
  private sendRouted(route: Route, value: unknown, text: string | undefined): void {
    const channels = route.channels;
    const skips = route.skips!;
    const targets = route.router!.targets(value);
    const timestamp = this.lineage.timestamp;
    let t = 0;
    for (let i = 0; i < channels.length; i++) {
      if (targets !== undefined && targets[t] !== i) {
        skips.skip(i, timestamp, this.watermarkSent);
        continue;
      }
      t++;
      this.send(channels[i]!, this.valueFor(channels[i]!, value, text), skips.take(i), -1, text);
    }
  }

  /**
   * The value for one more channel: the record itself for its first reader, a copy for each
   * other (a consumer's user code may change what it was given). A channel to another thread
   * that sends the text the value was parsed from never reads the value: it needs no copy.
   */
  private valueFor(channel: Channel, value: unknown, text: string | undefined): unknown {
    if (text !== undefined && channel instanceof OutboundChannel && !channel.sendsJsonText) return value;
    return this.handedOut++ === 0 ? value : structuredClone(value);
  }

  /**
   * Tells each channel of a routed edge the records it skipped since its last item (a progress
   * mark), so its consumer knows nothing before them is still coming: at the end of every slice
   * (before the producer waits), and before a barrier or the end (so every consumer's numbering
   * of the channel is the same at a cut, and a restore starts each at zero skipped).
   */
  tellSkipped(): void {
    for (const route of this.routed) {
      const skips = route.skips!;
      if (!skips.pending) continue;
      skips.pending = false;
      const channels = route.channels;
      for (let i = 0; i < channels.length; i++) {
        const skipped = skips.take(i);
        if (skipped === undefined) continue;
        const mark: Skipped = { type: 'skipped', skipped };
        channels[i]!.push(mark);
      }
    }
  }

  /**
   * One record to one subtask of the edges leaving `port`, whatever their partitioning: a
   * transaction operator's subtasks send each other the rows they read this way.
   */
  sendTo(port: string, target: number, value: unknown): void {
    const routes = this.routes.get(port);
    if (routes === undefined) throw new Error(`internal: no edge leaves port "${port}"`);
    const lineage = this.lineage;
    for (const route of routes) {
      // Not counted as records out: these are the operator's own traffic, not its output.
      const sent = makeEnvelope(value, undefined, -1, lineage.timestamp, lineage.source, lineage.position);
      route.channels[target]!.push(sent);
      this.tap?.sent(route.channels[target]!, sent);
    }
  }

  /** Event time reached `timestamp` here: every channel but the feedback ones is told. */
  emitWatermark(timestamp: number): void {
    if (timestamp > this.watermarkSent && timestamp !== Number.POSITIVE_INFINITY)
      this.watermarkSent = timestamp;
    this.pushControl(watermark(timestamp));
  }

  /** This subtask went idle: every channel but the feedback ones stops waiting on its watermark. */
  emitIdle(): void {
    this.pushControl(IDLE);
  }

  /** Time's items travel on every channel but the feedback ones (loops carry no watermarks). */
  private pushControl(item: ChannelItem): void {
    for (const channel of this.allChannels) if (!channel.edge.feedback) channel.push(item);
  }

  private send(
    channel: Channel,
    value: unknown,
    key: unknown,
    keyGroup: number,
    text: string | undefined,
  ): void {
    const lineage = this.lineage;
    const envelope = makeEnvelope(
      value,
      key,
      keyGroup,
      lineage.timestamp,
      lineage.source,
      lineage.position,
      text,
    );
    channel.push(envelope);
    if (channel.full) this.blocked = true;
    this.tap?.sent(channel, envelope);
  }

  /** True when no channel is full (the subtask may run). */
  canSend(): boolean {
    if (!this.blocked) return true;
    for (const channel of this.allChannels) if (channel.full) return false;
    this.blocked = false;
    return true;
  }

  progress(): EmitterProgress {
    const next: number[] = [];
    for (const routes of this.routes.values()) for (const route of routes) next.push(route.next);
    return {
      blocked: this.blocked,
      recordsOut: this.recordsOut,
      recordsDropped: this.recordsDropped,
      lineage: { ...this.lineage },
      next,
    };
  }

  restoreProgress(progress: EmitterProgress): void {
    this.blocked = progress.blocked;
    this.recordsOut = progress.recordsOut;
    this.recordsDropped = progress.recordsDropped;
    Object.assign(this.lineage, progress.lineage);
    let i = 0;
    for (const routes of this.routes.values()) for (const route of routes) route.next = progress.next[i++]!;
  }
}
