// Drives a window logic as a subtask would, without one: records with their key and time, then
// watermarks that fire the due event-time timers in time order (key order within a time), and the
// end of input, which fires every timer. Real keyed state over the heap store; the timers a fake
// that keeps, per key, the times registered. For the window logic's unit tests.
import { type Plan, planJob } from '../engine/graph/plan.js';
import { JOB_FORMAT, type Job, jobSchema } from '../engine/graph/schema.js';
import { windowFactory } from '../engine/operators/windowLogic.js';
import type { Emitter } from '../engine/runtime/emitter.js';
import { envelope } from '../engine/runtime/envelope.js';
import type { OperatorLogic, SubtaskEnvironment } from '../engine/runtime/operatorLogic.js';
import {
  FINAL_WATERMARK,
  NO_WATERMARK,
  type TimeDomain,
  type TimerService,
} from '../engine/runtime/timers.js';
import { KeyedState } from '../engine/state/keyedState.js';
import { MemoryKvStore } from '../engine/state/memoryKvStore.js';
import { encodeKey } from '../engine/state/stateKeys.js';

export interface Emitted {
  readonly port: string;
  readonly value: unknown;
  /** The time the emitted record carries on (the emitter's lineage). */
  readonly timestamp: number | undefined;
}

/** Made with `await WindowHarness.open(params)`. */
export class WindowHarness {
  readonly emitted: Emitted[] = [];
  readonly state = new KeyedState(new MemoryKvStore());
  /** Registered event-time timers: key text -> [key, times]. */
  private readonly timers = new Map<string, { key: unknown; times: Set<number> }>();
  private watermark = NO_WATERMARK;
  private readonly logic: OperatorLogic;

  /** `stepwise`: as in a debug run. */
  static open(params: Record<string, unknown>, options: { stepwise?: boolean } = {}): Promise<WindowHarness> {
    return new WindowHarness(params, options.stepwise === true).open();
  }

  private constructor(params: Record<string, unknown>, stepwise: boolean) {
    const job = jobSchema.parse({
      format: JOB_FORMAT,
      name: 'windows',
      operators: [
        { id: 's', kind: 'source.jsonl', params: { path: 'in.jsonl' } },
        { id: 'w', kind: 'window', params },
      ],
      edges: [{ id: 'e', from: 's', to: 'w', partition: 'hash', key: 'k' }],
    }) as Job;
    const plan: Plan = planJob(job);
    const planned = plan.byId.get('w')!;
    const harness = this;
    const lineage = { timestamp: undefined as number | undefined, source: undefined, position: 0 };
    const emitter = {
      lineage,
      emit(value: unknown, port?: string) {
        harness.emitted.push({ port: port ?? 'out', value, timestamp: lineage.timestamp });
      },
    } as unknown as Emitter;
    const timerService: TimerService = {
      register: (domain: TimeDomain, timestamp: number) => {
        if (domain !== 'eventTime') throw new Error('the window registered a processing-time timer');
        const key = this.state.currentKey;
        const text = encodeKey(key);
        let entry = this.timers.get(text);
        if (entry === undefined) {
          entry = { key, times: new Set() };
          this.timers.set(text, entry);
        }
        entry.times.add(timestamp);
      },
      delete: (_domain: TimeDomain, timestamp: number) => {
        this.timers.get(encodeKey(this.state.currentKey))?.times.delete(timestamp);
      },
      get count() {
        let n = 0;
        for (const entry of harness.timers.values()) n += entry.times.size;
        return n;
      },
    };
    const env: SubtaskEnvironment = {
      operator: planned,
      subtask: 0,
      parallelism: 1,
      jobDir: '.',
      emitter,
      state: this.state,
      current: undefined,
      input: undefined,
      get watermark() {
        return harness.watermark;
      },
      timers: timerService,
      checkpoints: undefined,
      stepwise,
    };
    this.logic = (windowFactory as Extract<typeof windowFactory, { role: 'transform' }>).createLogic({
      planned,
      jobDir: '.',
      jobName: 'windows',
      checkpoints: undefined,
    })(env);
  }

  /** Opens the logic, as the subtask does before the first record. */
  async open(): Promise<this> {
    await this.logic.open();
    return this;
  }

  /** Registered timers of a key, in time order. */
  timersOf(key: unknown): number[] {
    return [...(this.timers.get(encodeKey(key))?.times ?? [])].sort((a, b) => a - b);
  }

  get timerCount(): number {
    let n = 0;
    for (const entry of this.timers.values()) n += entry.times.size;
    return n;
  }

  /** One record of key `record.k` at `timestamp` (undefined: a record without time). */
  record(record: { k: unknown; [field: string]: unknown }, timestamp: number | undefined): void {
    this.state.setKey(0, record.k);
    this.logic.process(envelope(record, record.k, 0, timestamp, undefined, 0));
  }

  /** The watermark reaches `timestamp`: due timers fire in time order, then it is the subtask's. */
  advance(timestamp: number): void {
    // As SubtaskTime: the logic's own firing first (windows held on the heap), then the timers.
    this.logic.advanceTime?.(timestamp);
    // The due timers in time order (registration order within a time), taken a batch at a time
    // (a window registers timers only while taking records, not while firing).
    for (;;) {
      const due: { key: unknown; time: number }[] = [];
      for (const { key, times } of this.timers.values()) {
        for (const time of times) if (time <= timestamp) due.push({ key, time });
      }
      if (due.length === 0) break;
      due.sort((a, b) => a.time - b.time);
      for (const next of due) {
        this.timers.get(encodeKey(next.key))!.times.delete(next.time);
        this.state.setKey(0, next.key);
        this.watermark = Math.max(this.watermark, next.time);
        this.logic.onTimer!({ domain: 'eventTime', timestamp: next.time, keyGroup: 0, key: next.key });
      }
    }
    this.watermark = Math.max(this.watermark, timestamp);
  }

  /** The input ended: every timer fires. */
  end(): void {
    this.advance(FINAL_WATERMARK);
  }

  /** A checkpoint's barrier came: the logic's snapshot is taken (keyed state is read after it). */
  checkpoint(): void {
    this.logic.snapshot(1);
  }

  /** The current key's accumulators as keyed state holds them: [window start, accumulator]. */
  async storedWindows(key: unknown): Promise<[unknown, unknown][]> {
    this.state.setKey(0, key);
    const entries: [unknown, unknown][] = [];
    for await (const entry of this.state.api.map('windows').entries()) entries.push(entry);
    return entries;
  }

  /** The records emitted to `port`, taken (the next call sees only later ones). */
  take(port = 'out'): unknown[] {
    const taken = this.emitted.filter((e) => e.port === port);
    const rest = this.emitted.filter((e) => e.port !== port);
    this.emitted.splice(0, this.emitted.length, ...rest);
    return taken.map((e) => e.value);
  }
}
