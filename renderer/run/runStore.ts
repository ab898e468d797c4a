// The run slice: what the engine host says about the run started from the designer, as the
// toolbar, the canvas and the run panels show it. Its own store, not the designer's: nothing
// here is part of the document, so none of it is undone, and metrics arriving every second do
// not wake the document's subscribers. Breakpoints are the exception that outlives a run: they
// are kept per document (see documentChange.ts).
import { createStore } from 'zustand/vanilla';
import type {
  Breakpoint,
  BreakpointProblem,
  FlinkTarget,
  ResumeUntil,
  RunCheckpointEvent,
  RunInfo,
  RunMetricsEvent,
  RunMode,
  StepView,
} from '../../engine/protocol/protocol.js';
import { UNSAVED } from './documentChange';
import { watermarkedSubtasks } from './eventTime';
import { type LoadTint, tintsOf } from './loadTint';
import { MetricsSeries } from './metricsSeries';
import { isActive, type RunPhase } from './runControls';

/** Steps kept for the history list; the engine keeps its own for stepping back. */
export const HISTORY_LIMIT = 500;
/** Preview records kept for the Debugger panel; the count goes on. */
export const OUTPUT_LIMIT = 500;

export interface OutputRecord {
  readonly operator: string;
  /** 1-based number of the record among those its sink received in the run. */
  readonly index: number;
  readonly record: unknown;
}

export type RestartChoice = { readonly checkpointId: number; readonly mode: RunMode };

/** A key whose state the Debugger asked the State panel to show; `asked` tells two asks apart. */
export interface StateLookup {
  readonly operator: string;
  readonly key: unknown;
  readonly asked: number;
}

/** A question the run commands ask through a dialog of the run toolbar. */
export type RunPrompt =
  | {
      readonly kind: 'saveFirst';
      readonly title: string;
      /** What saving will do besides, e.g. copy a template's input files (document/templateData.ts). */
      readonly note?: string;
      readonly resolve: (save: boolean) => void;
    }
  | {
      readonly kind: 'flink';
      /** The address the dialog starts with: the last one given. */
      readonly cluster: string;
      /** The savepoint the last run on Flink stopped with, which this one may go on from. */
      readonly savepoint?: string;
      readonly resolve: (target: FlinkTarget | undefined) => void;
    }
  | {
      readonly kind: 'restart';
      /** Completed ones, newest first. */
      readonly checkpoints: readonly RunCheckpointEvent[];
      readonly resolve: (choice: RestartChoice | undefined) => void;
    };

export interface RunState {
  runId: string | undefined;
  status: RunPhase;
  mode: RunMode;
  /** The host's word on the run: why it failed, for one. */
  message: string | undefined;
  /**
   * The job was edited after the run ended: what the run said (why it failed) is about a job
   * that is no longer the one shown, so the status line and the Problems panel stop saying it.
   */
  outdated: boolean;
  /** The checkpoint the run went on from, if it did not start at the beginning. */
  restoredFrom: number | undefined;
  stateDir: string | undefined;
  checkpointDir: string | undefined;
  /** A run on Flink: the cluster, and the job's id there once submitted. */
  flink: RunInfo['flink'];
  previewSinks: boolean;
  /** The engine's current step. */
  step: StepView | undefined;
  /** Steps shown in this run, oldest first, up to the current one. */
  history: readonly StepView[];
  /** The step the Debugger panel and the canvas show: the current one, or one picked from the history. */
  shown: StepView | undefined;
  /** Where the last resume of a debug run was asked to stop: the status line says it while it runs. */
  runningTo: ResumeUntil;
  breakpointsByDocument: Readonly<Record<string, readonly Breakpoint[]>>;
  documentKey: string;
  breakpointProblems: readonly BreakpointProblem[];
  metrics: RunMetricsEvent | undefined;
  /** Subtasks ("operator/subtask") that have had a watermark in this run (see eventTime.ts). */
  watermarked: ReadonlySet<string>;
  /** Mutable (a ring buffer per operator); `seriesVersion` says when it changed. */
  series: MetricsSeries;
  seriesVersion: number;
  /** Operator id -> its busiest subtask's tint (see loadTint.ts), while the run is live. */
  operatorTint: ReadonlyMap<string, LoadTint>;
  /** Edge id -> how much its producer is held back (see loadTint.ts), while the run is live. */
  edgeTint: ReadonlyMap<string, LoadTint>;
  checkpoints: readonly RunCheckpointEvent[];
  output: readonly OutputRecord[];
  /** How many records each preview sink has received in the run, shown or not. */
  outputTotals: ReadonlyMap<string, number>;
  /** Every record preview sinks received, shown or not. */
  outputCount: number;
  prompt: RunPrompt | undefined;
  /** The last request that failed, said in the status line until the next one succeeds. */
  notice: string | undefined;
  stateLookup: StateLookup | undefined;
}

