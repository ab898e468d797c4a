// One channel per edge and pair of subtasks that can talk: forward joins subtask i to i, every
// other partitioning joins all to all. A consumer reads feedback channels first, then the others
// in edge order and producer order (the order the deterministic executor's runs depend on).
// In a run on several threads each thread wires only its own subtasks' channels: both ends on
// it make a local channel, one end on another thread makes that end of a cross-thread channel.
// Every thread numbers the cross-thread channels alike, since it walks the same plan in the
// same order, so a batch names its channel by that number.

import type { Plan, PlannedEdge } from '../graph/plan.js';
import type { ThreadPlacement } from '../graph/threadPlacement.js';
import { type Channel, type InputCounter, LocalChannel } from '../runtime/channel.js';
import { InboundChannel, OutboundChannel } from '../runtime/threadChannel.js';
import type { ThreadLink } from '../runtime/threadLink.js';

/** Items per channel before its producer is held back. */
export const CHANNEL_CAPACITY = 1024;
/**
 * Items a cross-thread channel may have in flight: eight batches, about what Flink keeps per
 * channel (two 32 KiB buffers and floating ones). Twice a local channel's: with 1024 each
 * thread of the keyed benchmark sat idle 14% of its time waiting for credit or batches, with
 * 2048 11%. Not more: a barrier waits behind everything in flight, so checkpoints take longer.
 */
export const THREAD_CHANNEL_CAPACITY = 2048;

export interface Wiring {
  inputsOf(operatorId: string, subtask: number): { list: Channel[]; counter: InputCounter };
  outputsOf(edge: PlannedEdge, fromSubtask: number): Channel[];
}

/** One thread's part of a run on several threads. */
export interface ThreadPart {
  readonly placement: ThreadPlacement;
  readonly thread: number;
  /** The link to another thread. */
  readonly link: (thread: number) => ThreadLink;
}

/**
 * `writesJsonText`: whether an operator's subtasks write records as JSON text, so that records
 * crossing threads to them may come as that text (OutboundChannel's `sendsJsonText`).
 */
export function wire(
  plan: Plan,
  part?: ThreadPart,
  writesJsonText: (operatorId: string) => boolean = () => false,
): Wiring {
  const counters = new Map<string, InputCounter>();
  const inputs = new Map<string, Channel[]>();
  const outputs = new Map<string, Channel[]>();
  const slot = (operatorId: string, subtask: number) => `${operatorId}#${subtask}`;
  const threadOf = (operatorId: string, subtask: number) =>
    part === undefined ? 0 : part.placement.byOperator.get(operatorId)![subtask]!;
  const here = part?.thread ?? 0;
  for (const op of plan.operators) {
    for (let i = 0; i < op.parallelism; i++) {
      counters.set(slot(op.id, i), { queued: 0 });
      inputs.set(slot(op.id, i), []);
    }
  }
  const edges = plan.operators.flatMap((op) => [...op.outputs.values()].flat());
  const ordered = [...edges.filter((e) => e.feedback), ...edges.filter((e) => !e.feedback)];
  let crossing = 0;
  for (const edge of ordered) {
    const from = plan.byId.get(edge.from)!;
    const to = plan.byId.get(edge.to)!;
    for (let f = 0; f < from.parallelism; f++) {
      const byTarget: Channel[] = [];
      const producer = threadOf(from.id, f);
      for (let t = 0; t < to.parallelism; t++) {
        if (edge.partition === 'forward' && f !== t) continue;
        const consumer = threadOf(to.id, t);
        const counter = counters.get(slot(to.id, t))!;
        if (producer === consumer) {
          if (producer !== here) continue;
          const channel = new LocalChannel(edge, f, t, CHANNEL_CAPACITY, counter);
          byTarget[t] = channel;
          inputs.get(slot(to.id, t))!.push(channel);
          continue;
        }
        const id = crossing++;
        if (producer === here) {
          const link = part!.link(consumer);
          const channel = new OutboundChannel(
            id,
            edge,
            f,
            t,
            THREAD_CHANNEL_CAPACITY,
            link,
            writesJsonText(to.id),
          );
          link.addOutbound(channel);
          byTarget[t] = channel;
        } else if (consumer === here) {
          const channel = new InboundChannel(id, edge, f, t, THREAD_CHANNEL_CAPACITY, counter);
          part!.link(producer).addInbound(channel);
          inputs.get(slot(to.id, t))!.push(channel);
        }
      }
      outputs.set(`${edge.id}/${f}`, byTarget);
    }
  }
  return {
    inputsOf: (operatorId, subtask) => ({
      list: inputs.get(slot(operatorId, subtask))!,
      counter: counters.get(slot(operatorId, subtask))!,
    }),
    outputsOf: (edge, fromSubtask) => outputs.get(`${edge.id}/${fromSubtask}`)!,
  };
}
