// window: each key's records aggregated over event-time windows, with Flink's WindowOperator
// semantics and its EventTimeTrigger. State is one accumulator per key and window (map state
// "windows", by window start; session windows also keep the key's windows in value state
// "sessions"), never the records. A window fires when the watermark reaches its last ms (an
// event-time timer at end − 1), emitting { key, start, end, value } on "out"; with
// allowedLatenessMs it keeps its state until end − 1 + allowedLatenessMs (a cleanup timer), and a
// record arriving meanwhile fires it again at once with the updated value. A record too late for
// every window it belongs to goes, unchanged, to port "late". Tumbling and sliding windows with a
// built-in aggregate keep their accumulators on the heap between checkpoints
// (window/windowAccumulators.ts).
import { paramsOf } from '../graph/kinds/kindDescriptor.js';
import { windowKind } from '../graph/kinds/window.js';
import type { Envelope } from '../runtime/envelope.js';
import { BaseLogic, type OperatorSnapshot, type SubtaskEnvironment } from '../runtime/operatorLogic.js';
import { recordCopy } from '../runtime/recordCopy.js';
import type { FiredTimer, TimerService } from '../runtime/timers.js';
import type { KeyedState, MapStateApi, ValueStateApi } from '../state/keyedState.js';
import type { KindFactory } from './kindFactory.js';
import { builtinAggregate } from './window/builtinAggregates.js';
import { compileCodeAggregate } from './window/codeAggregate.js';
import { addSession } from './window/sessionMerge.js';
import { maxTimestamp, type TimeWindow, windowStartWithOffset } from './window/timeWindow.js';
import { LAST_TIMER, WindowAccumulators } from './window/windowAccumulators.js';
import type { WindowAggregate } from './window/windowAggregate.js';
import type { WindowSpec } from './window/windowAssigner.js';

/** A key's session windows as value state holds them: [start, end] pairs, by start. */
type StoredSessions = [number, number][];

function preview(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}

export class WindowLogic extends BaseLogic {
  // Taken in open(): the subtask gives its environment timers once the logic is made.
  private state!: KeyedState;
  private timers!: TimerService;
  private windows!: MapStateApi;
  private sessions!: ValueStateApi;
  /** Tumbling and sliding windows' accumulators between checkpoints; undefined where not kept. */
  private held: WindowAccumulators | undefined;
  /** The latest window start keyed state may hold (WindowAccumulators): none in a new run. */
  private storedUpTo = Number.NEGATIVE_INFINITY;

  /**
   * `builtin`: the aggregate is one of ours. A code aggregate's accumulators may be as large as
   * the user makes them (a list of records), so they stay in the store, which may exceed memory.
   */
  constructor(
    env: SubtaskEnvironment,
    private readonly spec: WindowSpec,
    private readonly aggregate: WindowAggregate,
    private readonly allowedLateness: number,
    private readonly builtin = false,
  ) {
    super(env);
  }

  override async open(): Promise<void> {
    const { state, timers } = this.env;
    if (state === undefined || timers === undefined) {
      throw new Error(
        `operator "${this.env.operator.id}": a window runs only with keyed state and timers (hash-partitioned input)`,
      );
    }
    this.state = state;
    this.timers = timers;
    this.windows = state.api.map('windows');
    this.sessions = state.api.value('sessions');
    if (this.builtin && this.spec.type !== 'session' && this.env.stepwise !== true) {
      const spec = this.spec;
      const held = new WindowAccumulators(state, this.windows, this.aggregate, this.storedUpTo, {
        size: spec.size,
        allowedLateness: this.allowedLateness,
        timers,
        watermark: () => this.env.watermark,
        fire: (start, end, acc) => this.fire({ start, end }, acc),
      });
      this.held = held;
      state.countHeldElsewhere(() => held.size());
    }
  }

  /** A checkpoint reads keyed state next: the accumulators held on the heap go there first. */
  override snapshot(): OperatorSnapshot {
    const held = this.held;
    if (held === undefined) return {};
    held.writeBack(false);
    // JSON has no infinities: null says none is stored; no operator state says it is not known.
    const latest = held.latestStored;
    if (latest === Number.POSITIVE_INFINITY) return {};
    return { operatorState: { latestWindowStored: latest === Number.NEGATIVE_INFINITY ? null : latest } };
  }

  /**
   * Event time reaches `watermark` (before the timers it makes due fire): the windows held on the
   * heap that it reaches fire, with no source line (as a timer's output has none).
   */
  advanceTime(watermark: number): void {
    const held = this.held;
    if (held === undefined) return;
    const lineage = this.env.emitter.lineage;
    const { source, position } = lineage;
    lineage.source = undefined;
    lineage.position = 0;
    held.advance(watermark);
    lineage.source = source;
    lineage.position = position;
  }