export interface RunActions {
  /** A new run is being started: what the last one showed is cleared. */
  begin(mode: RunMode): void;
  applyInfo(info: RunInfo): void;
  applyStep(step: StepView): void;
  /** After a step back: the engine's step now current (undefined: back at the start), as shown when it was taken. */
  steppedBack(step: StepView | undefined): void;
  applyMetrics(event: RunMetricsEvent): void;
  applyCheckpoint(event: RunCheckpointEvent): void;
  /** Records a preview sink received; `dropped` more came that the host did not send. */
  /** A batch of a preview sink's records: the last `records.length` of its first `total` (see 'run.output'). */
  applyOutput(operator: string, records: readonly unknown[], total: number): void;
  /** Shows a step of the history, or the current one again (undefined). */
  view(seq: number | undefined): void;
  setBreakpoints(list: readonly Breakpoint[]): void;
  setBreakpointProblems(problems: readonly BreakpointProblem[]): void;
  /** Another document is open: its breakpoints are shown, and the last run's view is cleared. */
  switchDocument(key: string): void;
  /** The document was saved under a new path: its breakpoints go with it. */
  renameDocument(key: string): void;
  setPreviewSinks(on: boolean): void;
  setPrompt(prompt: RunPrompt | undefined): void;
  setNotice(notice: string | undefined): void;
  setRunningTo(until: ResumeUntil): void;
  /** The job was edited: an ended run's word is outdated (a live run's is not yet said). */
  jobChanged(): void;
  /** Asks the State panel to show one key's state (the Debugger's "Show state of key"). */
  lookUpState(operator: string, key: unknown): void;
}

export type RunStoreState = RunState & RunActions;

const NO_BREAKPOINTS: readonly Breakpoint[] = [];

function cleared(): Omit<
  RunState,
  'breakpointsByDocument' | 'documentKey' | 'previewSinks' | 'prompt' | 'mode'
> {
  return {
    runId: undefined,
    status: 'idle',
    message: undefined,
    outdated: false,
    restoredFrom: undefined,
    stateDir: undefined,
    checkpointDir: undefined,
    flink: undefined,
    step: undefined,
    history: [],
    shown: undefined,
    runningTo: 'breakpoint',
    breakpointProblems: [],
    metrics: undefined,
    watermarked: new Set<string>(),
    series: new MetricsSeries(),
    seriesVersion: 0,
    operatorTint: new Map(),
    edgeTint: new Map(),
    checkpoints: [],
    output: [],
    outputTotals: new Map(),
    outputCount: 0,
    notice: undefined,
    stateLookup: undefined,
  };
}

