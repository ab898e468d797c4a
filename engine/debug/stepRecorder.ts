// What one step of a debug run shows, gathered while the engine does it: the item a subtask took
// (a record, barrier, watermark, idle mark or end of input, and the edge and upstream subtask it
// came on), or the timer it fired; what it emitted on which port and over which edges, and the
// state it read and wrote. A source's slice is one unit of the engine's work but one step per
// record it made; each timer a firing fires is a step too, in whatever unit the engine fired it.
// A transaction is part of the step in which its leader subtask ran it (transactionView.ts).
// Hooks: the subtasks' delivery observer, timer and transaction taps, the emitters' taps, and
// ctx.state (stateAccessRecorder.ts), all installed only in debug runs.

import { isDeepStrictEqual } from 'node:util';
import type { JobRun } from '../deploy/jobRun.js';
import { findKind } from '../graph/kinds/kindRegistry.js';
import type { StateAccess, StepView, TransactionView, WatermarkPassView } from '../protocol/runProtocol.js';
import type { Channel } from '../runtime/channel.js';
import type { ScheduledUnit } from '../runtime/deterministicExecutor.js';
import type { Envelope } from '../runtime/envelope.js';
import type { RecordSource } from '../runtime/recordSource.js';
import type { DeliveryObserver, Subtask } from '../runtime/subtask.js';
import { type FiredTimer, NO_WATERMARK } from '../runtime/timers.js';
import type { TransactionReport } from '../runtime/transactionReport.js';
import type { KeyedState, StateApi } from '../state/keyedState.js';
import { jsonCopy } from './jsonCopy.js';
import type { Origin, StepLineage, TraceInput } from './recordTrace.js';
import { instrumentStateApi, type StateAccessSink } from './stateAccessRecorder.js';
import { type StateRead, stateCells } from './stateCells.js';
import { transactionAccesses, transactionView } from './transactionView.js';

/**
 * `full`: everything a view shows, values copied. `lineage`: only what traces and step numbers
 * need, for replaying far from where the user stands.
 */
export type Capture = 'full' | 'lineage';

export interface RecordedStep {
  readonly seq: number;
  /** What the Debugger shows; only with full capture. */
  readonly view: StepView | undefined;
  readonly lineage: StepLineage;
  /** A record step's record (delivered, or made by a source): where it was read from. */
  readonly from?: RecordFrom;
}

/** Where a record was read from, as a failure names it (`the record from in.jsonl:3`). */
export interface RecordFrom {
  readonly source: RecordSource | undefined;
  readonly position: number;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };
type Emitted = Mutable<StepView['emitted'][number]> & { edges: string[] };

interface Building {
  readonly seq: number;
  readonly subtask: Subtask;
  kind: StepView['kind'] | undefined;
  record?: unknown;
  key?: unknown;
  edge?: StepView['edge'];
  checkpointId?: number;
  watermark?: number;
  operatorWatermark?: number;
  timer?: StepView['timer'];
  /** At a source: the position of the record being made, which tells its records apart. */
  position?: number;
  readonly emitted: Emitted[];
  emits: number;
  readonly state: StateAccess[];
  readonly stateKeys: unknown[];
  readonly reads: StateRead[];
  readonly writes: string[];
  readonly transactions: TransactionView[];
  /** Transactions it ran (counted in every capture, unlike `transactions`). */
  transactionsRan: number;
  parent?: Origin | undefined;
  input?: TraceInput | undefined;
  from?: RecordFrom;
}

function edgeOf(channel: Channel): NonNullable<StepView['edge']> {
  return { id: channel.edge.id, fromSubtask: channel.fromSubtask, feedback: channel.edge.feedback };
}

/** A subtask's watermark as a view carries it: none before its first (JSON has no -Infinity). */
function watermarkOf(subtask: Subtask): number | undefined {
  const watermark = subtask.time.watermark;
  return watermark === NO_WATERMARK || !Number.isFinite(watermark) ? undefined : watermark;
}