  /** The state browser reads keyed state live next: it shows the windows held here too. */
  writeHeldState(): void {
    this.held?.writeBack(false);
  }

  /**
   * The latest window start any old subtask stored: their key groups may all come here. A
   * checkpoint that does not say (written before this was kept, by a debug run, or with a code
   * aggregate) leaves it unknown, and every window is looked up in the store.
   */
  restoreOperatorState(states: readonly unknown[]): void {
    let latest = Number.NEGATIVE_INFINITY;
    for (const state of states) {
      const stored = (state as { latestWindowStored?: unknown } | undefined)?.latestWindowStored;
      if (stored === null) continue;
      if (typeof stored !== 'number') {
        this.storedUpTo = Number.POSITIVE_INFINITY;
        return;
      }
      latest = Math.max(latest, stored);
    }
    this.storedUpTo = latest;
  }

  /** When a window's state goes: the watermark is past the last record it will take. */
  private cleanupTime(window: TimeWindow): number {
    return maxTimestamp(window) + this.allowedLateness;
  }

  /** Too late to take anything more (Flink's isWindowLate). */
  private isLate(window: TimeWindow): boolean {
    return this.cleanupTime(window) <= this.env.watermark;
  }

  override process(envelope: Envelope): void {
    const timestamp = envelope.timestamp;
    if (timestamp === undefined) {
      throw new Error(
        `the record has no event time, which a window needs (give its source a timestampField): ${preview(envelope.value)}`,
      );
    }
    // Windows are whole ms, as Flink's long timestamps.
    const time = Math.floor(timestamp);
    const taken =
      this.spec.type === 'session'
        ? this.addToSession(envelope.value, time)
        : this.addToWindows(envelope.value, time);
    if (!taken) this.env.emitter.emit(envelope.value, 'late');
  }

  /**
   * Tumbling and sliding windows: the record goes into each of its windows that is not late, in
   * assignWindows' order (latest start first), walked here without making the windows' objects:
   * this runs per record.
   */
  private addToWindows(record: unknown, time: number): boolean {
    const spec = this.spec as Exclude<WindowSpec, { type: 'session' }>;
    const size = spec.size;
    const slide = spec.type === 'sliding' ? spec.slide : size;
    const late = this.env.watermark - this.allowedLateness;
    const held = this.held;
    let taken = false;
    for (let start = windowStartWithOffset(time, spec.offset, slide); start > time - size; start -= slide) {
      // Too late to take anything more (Flink's isWindowLate): its cleanup time has passed.
      if (start + size - 1 <= late) continue;
      taken = true;
      if (held !== undefined) {
        // Held windows have no timers: advanceTime fires them (and writeBack registers them).
        const acc = held.add(start, record);
        if (start + size - 1 <= this.env.watermark) this.fire({ start, end: start + size }, acc);
        continue;
      }
      const stored = this.windows.get(start);
      const accumulator = this.aggregate.add(
        stored === undefined ? this.aggregate.createAccumulator() : stored,
        record,
      );
      this.windows.set(start, accumulator);
      // A window that holds state has its timers already.
      this.settle(start, start + size, accumulator, stored === undefined);
    }
    return taken;
  }

  /**
   * Session windows: the record's window [t, t + gap) merges with every session of the key it
   * touches (their accumulators merged, their timers replaced by the merged window's).
   */
  private addToSession(record: unknown, time: number): boolean {
    if (this.spec.type !== 'session') throw new Error('internal: not a session window');
    const stored = (this.sessions.get() as StoredSessions | undefined) ?? [];
    const before = stored.map(([start, end]) => ({ start, end }));
    const { window, absorbed, sessions } = addSession(before, { start: time, end: time + this.spec.gap });
    // A live session it touched would have made the merged window live too.
    if (this.isLate(window)) return false;
    let accumulator: unknown;
    for (const old of absorbed) {
      const held = this.windows.get(old.start);
      this.windows.delete(old.start);
      accumulator = accumulator === undefined ? held : this.aggregate.merge(accumulator, held);
    }
    accumulator = this.aggregate.add(accumulator ?? this.aggregate.createAccumulator(), record);
    this.windows.set(window.start, accumulator);
    this.sessions.set(sessions.map((w): [number, number] => [w.start, w.end]));
    // Timers of the sessions merged away, unless a session of the key still has one at that time.
    const needed = new Set(sessions.flatMap((w) => [maxTimestamp(w), this.cleanupTime(w)]));
    for (const old of absorbed) {
      for (const at of [maxTimestamp(old), this.cleanupTime(old)]) {
        if (!needed.has(at)) this.timers.delete('eventTime', at);
      }
    }
    this.settle(window.start, window.end, accumulator, true);
    return true;
  }

