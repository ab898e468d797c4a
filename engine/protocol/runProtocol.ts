// The run-and-debug part of the host protocol: types only (the renderer imports them). The host
// runs the job on the same engine as the CLI; the designer drives it and listens to its events.
import type { CheckpointFigures } from '../metrics/checkpointFigures.js';
import type { SubtaskMetrics } from '../metrics/jobMetrics.js';
import type {
  CompareSide,
  KeyCompareView,
  KeyStateView,
  StateElementsPage,
  StatePage,
} from './stateProtocol.js';

export type * from './stateProtocol.js';

export type RunMode = 'run' | 'debug';

export type RunStatus = 'starting' | 'running' | 'paused' | 'finished' | 'failed' | 'stopped';

export interface RunStartParams {
  /** The job file text as the designer has it (edits need not be saved). */
  readonly text: string;
  /**
   * Where the job file is: relative paths resolve against its folder, and state and checkpoints
   * go beside it (in the desktop app, under its data folder, one folder per job file).
   */
  readonly path: string;
  readonly mode: RunMode;
  /** Sinks show their records in the Debugger panel and write nothing. */
  readonly previewSinks: boolean;
  /** Restart from a completed checkpoint of this job. */
  readonly restore?: 'latest' | number;
  readonly breakpoints?: readonly Breakpoint[];
  /**
   * The user trusts the job (docs/security.md). Otherwise it runs confined: a param naming a file
   * outside the job's folder or an environment variable fails the run as it opens.
   */
  readonly trusted?: boolean;
  /**
   * Run ▸ Run on Flink…: the job goes to the Flink session cluster at this REST address (as
   * `pipewright flink --cluster`), and the run's events show Flink's figures. Mode "run" only,
   * without preview or restore; the job must be trusted (a Flink job runs unconfined).
   */
  readonly flink?: FlinkTarget;
}

export interface FlinkTarget {
  /** The cluster's REST address, `http://HOST:8081`. */
  readonly cluster: string;
  /** Every operator's parallelism, in place of the job's (`--parallelism`). */
  readonly parallelism?: number;
  /**
   * A savepoint the job goes on from (`--from-savepoint`): an absolute path or a URI, such as
   * the one a stop of an earlier run on Flink left (RunInfo.flink.savepoint).
   */
  readonly fromSavepoint?: string;
}

export type Breakpoint =
  | { readonly id: string; readonly type: 'operator'; readonly operator: string }
  /** A JavaScript expression over the record `r` (and `ctx.key`, `ctx.subtask`), run in the user-code sandbox. */
  | {
      readonly id: string;
      readonly type: 'condition';
      readonly operator?: string;
      readonly expression: string;
    }
  /** Hits when the state of this key (as `ctx.key` shows it) is read or written. */
  | { readonly id: string; readonly type: 'stateKey'; readonly operator?: string; readonly key: string }
  /** Hits when a timer fires (of this key only, as `ctx.key` shows it, when one is named). */
  | { readonly id: string; readonly type: 'timer'; readonly operator?: string; readonly key?: string }
  /** Hits when a watermark reaches the operator (any of its subtasks, over any input). */
  | { readonly id: string; readonly type: 'watermark'; readonly operator?: string }
  /**
   * Hits after a step that ran a transaction touching (reading or writing) this row of a
   * transaction operator's table: `accounts/a7` is table "accounts", key "a7" (as `ctx.key`
   * shows it: a number key 7 is "7").
   */
  | {
      readonly id: string;
      readonly type: 'row';
      readonly operator?: string;
      readonly table: string;
      readonly key: string;
    };

export interface BreakpointProblem {
  readonly id: string;
  readonly message: string;
}