export class StepRecorder implements StateAccessSink {
  private capture: Capture = 'full';
  private seq = 0;
  private steps: Building[] = [];
  private current: Building | undefined;
  /** Which emit made each envelope still around: a trace walks back through these. */
  private readonly origins = new WeakMap<Envelope, Origin>();
  /**
   * A subtask whose firing of timers just ended: what it does next without a step of its own
   * is the end of its input going on (the firing held it back), so it is an end step.
   */
  private afterFiring: Subtask | undefined;
  /**
   * Watermarks that fired nothing, waiting to be shown with the next step (StepView.watermarks).
   * They outlive a unit: the run is saved only when none waits (holding), so that a replay from
   * a saved point does the same steps.
   */
  private held: WatermarkPassView[] = [];

  /** `known` gives what an earlier pass recorded of a step (a replay keeps its source records). */
  constructor(private readonly known: (seq: number) => StepLineage | undefined) {}

  get copying(): boolean {
    return this.capture === 'full';
  }

  /** A watermark that fired nothing waits for the next step: no point to save the run at. */
  get holding(): boolean {
    return this.held.length > 0;
  }

  /** The run was opened again or put back to a saved point: no watermark waits any more. */
  forgetHeld(): void {
    this.held = [];
  }

  /** Wraps ctx.state of a keyed subtask (JobRun's DebugHooks). */
  stateApi(api: StateApi, state: KeyedState): StateApi {
    return instrumentStateApi(api, state, this);
  }

  /** What the run's subtasks tell at every delivery (RunOptions.observer); `delivering` hears it first. */
  observer(delivering: (envelope: Envelope) => void): DeliveryObserver {
    return (subtask, channel, envelope) => {
      delivering(envelope);
      this.delivered(subtask, channel, envelope);
    };
  }

  /** Watches what the run's subtasks emit, and the timers they fire. */
  attach(run: JobRun): void {
    for (const subtask of run.subtasks) {
      subtask.emitter.tap = {
        emitting: (port, value) => this.emitting(subtask, port, value),
        sent: (channel, envelope) => this.sent(channel, envelope),
      };
      subtask.timerTap = {
        firing: (timer) => this.timerFiring(subtask, timer),
        over: () => this.firingOver(subtask),
      };
      subtask.transactionTap = (report) => this.transactionRan(subtask, report);
    }
  }

  /** A copy of a record made since the envelope it stands in for: same origin. */
  relink(original: Envelope, copy: Envelope): void {
    const origin = this.origins.get(original);
    if (origin !== undefined) this.origins.set(copy, origin);
  }

  /** A unit of the engine's work starts; its steps are numbered from `seqBefore + 1`. */
  begin(capture: Capture, seqBefore: number): void {
    this.capture = capture;
    this.seq = seqBefore;
    this.steps = [];
    this.current = undefined;
    this.afterFiring = undefined;
  }

  private open(subtask: Subtask, fresh = false): Building {
    const current = this.current;
    if (!fresh && current !== undefined && current.subtask === subtask) return current;
    const step: Building = {
      seq: ++this.seq,
      subtask,
      kind: this.afterFiring === subtask ? 'end' : undefined,
      emitted: [],
      emits: 0,
      state: [],
      stateKeys: [],
      reads: [],
      writes: [],
      transactions: [],
      transactionsRan: 0,
    };
    this.afterFiring = undefined;
    this.steps.push(step);
    this.current = step;
    return step;
  }

  /**
   * The step of an item `subtask` takes: the one what it did so far opened (an end of input's
   * emits come before the item's unit is known), else a new one.
   */
  private openItem(subtask: Subtask): Building {
    const current = this.current;
    const ownSoFar = current !== undefined && current.subtask === subtask && current.kind === undefined;
    return ownSoFar ? current : this.open(subtask, true);
  }

  private delivered(subtask: Subtask, channel: Channel, envelope: Envelope): void {
    const step = this.openItem(subtask);
    step.kind = 'record';
    step.edge = edgeOf(channel);
    step.parent = this.origins.get(envelope);
    step.input = step.parent?.input;
    step.from = { source: envelope.source, position: envelope.position };
    if (this.capture === 'full') {
      step.record = jsonCopy(envelope.value);
      if (envelope.key !== undefined) step.key = jsonCopy(envelope.key);
    }
  }

