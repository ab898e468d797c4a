// The run a debug session steps (debugSession.ts): the job opened on the deterministic executor
// with the debugger's hooks (the state journal, the step recorder), taken one unit of work at a
// time, each unit giving the steps it made, and put back to a saved point or opened again when
// the session goes back.
//
// Checkpoints are taken every `checkpointEverySteps` steps that move a record (by default one
// per checkpointIntervalMs such steps: a step stands for 1 ms), never by the clock, so a replay
// takes them at the same steps. Barrier and checkpoint steps do not count: a checkpoint whose
// barriers take more steps than that would otherwise make the next one due at once, and no
// record would move. The spacing also bounds how far back a step back can put the run in place:
// a sink's part files go with the checkpoints retention drops, and a saved point that needs one
// of them can only be reached by a replay from the start.
import type { CheckpointEvent } from '../checkpoint/checkpointCoordinator.js';
import type { CheckpointMetadata } from '../checkpoint/checkpointMetadata.js';
import type { JobRun } from '../deploy/jobRun.js';
import { openRun } from '../deploy/openRun.js';
import { JobError } from '../graph/jobError.js';
import type { Job } from '../graph/schema.js';
import type { CallMarker } from '../runtime/callMarker.js';
import type { ScheduledUnit } from '../runtime/deterministicExecutor.js';
import { PreviewRecords } from './previewRecords.js';
import { RecordTrace } from './recordTrace.js';
import { JournaledStore, StateJournal } from './stateJournal.js';
import { type Capture, type RecordedStep, StepRecorder } from './stepRecorder.js';
import { type Memento, type SessionMarks, TimeTravel } from './timeTravel.js';

/**
 * How much of a normal run's time one record step stands for, to space checkpoints by steps.
 * With each record followed through the job, a default job (1000 ms, 3 retained) keeps the
 * files of its last 2000 to 3000 steps, about as far back as saved points are kept densely
 * (see timeTravel.ts): a step back that far is done in place.
 */
const MS_PER_STEP = 1;

export interface SteppedRunOptions {
  readonly job: Job;
  /** Directory of the job file: relative paths in params resolve against it. */
  readonly jobDir: string;
  /** The job is not trusted: see RunOptions.confined. */
  readonly confined?: boolean;
  /** The debug run's own state directory (its `subtasks/` folder is emptied when it opens). */
  readonly stateDir: string;
  /** Where its checkpoints go; without it the run takes none. */
  readonly checkpointDir?: string;
  /** Sinks write nothing; what they receive is kept (previewOutput) and shown in the steps. */
  readonly previewSinks: boolean;
  /** A checkpoint every this many record steps; 0 for none. Default: checkpointIntervalMs / MS_PER_STEP. */
  readonly checkpointEverySteps?: number;
  /** Sees each checkpoint as it completes or fails (again when a step back made it be taken again). */
  readonly onCheckpoint?: (event: CheckpointEvent) => void;
  /**
   * Starts from this checkpoint instead of the beginning (in `checkpointDir`): step 1 is the first
   * after it, and stepping back goes no further back than it.
   */
  readonly restore?: CheckpointMetadata;
  /** Marks each call into an operator (JobRun's RunOptions.callMarker). */
  readonly callMarker?: CallMarker;
}

export class SteppedRun {
  private jobRun!: JobRun;
  private timeTravel!: TimeTravel;
  private readonly recorder: StepRecorder;
  /** Every step's record lineage, for traces. */
  readonly records = new RecordTrace();
  /** What the preview sinks received. */
  readonly preview = new PreviewRecords();
  private readonly checkpointEvery: number;
  private firstCheckpointId: number | undefined;
  /** The steps done so far. */
  executed = 0;
  /** The steps of the last unit done: going back within it moves nothing in the engine. */
  lastUnit: RecordedStep[] = [];
  private units = 0;
  /** Steps that moved records (see checkpointEvery), and their count at the last checkpoint asked for. */
  private work = 0;
  private lastCheckpointWork = 0;
  /** Every subtask has finished, and what run() does after that is done. */
  finished = false;
  /** The unit that failed (user code threw): the run cannot go on from there. */
  failure: Error | undefined;
  private restarts = 0;

  constructor(private readonly options: SteppedRunOptions) {
    this.recorder = new StepRecorder((seq) => this.records.get(seq));
    const interval = options.job.settings.checkpointIntervalMs;
    this.checkpointEvery =
      options.checkpointEverySteps ?? (interval > 0 ? Math.max(1, Math.round(interval / MS_PER_STEP)) : 0);
  }