export function createRunStore(documentKey = UNSAVED) {
  return createStore<RunStoreState>()((set, get) => ({
    ...cleared(),
    mode: 'run',
    previewSinks: false,
    breakpointsByDocument: {},
    documentKey,
    prompt: undefined,

    begin(mode) {
      set({ ...cleared(), mode, status: 'starting' });
    },
    applyInfo(info) {
      const live = isActive(info.status);
      set({
        runId: info.runId,
        status: info.status,
        mode: info.mode,
        message: info.message,
        restoredFrom: info.restoredFrom,
        stateDir: info.stateDir,
        checkpointDir: info.checkpointDir,
        flink: info.flink,
        // The tints are of the run going; an ended run holds nothing back.
        ...(live ? {} : { operatorTint: new Map(), edgeTint: new Map() }),
      });
    },
    applyStep(step) {
      // A step number already in the history means the engine went back and took another path.
      const kept = get().history.filter((s) => s.seq < step.seq);
      const history = [...kept.slice(Math.max(0, kept.length - HISTORY_LIMIT + 1)), step];
      set({ step, history, shown: step });
    },
    steppedBack(step) {
      if (step === undefined) {
        set({ step: undefined, history: [], shown: undefined });
        return;
      }
      // The view recorded when the step was taken is what was shown then: show exactly that again.
      const earlier = get().history.filter((s) => s.seq < step.seq);
      const recorded = get().history.find((s) => s.seq === step.seq) ?? step;
      set({ step: recorded, history: [...earlier, recorded], shown: recorded });
    },
    applyMetrics(event) {
      const { series, seriesVersion, status } = get();
      const added = series.add(event);
      const tints = isActive(status)
        ? tintsOf(event)
        : { operators: get().operatorTint, edges: get().edgeTint };
      set({
        metrics: event,
        operatorTint: tints.operators,
        edgeTint: tints.edges,
        watermarked: watermarkedSubtasks(get().watermarked, event),
        ...(added ? { seriesVersion: seriesVersion + 1 } : {}),
      });
    },
    applyCheckpoint(event) {
      const others = get().checkpoints.filter((c) => c.id !== event.id);
      set({ checkpoints: [...others, event].sort((a, b) => a.id - b.id) });
    },
    applyOutput(operator, records, total) {
      const first = total - records.length + 1;
      // What this sink showed from `first` on is replaced, or gone from the run (a step back).
      const kept = get().output.filter((o) => o.operator !== operator || o.index < first);
      const added = records.map((record, k) => ({ operator, index: first + k, record }));
      const all = [...kept, ...added];
      const outputTotals = new Map(get().outputTotals).set(operator, total);
      let outputCount = 0;
      for (const n of outputTotals.values()) outputCount += n;
      set({
        output: all.length > OUTPUT_LIMIT ? all.slice(all.length - OUTPUT_LIMIT) : all,
        outputTotals,
        outputCount,
      });
    },
    view(seq) {
      const { history, step } = get();
      set({ shown: seq === undefined ? step : (history.find((s) => s.seq === seq) ?? step) });
    },
    setBreakpoints(list) {
      const { breakpointsByDocument, documentKey } = get();
      set({ breakpointsByDocument: { ...breakpointsByDocument, [documentKey]: list } });
    },
    setBreakpointProblems(problems) {
      set({ breakpointProblems: problems });
    },
    switchDocument(key) {
      set({ ...cleared(), documentKey: key, prompt: undefined });
    },
    renameDocument(key) {
      const { breakpointsByDocument, documentKey } = get();
      if (key === documentKey) return;
      // The old file keeps its breakpoints (Save As leaves it on disk); the unsaved slot is emptied.
      const { [UNSAVED]: _unsaved, ...files } = breakpointsByDocument;
      const moving = breakpointsByDocument[documentKey];
      set({
        documentKey: key,
        breakpointsByDocument: moving === undefined ? files : { ...files, [key]: moving },
      });
    },
    setPreviewSinks(on) {
      set({ previewSinks: on });
    },
    setPrompt(prompt) {
      set({ prompt });
    },
    setNotice(notice) {
      set({ notice });
    },
    setRunningTo(until) {
      set({ runningTo: until });
    },
    jobChanged() {
      const { status, outdated } = get();
      if (!outdated && status !== 'idle' && !isActive(status)) set({ outdated: true });
    },
    lookUpState(operator, key) {
      set({ stateLookup: { operator, key, asked: (get().stateLookup?.asked ?? 0) + 1 } });
    },
  }));
}

export type RunStore = ReturnType<typeof createRunStore>;

/** The current document's breakpoints (the same array until they change). */
export function breakpointsOf(state: Pick<RunState, 'breakpointsByDocument' | 'documentKey'>) {
  return state.breakpointsByDocument[state.documentKey] ?? NO_BREAKPOINTS;
}

/** The step the canvas marks: the one shown, while the run is live (an ended run's last step is history). */
export function markedStep(state: Pick<RunState, 'shown' | 'status'>): StepView | undefined {
  return isActive(state.status) ? state.shown : undefined;
}
