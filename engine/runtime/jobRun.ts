// A job run: plan the job, wire subtasks with channels, open state and operators, schedule
// until every subtask has finished, then commit the sinks. On any failure every operator is
// aborted, so nothing half-written becomes visible.
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { getHeapStatistics } from 'node:v8';
import { KINDS } from '../graph/operatorKinds.js';
import type { Plan, PlannedEdge } from '../graph/plan.js';
import { planJob } from '../graph/plan.js';
import type { Job } from '../graph/schema.js';
import { type JobMetrics, operatorTotals, type SubtaskMetrics } from '../metrics/jobMetrics.js';
import { logicFactory } from '../operators/registry.js';
import { KeyedState } from '../state/keyedState.js';
import type { KvStore } from '../state/kvStore.js';
import { LevelKvStore } from '../state/levelKvStore.js';
import { MemoryKvStore } from '../state/memoryKvStore.js';
import { Channel } from './channel.js';
import { Emitter } from './emitter.js';
import { JobError } from './jobError.js';
import { Scheduler } from './scheduler.js';
import { type DeliveryObserver, Subtask } from './subtask.js';

/** Items per channel before its producer is held back. */
export const CHANNEL_CAPACITY = 1024;

/** The state read caches of all subtasks together: a quarter of the heap, at most 64 MiB. */
function stateCacheBudget(): number {
  return Math.min(64 * 1024 * 1024, getHeapStatistics().heap_size_limit / 4);
}

export interface RunOptions {
  /** Directory of the job file: relative paths in params resolve against it. */
  readonly jobDir: string;
  /** Where LevelDB state lives; its `subtasks/` folder is the engine's and starts empty. */
  readonly stateDir: string;
  /** Sees every delivery, in order (tests, the debugger's trace). */
  readonly observer?: DeliveryObserver;
}

export interface RunSummary {
  readonly stopped: boolean;
  readonly metrics: JobMetrics;
}

export class JobRun {
  private readonly startedAt = performance.now();
  private finishedAt: number | undefined;
  private readonly scheduler: Scheduler;

  private constructor(
    readonly job: Job,
    readonly plan: Plan,
    private readonly subtasks: readonly Subtask[],
  ) {
    this.scheduler = new Scheduler(subtasks);
  }

  /** Builds and opens everything; a failure here has opened nothing that stays open. */
  static async open(job: Job, options: RunOptions): Promise<JobRun> {
    const plan = planJob(job);
    const factories = new Map(plan.operators.map((op) => [op.id, logicFactory(op, options.jobDir)]));
    const subtasks: Subtask[] = [];
    const stores: KvStore[] = [];
    try {
      const stateRoot = join(options.stateDir, 'subtasks');
      if (job.settings.stateBackend === 'level') {
        await rm(stateRoot, { recursive: true, force: true });
        await mkdir(stateRoot, { recursive: true });
      }
      const channels = wire(plan);
      const keyedSubtasks = plan.operators
        .filter((op) => op.keyed && KINDS[op.operator.kind].functionName !== undefined)
        .reduce((n, op) => n + op.parallelism, 0);
      const cacheBytes = stateCacheBudget() / Math.max(1, keyedSubtasks);
      for (const op of plan.operators) {
        for (let index = 0; index < op.parallelism; index++) {
          const inputs = channels.inputsOf(op.id, index);
          const emitter = new Emitter(index, plan.maxParallelism, op.outputs, (edge) =>
            channels.outputsOf(edge, index),
          );
          let store: KvStore | undefined;
          // Keyed state for every operator with keyed input that runs user code.
          if (op.keyed && KINDS[op.operator.kind].functionName !== undefined) {
            store =
              job.settings.stateBackend === 'level'
                ? await LevelKvStore.open(join(stateRoot, `${op.id}-${index}`), cacheBytes)
                : new MemoryKvStore();
            stores.push(store);
          }
          const subtask = new Subtask(
            op,
            index,
            options.jobDir,
            inputs.list,
            emitter,
            store === undefined ? undefined : new KeyedState(store),
            store,
            inputs.counter,
          );
          subtask.observer = options.observer;
          subtask.logic = factories.get(op.id)!(subtask);
          subtasks.push(subtask);
        }
      }
      const opened: Subtask[] = [];
      try {
        for (const subtask of subtasks) {
          await subtask.logic.open();
          opened.push(subtask);
        }
      } catch (error) {
        await Promise.allSettled(opened.map((s) => s.logic.abort()));
        throw error;
      }
    } catch (error) {
      await Promise.allSettled(stores.map((s) => s.close()));
      throw error;
    }
    return new JobRun(job, plan, subtasks);
  }

  /** Runs to the end (bounded sources) or until stop(); commits the sinks on success. */
  async run(): Promise<RunSummary> {
    try {
      await this.scheduler.run();
      for (const subtask of this.subtasks) subtask.takeFinalEndsOfStream();
      for (const subtask of this.subtasks) await subtask.store?.flush();
      for (const subtask of this.subtasks) await subtask.logic.commit();
    } catch (error) {
      await Promise.allSettled(this.subtasks.map((s) => s.logic.abort()));
      await this.closeStores();
      this.finishedAt = performance.now();
      throw error instanceof JobError
        ? error
        : new JobError(`internal error: ${(error as Error).stack ?? error}`);
    }
    await this.closeStores();
    this.finishedAt = performance.now();
    return { stopped: this.scheduler.stopRequested, metrics: this.metrics() };
  }

  /** A clean stop: sources stop, what is in flight completes and is committed. */
  stop(): void {
    this.scheduler.requestStop();
  }

  metrics(): JobMetrics {
    const elapsedMs = (this.finishedAt ?? performance.now()) - this.startedAt;
    return {
      job: this.job.name,
      elapsedMs,
      operators: this.plan.operators.map((op) => {
        const subtasks: SubtaskMetrics[] = this.subtasks
          .filter((s) => s.operator === op)
          .map((s) => {
            const size = s.stateSize();
            return {
              subtask: s.subtask,
              recordsIn: s.recordsIn,
              recordsOut: s.emitter.recordsOut,
              queued: s.inputCounter.queued,
              ...(size === undefined ? {} : { stateEntries: size.entries, stateBytes: size.bytes }),
            };
          });
        const totals = operatorTotals(subtasks);
        return {
          id: op.id,
          kind: op.operator.kind,
          parallelism: op.parallelism,
          recordsIn: totals.recordsIn,
          recordsOut: totals.recordsOut,
          ...(totals.stateEntries === undefined
            ? {}
            : { stateEntries: totals.stateEntries, stateBytes: totals.stateBytes }),
          subtasks,
        };
      }),
    };
  }

  private async closeStores(): Promise<void> {
    await Promise.allSettled(this.subtasks.map((s) => s.store?.close()));
  }
}

interface Wiring {
  inputsOf(operatorId: string, subtask: number): { list: Channel[]; counter: { queued: number } };
  outputsOf(edge: PlannedEdge, fromSubtask: number): Channel[];
}

/**
 * One channel per edge and pair of subtasks that can talk: forward joins subtask i to i, every
 * other partitioning joins all to all. A consumer reads feedback channels first, then the
 * others in edge order and producer order.
 */
function wire(plan: Plan): Wiring {
  const counters = new Map<string, { queued: number }>();
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
        const channel = new Channel(edge, f, t, CHANNEL_CAPACITY, counters.get(slot(to.id, t))!);
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