export interface RunInfo {
  readonly runId: string;
  readonly status: RunStatus;
  readonly mode: RunMode;
  /** Steps taken so far (debug mode). */
  readonly step: number;
  readonly message?: string;
  /** The checkpoint the run went on from; absent for a run from the beginning. */
  readonly restoredFrom?: number;
  /** Where this run keeps its state and checkpoints. */
  readonly stateDir: string;
  readonly checkpointDir: string;
  /**
   * A run on Flink: the cluster, the job's id there once it is submitted, and the savepoint its
   * stop took, once it has stopped with one.
   */
  readonly flink?: { readonly cluster: string; readonly jobId?: string; readonly savepoint?: string };
}

/** What one step delivered and what it did: the Debugger panel shows exactly this. */
export interface StepView {
  /** 1-based number of the step in this run. */
  readonly seq: number;
  readonly operator: string;
  readonly subtask: number;
  /**
   * `watermark`: a watermark reached the subtask over `edge`; `idle`: the producer of `edge`
   * went idle (it stops holding the watermark back); `timer`: one timer fired (a firing of
   * several is a step per timer, each with the state it touched and what it emitted).
   */
  readonly kind: 'record' | 'produce' | 'barrier' | 'end' | 'watermark' | 'idle' | 'timer';
  /** The record delivered (or produced, at a source). */
  readonly record?: unknown;
  /** The key of the record delivered, or of the timer that fired. */
  readonly key?: unknown;
  /** A watermark step: the event time (epoch ms) the watermark on `edge` says. */
  readonly watermark?: number;
  /**
   * Watermark and idle steps: the subtask's own watermark after the step (the least of its
   * inputs'), in epoch ms; absent while it has none.
   */
  readonly operatorWatermark?: number;
  /** A timer step: the timer that fired (its key is `key`). */
  readonly timer?: { readonly domain: 'eventTime' | 'processingTime'; readonly timestamp: number };
  /** The edge and upstream subtask it came through; absent at a source. */
  readonly edge?: { readonly id: string; readonly fromSubtask: number; readonly feedback: boolean };
  readonly checkpointId?: number;
  readonly emitted: readonly {
    readonly port: string;
    readonly record: unknown;
    readonly edges: readonly string[];
  }[];
  readonly state: readonly StateAccess[];
  /**
   * The transactions this step ran (a transaction operator's leader subtask: usually one; a step
   * that brought the rows several waiting transactions needed runs each of them, in order).
   */
  readonly transactions?: readonly TransactionView[];
  /**
   * Watermarks that reached a subtask just before this step and fired nothing there (no timer,
   * no window, no transaction): shown with the step that follows them, not as steps of their
   * own, in the order they came. A watermark that does fire something is a step (kind
   * `watermark`) followed by the steps of what it fired.
   */
  readonly watermarks?: readonly WatermarkPassView[];
  /** The breakpoint that stopped here, when one did. */
  readonly breakpoint?: string;
}

/** A watermark that reached a subtask and fired nothing there (StepView.watermarks). */
export interface WatermarkPassView {
  readonly operator: string;
  readonly subtask: number;
  /** The edge and upstream subtask it came through. */
  readonly edge: { readonly id: string; readonly fromSubtask: number; readonly feedback: boolean };
  /** The event time (epoch ms) it says. */
  readonly watermark: number;
  /** The subtask's own watermark after it (the least of its inputs'); absent while it has none. */
  readonly operatorWatermark?: number;
}

/** One row a transaction named in keys(), as the Debugger shows it. */
export interface TransactionRowView {
  readonly table: string;
  readonly key: string | number;
  /** The subtask of the transaction operator that owns the row. */
  readonly subtask: number;
  /** Absent when the row did not exist before (or does not after). */
  readonly before?: unknown;
  readonly after?: unknown;
  readonly read: boolean;
  readonly written: boolean;
}

/** One transaction, run by its leader subtask (the owner of the first row keys() named). */
export interface TransactionView {
  /** Its place in the serial order, as text that sorts like the order. */
  readonly order: string;
  readonly record: unknown;
  readonly rows: readonly TransactionRowView[];
  /** The reason given to tx.abort(): none of its writes applied. */
  readonly aborted?: string;
  /** How many records it emitted. */
  readonly emitted: number;
}

