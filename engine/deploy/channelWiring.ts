// One channel per edge and pair of subtasks that can talk: forward joins subtask i to i, every
// other partitioning joins all to all. A consumer reads feedback channels first, then the others
// in edge order and producer order (the order the deterministic executor's runs depend on).
import type { Plan, PlannedEdge } from '../graph/plan.js';
import { type Channel, type InputCounter, LocalChannel } from '../runtime/channel.js';

/** Items per channel before its producer is held back. */
export const CHANNEL_CAPACITY = 1024;

export interface Wiring {
  inputsOf(operatorId: string, subtask: number): { list: Channel[]; counter: InputCounter };
  outputsOf(edge: PlannedEdge, fromSubtask: number): Channel[];
}

export function wire(plan: Plan): Wiring {
  const counters = new Map<string, InputCounter>();
  const inputs = new Map<string, Channel[]>();
  const outputs = new Map<string, Channel[]>();
  const slot = (operatorId: string, subtask: number) => `${operatorId}#${subtask}`;
  for (const op of plan.operators) {
    for (let i = 0; i < op.parallelism; i++) {
      counters.set(slot(op.id, i), { queued: 0 });
      inputs.set(slot(op.id, i), []);
    }
  }
  const edges = plan.operators.flatMap((op) => [...op.outputs.values()].flat());
  const ordered = [...edges.filter((e) => e.feedback), ...edges.filter((e) => !e.feedback)];
  for (const edge of ordered) {
    const from = plan.byId.get(edge.from)!;
    const to = plan.byId.get(edge.to)!;
    for (let f = 0; f < from.parallelism; f++) {
      const byTarget: Channel[] = [];
      for (let t = 0; t < to.parallelism; t++) {
        if (edge.partition === 'forward' && f !== t) continue;
        const channel = new LocalChannel(edge, f, t, CHANNEL_CAPACITY, counters.get(slot(to.id, t))!);
        byTarget[t] = channel;
        inputs.get(slot(to.id, t))!.push(channel);
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