  /** The job run, as the last open() opened it. */
  get run(): JobRun {
    return this.jobRun;
  }

  /** How many times the job was opened again to replay it from the start. */
  get replaysFromStart(): number {
    return this.restarts;
  }

  /** Opens the job, from its start (or the checkpoint it restores): no step done yet. */
  async open(): Promise<void> {
    const {
      job,
      jobDir,
      confined,
      stateDir,
      checkpointDir,
      previewSinks,
      onCheckpoint,
      restore,
      callMarker,
    } = this.options;
    const journal = new StateJournal();
    this.timeTravel = new TimeTravel(journal);
    const recorder = this.recorder;
    const firstCheckpointId = this.firstCheckpointId;
    this.jobRun = await openRun(job, {
      jobDir,
      ...(confined === undefined ? {} : { confined }),
      stateDir,
      ...(checkpointDir === undefined ? {} : { checkpointDir }),
      ...(previewSinks ? { previewSinks: this.preview.receive } : {}),
      ...(onCheckpoint === undefined ? {} : { onCheckpoint }),
      ...(restore === undefined ? {} : { restore }),
      ...(callMarker === undefined ? {} : { callMarker }),
      observer: recorder.observer((envelope) => this.timeTravel.delivering(envelope)),
      debug: {
        wrapStore: (store) => new JournaledStore(store, journal),
        wrapStateApi: (api, state) => recorder.stateApi(api, state),
        ...(firstCheckpointId === undefined ? {} : { firstCheckpointId }),
      },
    });
    this.firstCheckpointId = this.jobRun.firstCheckpointId;
    recorder.attach(this.jobRun);
    recorder.forgetHeld();
    this.executed = 0;
    this.units = 0;
    this.lastUnit = [];
    this.work = 0;
    this.lastCheckpointWork = 0;
    this.finished = false;
    this.failure = undefined;
    this.preview.truncate(new Map());
  }

  /** Closes the run and opens the job again, to replay it from the start. */
  async reopen(): Promise<void> {
    this.restarts++;
    await this.jobRun.close().catch(() => {});
    await this.open();
  }

  private marks(): SessionMarks {
    return { work: this.work, lastCheckpointWork: this.lastCheckpointWork, preview: this.preview.totals() };
  }

  /** One unit of the engine's work, and the steps it made. Undefined once the job has finished. */
  async executeUnit(capture: Capture): Promise<RecordedStep[] | undefined> {
    const run = this.jobRun;
    // A watermark that fired nothing waits for the next step: a replay from here would lose it.
    if (!this.recorder.holding) this.timeTravel.maybeSave(run, this.units, this.executed, () => this.marks());
    if (this.checkpointEvery > 0 && this.work - this.lastCheckpointWork >= this.checkpointEvery) {
      if (await run.requestCheckpoint()) this.lastCheckpointWork = this.work;
    }
    this.recorder.begin(capture, this.executed);
    let unit: ScheduledUnit | undefined;
    try {
      unit = await run.step();
    } catch (error) {
      this.failure =
        error instanceof JobError
          ? error
          : new JobError(`internal error: ${(error as Error).stack ?? error}`);
      throw this.failure;
    }
    this.units++;
    if (unit === undefined) {
      await run.completeSteps();
      this.finished = true;
      return undefined;
    }
    const steps = this.recorder.end(unit);
    this.lastUnit = steps;
    this.executed += steps.length;
    if (unit.kind === 'produce') this.work += steps.length;
    else if (unit.kind === 'item' && unit.item.type === 'record') this.work += 1;
    for (const step of steps) this.records.add(step.lineage);
    return steps;
  }

  /** The nearest saved point before step `target`, if one is kept. */
  savedBefore(target: number): Memento | undefined {
    return this.timeTravel.before(target);
  }

  /**
   * Puts the run back in place at `memento`, its steps done as they were then; false when that
   * failed (a sink's published part is gone, ...).
   */
  async restore(memento: Memento): Promise<boolean> {
    try {
      await this.timeTravel.restore(this.jobRun, memento, (original, copy) =>
        this.recorder.relink(original, copy),
      );
    } catch {
      return false;
    }
    this.recorder.forgetHeld();
    this.executed = memento.seq;
    this.units = memento.unit;
    this.work = memento.session.work;
    this.lastCheckpointWork = memento.session.lastCheckpointWork;
    this.preview.truncate(memento.session.preview);
    this.lastUnit = [];
    this.finished = false;
    this.failure = undefined;
    return true;
  }
}
