// Going back in a debug run: every so many units of work the whole run is saved in memory (a
// memento: RunProgress, which is channels, subtasks, emitters, sources, executor and coordinator
// as data, plus a mark in the state journal), and a step back restores the nearest memento
// before the step and replays from there (debugSession.ts). Saving costs a copy of the channels'
// item lists, not of the state: the journal rolls state back.
//
// A record queued in a channel when a memento is saved may later be handed to user code, which
// may change it in place. Its value is therefore copied the first time it is delivered after
// being saved (copy on write), and a restore queues that copy in its place.

import type { JobRun, RunProgress } from '../deploy/jobRun.js';
import type { ChannelItem } from '../runtime/envelope.js';
import { type Envelope, envelope } from '../runtime/envelope.js';
import type { StateJournal } from './stateJournal.js';

/** A memento is saved every this many units of work (a source's slice, or one item elsewhere). */
const MEMENTO_EVERY_UNITS = 32;
/**
 * At most this many mementos are kept: each holds the records then in flight. Past it, every
 * other one of the older half goes, so they are dense near the present and sparser further back
 * (a step back far back replays more).
 */
const MEMENTOS_KEPT = 128;
/** The state journal behind them may hold this much; the oldest mementos go first. */
const JOURNAL_BUDGET_BYTES = 128 * 1024 * 1024;

/** What the session itself must put back with the run. */
export interface SessionMarks {
  /** Record steps done, and how many had been when the last checkpoint was asked for. */
  readonly work: number;
  readonly lastCheckpointWork: number;
  readonly preview: ReadonlyMap<string, number>;
}

export interface Memento {
  /** Steps done when it was saved (always at a unit's boundary, with no step left unshown). */
  readonly seq: number;
  readonly unit: number;
  readonly journalMark: number;
  readonly run: RunProgress;
  readonly session: SessionMarks;
}

export class TimeTravel {
  private mementos: Memento[] = [];
  private lastSavedUnit = Number.NEGATIVE_INFINITY;
  /** Records some memento holds in a channel, and the first copy taken of each on delivery. */
  private readonly held = new WeakSet<Envelope>();
  private readonly originals = new WeakMap<Envelope, unknown>();

  constructor(private readonly journal: StateJournal) {}

  /** Before a record is handed to user code: one a memento holds keeps its value as it is now. */
  delivering(envelope: Envelope): void {
    if (this.held.has(envelope) && !this.originals.has(envelope)) {
      this.originals.set(envelope, structuredClone(envelope.value));
    }
  }

  /**
   * At a unit boundary: saves a memento when one is due and the run can be saved (not while a
   * checkpoint is being taken; never when an operator cannot be put back in place).
   */
  maybeSave(run: JobRun, unit: number, seq: number, session: () => SessionMarks): void {
    if (unit - this.lastSavedUnit >= MEMENTO_EVERY_UNITS) {
      const progress = run.progress();
      if (progress !== undefined) {
        for (const channel of progress.channels) {
          for (const item of channel.items) if (item.type === 'record') this.held.add(item);
        }
        this.mementos.push({ seq, unit, journalMark: this.journal.mark, run: progress, session: session() });
        this.lastSavedUnit = unit;
      }
    }
    this.trim();
  }

  /** Keeps memory bounded: old mementos go, and the journal forgets what no memento needs. */
  private trim(): void {
    if (this.mementos.length > MEMENTOS_KEPT) {
      const older = this.mementos.length - MEMENTOS_KEPT / 2;
      this.mementos = [
        ...this.mementos.slice(0, older).filter((_, i) => i % 2 === 1),
        ...this.mementos.slice(older),
      ];
    }
    const mementos = this.mementos;
    let drop = 0;
    while (
      drop < mementos.length - 1 &&
      this.journal.bytesSince(mementos[drop]!.journalMark) > JOURNAL_BUDGET_BYTES
    ) {
      drop++;
    }
    if (drop > 0) this.mementos = mementos.slice(drop);
    this.journal.forget(this.mementos[0]?.journalMark ?? this.journal.mark);
  }

  /** The latest memento before step `seq` (strictly: that step is then done again). */
  before(seq: number): Memento | undefined {
    for (let i = this.mementos.length - 1; i >= 0; i--) {
      const memento = this.mementos[i]!;
      if (memento.seq < seq || (seq === 0 && memento.seq === 0)) return memento;
    }
    return undefined;
  }

  /**
   * Puts the run back as the memento saved it: the checkpoint in flight given up, the state
   * rolled back, then everything else. Later mementos are forgotten (that future is undone).
   * `relink` hears of each record copy queued in place of the original.
   */
  async restore(
    run: JobRun,
    memento: Memento,
    relink: (original: Envelope, copy: Envelope) => void,
  ): Promise<void> {
    await run.abandonCheckpoint();
    this.journal.rollBack(memento.journalMark);
    const fresh = (item: ChannelItem): ChannelItem => {
      if (item.type !== 'record' || !this.originals.has(item)) return item;
      const copy = envelope(
        structuredClone(this.originals.get(item)),
        item.key,
        item.keyGroup,
        item.timestamp,
        item.source,
        item.position,
      );
      relink(item, copy);
      return copy;
    };
    await run.restoreProgress(memento.run, fresh);
    this.mementos = this.mementos.filter((m) => m.unit <= memento.unit);
    this.lastSavedUnit = memento.unit;
  }

  /** A new run replaces the old (a replay from the start): nothing saved applies to it. */
  clear(): void {
    this.mementos = [];
    this.lastSavedUnit = Number.NEGATIVE_INFINITY;
  }
}