  /** A timer fires: its own step, which what onTimer does (state, emits) goes to. */
  private timerFiring(subtask: Subtask, timer: FiredTimer): void {
    const step = this.open(subtask, true);
    step.kind = 'timer';
    step.timer = { domain: timer.domain, timestamp: timer.timestamp };
    if (this.capture === 'full') step.key = jsonCopy(timer.key);
  }

  private firingOver(subtask: Subtask): void {
    if (this.current?.subtask === subtask) this.current = undefined;
    this.afterFiring = subtask;
  }

  private emitting(subtask: Subtask, port: string, value: unknown): void {
    const full = this.capture === 'full';
    let step: Building;
    if (subtask.isSource) {
      const position = subtask.emitter.lineage.position;
      const current = this.current;
      if (current !== undefined && current.subtask === subtask && current.position === position) {
        step = current;
      } else {
        step = this.open(subtask, true);
        step.kind = 'produce';
        step.position = position;
        step.from = { source: subtask.emitter.lineage.source, position };
        const operator = subtask.operator.id;
        const source = subtask.emitter.lineage.source;
        const where = {
          operator,
          subtask: subtask.subtask,
          position,
          ...(source === undefined ? {} : { source }),
        };
        if (full) {
          step.record = jsonCopy(value);
          step.input = { ...where, record: step.record };
        } else {
          step.input = this.known(step.seq)?.input ?? { ...where, record: undefined };
        }
      }
    } else {
      step = this.open(subtask);
    }
    step.emits++;
    if (full) step.emitted.push({ port, record: jsonCopy(value), edges: [] });
  }

  private sent(channel: Channel, envelope: Envelope): void {
    const step = this.current;
    if (step === undefined) return;
    this.origins.set(envelope, { seq: step.seq, emitted: step.emits - 1, input: step.input });
    const emitted = step.emitted[step.emits - 1];
    if (emitted !== undefined && !emitted.edges.includes(channel.edge.id))
      emitted.edges.push(channel.edge.id);
  }

  stateAccess(access: StateAccess): void {
    const step = this.current;
    if (step === undefined) return;
    if (this.capture === 'full') step.state.push(access);
    // A transaction's rows are read and written on the subtasks that own them, each in a step of
    // its own; traces see them once, in the leader's step that reports the transaction, so that
    // the last writer of a row is the transaction that wrote it.
    if (step.subtask.operator.transactional) return;
    this.touched(step, access);
  }

  /**
   * The leader ran a transaction, inside the step going on at `subtask` (which may be the step
   * that brought another subtask's rows, not the transaction's record).
   */
  private transactionRan(subtask: Subtask, report: TransactionReport): void {
    const step = this.open(subtask);
    step.transactionsRan++;
    if (this.capture === 'full') step.transactions.push(transactionView(report));
    // Its rows, for traces; the view shows them with the transaction, not as state accesses.
    for (const access of transactionAccesses(report)) this.touched(step, access);
  }

  /** Lineage: the key a step touched and the state cells it read and wrote. */
  private touched(step: Building, access: StateAccess): void {
    if (!step.stateKeys.some((key) => isDeepStrictEqual(key, access.key))) step.stateKeys.push(access.key);
    const { read, writes } = stateCells(step.subtask.operator.id, access);
    // A read of a value or element the step itself wrote before depends on nothing earlier (a
    // scan of a map still does, on the elements the step did not write).
    const scan = access.type === 'map' && !('element' in access);
    const own = read !== undefined && !scan && step.writes.includes(read.cells[0]!);
    if (read !== undefined && !own && !step.reads.some((r) => r.cells[0] === read.cells[0])) {
      step.reads.push(read);
    }
    for (const cell of writes) if (!step.writes.includes(cell)) step.writes.push(cell);
  }