export interface StateAccess {
  readonly state: string;
  readonly type: 'value' | 'map' | 'list';
  readonly op: 'read' | 'write' | 'delete' | 'clear';
  readonly key: unknown;
  /** The element of a map (its key) or list, when the access is to one element. */
  readonly element?: unknown;
  readonly before?: unknown;
  readonly after?: unknown;
}

/** A subtask's counters as the run keeps them (JobRun.metrics()), and the key groups it owns. */
export interface SubtaskLive extends SubtaskMetrics {
  /** Inclusive key-group range this subtask owns. */
  readonly keyGroups: readonly [number, number];
}

export interface RunMetricsEvent {
  readonly runId: string;
  readonly elapsedMs: number;
  readonly operators: readonly {
    readonly id: string;
    readonly recordsIn: number;
    readonly recordsOut: number;
    readonly subtasks: readonly SubtaskLive[];
  }[];
  /**
   * Each edge with how much its producer is held back: the backPressuredTimeMsPerSecond of its
   * most held-back subtask (absent while the run has measured nothing: a debug run, its start).
   */
  readonly edges: readonly EdgeLive[];
}

export interface EdgeLive {
  readonly id: string;
  /** The operator it leaves. */
  readonly from: string;
  readonly backPressuredTimeMsPerSecond?: number;
}

/** A checkpoint of a run, as the Checkpoints panel lists it. */
export interface RunCheckpointEvent extends CheckpointFigures {
  readonly runId: string;
}

/** A record as a source read or made it: the source operator, subtask and position. */
export interface TraceInputView {
  readonly operator: string;
  readonly subtask: number;
  /** The source's own number for it: a file's byte offset, a Kafka offset, a generator's index. */
  readonly position: number;
  /**
   * Where it is, as a person finds it: `events.jsonl line 12`, `Kafka topic "t" partition 0
   * offset 42`, `table "t" change at LSN 0/16B3748`, `generator "g" record 7`.
   */
  readonly where?: string;
  readonly record: unknown;
}

/** State a hop read, and the step that had written it last before. */
export interface StateSourceView {
  readonly state: string;
  readonly key: unknown;
  /** The map element read, when the hop read one element. */
  readonly element?: unknown;
  readonly step: number;
  readonly operator: string;
  readonly subtask: number;
  /** The input record that step's record descends from, if it is still kept. */
  readonly input?: TraceInputView;
}

export interface TraceView {
  /** The input records (source operator, subtask and position) the output descends from. */
  readonly inputs: readonly TraceInputView[];
  /** The path: each hop's operator, subtask and the state keys it touched. */
  readonly path: readonly {
    readonly operator: string;
    readonly subtask: number;
    readonly step: number;
    readonly stateKeys: readonly unknown[];
    /**
     * What of the state the hop read had been written by an earlier step still kept for traces
     * (absent when none): the records whose effects the output also depends on.
     */
    readonly stateFrom?: readonly StateSourceView[];
  }[];
}

/**
 * Where a debug run's resume stops, besides pause and the end of the job: `breakpoint` (the
 * default) at the next breakpoint hit; `nextOperator` ("Run to next operator") also at the
 * first step where a record reaches, or a source makes one in, an operator other than the
 * current step's (the first record step at all before the first step).
 */
export type ResumeUntil = 'breakpoint' | 'nextOperator';