  /**
   * After a record went into a window: a window the watermark has passed already (a late record
   * within the allowed lateness) fires now with its new value; any other is due at its last ms.
   */
  private settle(start: number, end: number, accumulator: unknown, registerTimers: boolean): void {
    const due = end - 1;
    if (due <= this.env.watermark) this.fire({ start, end }, accumulator);
    else if (registerTimers) this.timers.register('eventTime', due);
    const cleanup = due + this.allowedLateness;
    if (registerTimers && cleanup !== due && cleanup <= LAST_TIMER)
      this.timers.register('eventTime', cleanup);
  }

  private fire(window: TimeWindow, accumulator: unknown): void {
    const output = {
      key: this.state.currentKey,
      start: window.start,
      end: window.end,
      value: this.aggregate.result(accumulator),
    };
    const lineage = this.env.emitter.lineage;
    const time = lineage.timestamp;
    // Flink's window output carries the window's last ms as its time.
    lineage.timestamp = maxTimestamp(window);
    // A result of plain data made here needs no copy: a primitive key (no record shares it) and a
    // number JSON holds (a built-in aggregate's); anything else is copied, or refused, as emitted.
    const plain = isPrimitive(output.key) && (output.value === null || Number.isFinite(output.value));
    this.env.emitter.emit(
      plain ? output : recordCopy(output, () => `the result of window [${window.start}, ${window.end})`),
    );
    lineage.timestamp = time;
  }

  onTimer(timer: FiredTimer): void {
    if (timer.domain !== 'eventTime') return;
    if (this.spec.type === 'session') this.sessionTimer(timer.timestamp);
    else this.windowTimer(timer.timestamp, this.spec.size);
  }

  /** A timer at t is due for the window ending at t + 1 and the cleanup of the one whose lateness ends at t. */
  private windowTimer(at: number, size: number): void {
    const dueStart = at + 1 - size;
    const cleanupStart = at + 1 - this.allowedLateness - size;
    const held = this.held;
    const acc = held === undefined ? this.windows.get(dueStart) : held.storedOnly(dueStart);
    if (acc !== undefined) this.fire({ start: dueStart, end: dueStart + size }, acc);
    (held ?? this.windows).delete(cleanupStart);
  }

  private sessionTimer(at: number): void {
    const stored = (this.sessions.get() as StoredSessions | undefined) ?? [];
    const kept: StoredSessions = [];
    for (const [start, end] of stored) {
      const window = { start, end };
      if (maxTimestamp(window) === at) this.fire(window, this.windows.get(start));
      if (this.cleanupTime(window) === at) this.windows.delete(start);
      else kept.push([start, end]);
    }
    if (kept.length === stored.length) return;
    if (kept.length === 0) this.sessions.clear();
    else this.sessions.set(kept);
  }

  /** Nothing of its own between two records: windows and timers are keyed state. */
  progress(): undefined {
    return undefined;
  }

  restoreProgress(): void {}
}

/** The window spec its params say (validation made sure each type has what it needs). */
export function windowSpecOf(params: {
  type: 'tumbling' | 'sliding' | 'session';
  sizeMs?: number | undefined;
  slideMs?: number | undefined;
  gapMs?: number | undefined;
  offsetMs?: number | undefined;
}): WindowSpec {
  const offset = params.offsetMs ?? 0;
  switch (params.type) {
    case 'tumbling':
      return { type: 'tumbling', size: params.sizeMs!, offset };
    case 'sliding':
      return { type: 'sliding', size: params.sizeMs!, slide: params.slideMs!, offset };
    case 'session':
      return { type: 'session', gap: params.gapMs! };
  }
}

/** window: the aggregate compiled once per subtask (code, like every user function) or built in. */
export const windowFactory: KindFactory = {
  role: 'transform',
  createLogic: ({ planned }) => {
    const operator = planned.operator;
    const params = paramsOf(windowKind, operator);
    const spec = windowSpecOf(params);
    const aggregates: WindowAggregate[] = Array.from({ length: planned.parallelism }, () =>
      params.aggregate === 'code'
        ? compileCodeAggregate({ code: params.code ?? '', operatorId: operator.id, windowType: params.type })
        : builtinAggregate(params.aggregate, params.field),
    );
    const builtin = params.aggregate !== 'code';
    return (env) =>
      new WindowLogic(env, spec, aggregates[env.subtask]!, params.allowedLatenessMs ?? 0, builtin);
  },
};

/** A string, a finite number or a boolean: a key no other record holds a reference to. */
function isPrimitive(value: unknown): boolean {
  return typeof value === 'string' || typeof value === 'boolean' || Number.isFinite(value);
}