  /** The unit is done: its steps (none, one, or a source's records), in order. */
  end(unit: ScheduledUnit): RecordedStep[] {
    let quiet: Building | undefined;
    switch (unit.kind) {
      case 'item': {
        const item = unit.item;
        if (item.type === 'record') break;
        const step = this.openItem(unit.subtask);
        step.edge = edgeOf(unit.channel);
        switch (item.type) {
          case 'barrier':
            step.kind = 'barrier';
            step.checkpointId = item.checkpointId;
            break;
          case 'watermark':
            step.kind = 'watermark';
            step.watermark = item.timestamp;
            step.operatorWatermark = watermarkOf(unit.subtask);
            if (this.firedNothing(step)) quiet = step;
            break;
          case 'idle':
            step.kind = 'idle';
            step.operatorWatermark = watermarkOf(unit.subtask);
            break;
          case 'end':
            step.kind = 'end';
            break;
          case 'skipped':
            // Debug runs broadcast into a transaction (jobAssembly.ts): no edge is routed there.
            throw new Error('internal: a progress mark reached a debug run');
        }
        break;
      }
      case 'timer':
        // The timer's step was opened as it fired (timerTap), with what it read and emitted.
        break;
      case 'snapshot': {
        // A firing ends before a snapshot due is taken: a unit that ended one (the watermark
        // going on, the input's end) took no snapshot yet.
        if (unit.subtask.snapshotDue === unit.checkpointId) break;
        const step = this.open(unit.subtask);
        step.kind = 'barrier';
        step.checkpointId = unit.checkpointId;
        break;
      }
      case 'end':
        this.open(unit.subtask).kind = 'end';
        break;
      case 'produce':
        break;
    }
    if (quiet !== undefined) {
      // Not a step: its number goes to the next one (it was the last numbered).
      this.steps = this.steps.filter((step) => step !== quiet);
      this.seq--;
    }
    const steps = this.steps.map((step, k) => this.finish(step, k === 0 ? this.takeHeld() : undefined));
    if (quiet !== undefined) this.held.push(this.pass(quiet));
    this.steps = [];
    this.current = undefined;
    this.afterFiring = undefined;
    return steps;
  }

  /**
   * A watermark step that did nothing but move time: no timer fired or is about to (a firing
   * under way), nothing emitted, no state touched, no transaction run.
   */
  private firedNothing(step: Building): boolean {
    return (
      step.seq === this.seq &&
      step.emits === 0 &&
      step.stateKeys.length === 0 &&
      step.transactionsRan === 0 &&
      !step.subtask.time.busy
    );
  }

  private pass(step: Building): WatermarkPassView {
    return {
      operator: step.subtask.operator.id,
      subtask: step.subtask.subtask,
      edge: step.edge!,
      watermark: step.watermark!,
      ...(step.operatorWatermark === undefined ? {} : { operatorWatermark: step.operatorWatermark }),
    };
  }

  private takeHeld(): WatermarkPassView[] | undefined {
    if (this.held.length === 0) return undefined;
    const held = this.held;
    this.held = [];
    return held;
  }

  private finish(step: Building, watermarks: readonly WatermarkPassView[] | undefined): RecordedStep {
    const kind = step.kind;
    if (kind === undefined) {
      throw new Error(`internal: a step of ${step.subtask.label} has no kind`);
    }
    const operator = step.subtask.operator;
    const lineage: StepLineage = {
      seq: step.seq,
      operator: operator.id,
      subtask: step.subtask.subtask,
      parent: step.parent,
      input: step.input,
      stateKeys: step.stateKeys,
      reads: step.reads,
      writes: step.writes,
      emitted: step.emits,
      sink: findKind(operator.operator.kind)?.role === 'sink',
      received: kind === 'record',
    };
    if (this.capture !== 'full') return { seq: step.seq, view: undefined, lineage };
    const from = step.from === undefined ? {} : { from: step.from };
    const view: Mutable<StepView> = {
      seq: step.seq,
      operator: operator.id,
      subtask: step.subtask.subtask,
      kind,
      emitted: step.emitted,
      state: step.state,
    };
    if ('record' in step) view.record = step.record;
    if (step.key !== undefined) view.key = step.key;
    if (step.edge !== undefined) view.edge = step.edge;
    if (step.checkpointId !== undefined) view.checkpointId = step.checkpointId;
    if (step.watermark !== undefined) view.watermark = step.watermark;
    if (step.operatorWatermark !== undefined) view.operatorWatermark = step.operatorWatermark;
    if (step.timer !== undefined) view.timer = step.timer;
    if (step.transactions.length > 0) view.transactions = step.transactions;
    if (watermarks !== undefined) view.watermarks = watermarks;
    return { seq: step.seq, view, lineage, ...from };
  }
}