export interface RunMethods {
  'run.start': [RunStartParams, RunInfo];
  'run.pause': [{ runId: string }, RunInfo];
  /** `until` applies to debug runs; a run in mode "run" takes only its default. */
  'run.resume': [{ runId: string; until?: ResumeUntil }, RunInfo];
  'run.stop': [{ runId: string }, RunInfo];
  /** Debug mode: delivers exactly one record, barrier or end-of-input to one subtask. */
  'run.step': [{ runId: string }, StepView | undefined];
  /** Debug mode: back to the state before the last step; returns the step now current (undefined at the start). */
  'run.stepBack': [{ runId: string }, StepView | undefined];
  'run.setBreakpoints': [
    { runId: string; breakpoints: readonly Breakpoint[] },
    { problems: BreakpointProblem[] },
  ];
  'run.checkpoints': [{ path: string; text: string }, RunCheckpointEvent[]];
  'state.page': [
    {
      runId: string;
      operator: string;
      subtask: number;
      prefix?: string;
      after?: string;
      limit: number;
      /** Read from this completed checkpoint instead of the live state. */
      checkpointId?: number;
      /**
       * Also count the subtask's keys and bytes per state (StatePage.states). It reads every
       * key of the subtask (a value's too): for small state, or now and then.
       */
      sizes?: boolean;
    },
    StatePage,
  ];
  /**
   * Debug mode: where a record of step `step` came from: the one it emitted at index `emitted`,
   * or (`emitted` "received") the one it took, at any operator. At a sink, 0 is the record it
   * took too (what it wrote).
   */
  'run.trace': [{ runId: string; step: number; emitted: number | 'received' }, TraceView];
  /**
   * The completed checkpoints of the run's checkpoint folder that can be read now, newest first,
   * and how many the job keeps (older ones are deleted as new ones complete).
   */
  'state.checkpoints': [{ runId: string }, { ids: readonly number[]; retained: number }];
  /**
   * A key's state, wherever it lives: `key` is the key as the state browser writes it (a string
   * as it is, anything else as JSON; see KeyStateView), one entry per value it may stand for.
   */
  'state.key': [
    { runId: string; operator: string; key: string; checkpointId?: number },
    { found: readonly KeyStateView[] },
  ];
  /** A page of one key's map or list elements (the key as `ctx.key` shows it). */
  'state.elements': [
    {
      runId: string;
      operator: string;
      key: unknown;
      state: string;
      type: 'map' | 'list';
      after?: string;
      limit: number;
      checkpointId?: number;
    },
    StateElementsPage,
  ];
  /**
   * One key's state on two sides, each a checkpoint or the live state: each state's change, and
   * of a map or list up to `limit` changed elements a page (then `state`, `type` and `after`
   * ask for the next page of that state alone).
   */
  'state.compare': [
    {
      runId: string;
      operator: string;
      key: unknown;
      from: CompareSide;
      to: CompareSide;
      state?: string;
      type?: 'value' | 'map' | 'list';
      after?: string;
      limit: number;
    },
    KeyCompareView,
  ];
}

export interface RunEvents {
  'run.status': RunInfo;
  'run.step': { runId: string; step: StepView };
  'run.metrics': RunMetricsEvent;
  'run.checkpoint': RunCheckpointEvent;
  /**
   * Records a preview sink received, in batches. `total` is how many the sink has received in
   * the run; `records` are the last of them, so the first is number `total - records.length + 1`,
   * and `dropped` counts those of the batch's interval before them that were not sent (a batch
   * carries at most PREVIEW_BATCH). After a step back `total` is lower than before: whatever the
   * designer showed of this sink beyond it is no longer in the run (such an event may carry no
   * records at all).
   */
  'run.output': {
    runId: string;
    operator: string;
    records: readonly unknown[];
    dropped?: number;
    total: number;
  };
}

/** Every run method once; mapped over RunMethods, so one added there does not compile until it is here. */
export const RUN_METHOD_NAMES: { readonly [M in keyof RunMethods]: true } = {
  'run.start': true,
  'run.pause': true,
  'run.resume': true,
  'run.stop': true,
  'run.step': true,
  'run.stepBack': true,
  'run.setBreakpoints': true,
  'run.checkpoints': true,
  'state.page': true,
  'run.trace': true,
  'state.checkpoints': true,
  'state.key': true,
  'state.elements': true,
  'state.compare': true,
};
