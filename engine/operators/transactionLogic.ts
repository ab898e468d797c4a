// transaction: each record is one serializable multi-key transaction (Calvin, Thomson et al.
// 2012; Streaming Ledger). The order comes first: each producer sends a record to the subtasks
// that own one of its rows and tells the others how many it skipped (transaction/txRouter.ts,
// runtime/edgeRouter.ts; debug runs broadcast instead), and every subtask merges its input
// channels into the one serial order (transaction/txOrder.ts). Then each subtask runs, in
// that order, the transactions that touch a row it owns: it reads its rows, sends them to the
// other subtasks the transaction touches over the operator's own feedback edge, and once it has
// theirs runs transact(record, tx) itself and writes its own rows. Every participant computes
// the same result from the same reads, so nothing locks, nothing aborts to retry, and
// transactions on disjoint rows run at the same time on their subtasks. The leader (the owner
// of the first row) emits and reports.
//
// An aborted transaction writes nothing, and of its emits only those to port `aborted` made
// after tx.abort() go out.
//
// Checkpoints: when the barriers are aligned a subtask first runs every transaction the
// records before them made runnable (the same set on every subtask), then snapshots its rows
// and the records still waiting for their turn (those of its rows; the union over the subtasks
// is every record past one serial point). So no read is in flight at a cut, and a restore at
// any parallelism starts from that point: each subtask takes the union's records of its rows.
import { ROWS_PORT } from '../graph/plan.js';
import type { Channel } from '../runtime/channel.js';
import type { Envelope, SkipCount } from '../runtime/envelope.js';
import { BaseLogic, type OperatorSnapshot, type SubtaskEnvironment } from '../runtime/operatorLogic.js';
import { RecordFailure } from '../runtime/recordFailure.js';
import { compileUserCode } from '../sandbox/userCode.js';
import type { MaybePromise } from '../state/maybePromise.js';
import type { KindFactory } from './kindFactory.js';
import { HeldTimes } from './transaction/heldTimes.js';
import {
  type Pending,
  type RowsMessage,
  restoredPending,
  type SavedProgress,
  savedPending,
} from './transaction/pending.js';
import { queueSnapshot, restoredQueue } from './transaction/queueSnapshot.js';
import { RowLocks } from './transaction/rowLocks.js';
import { copied, type TxOutcome, txHandle } from './transaction/txContext.js';
import { OrderedInput, type QueuedRecord, recordId } from './transaction/txOrder.js';
import { transactionReport } from './transaction/txReport.js';
import { txRouter } from './transaction/txRouter.js';
import { rowId, type TxRows, txRows } from './transaction/txRows.js';
import { readOwnRows, runTransaction, writeOwnRows } from './transaction/txRun.js';
import { TxWindow } from './transaction/txWindow.js';

// biome-ignore lint/complexity/noBannedTypes: user code is any function
type UserFunction = Function;

/**
 * Transactions a subtask holds at once between its turn and its emit. Bounded so that one
 * waiting on a slow participant does not keep the whole input in memory; any bound is safe,
 * since the oldest unfinished transaction is always in every participant's window.
 */
const WINDOW = 1024;

class TransactionLogic extends BaseLogic {
  /**
   * Its regular input channels, numbered in the order the subtask reads them (input edges in
   * plan order, then upstream subtasks): the same numbers on every subtask, as the serial order
   * breaks ties by them. The feedback edge brings the rows of other participants.
   */
  private readonly channels: ReadonlyMap<Channel, number>;
  private readonly input: OrderedInput;
  private readonly handle = txHandle();
  private readonly tables: ReadonlySet<string>;
  /** Transactions between their turn and their emit, in the serial order. */
  private readonly window = new TxWindow();
  /** Those not run yet, by order, for the rows other participants send. */
  private readonly waiting = new Map<number, Pending>();
  private readonly locks = new RowLocks<Pending>();
  /** Event times of the records taken and not yet emitted or passed over. */
  private readonly held = new HeldTimes();
  /** Transactions that have every row they need, to run in turn. */
  private runnable: Pending[] = [];
  /** Rows other participants sent for transactions this subtask has not reached yet. */
  private early = new Map<number, RowsMessage[]>();
  /**
   * transact called as a plain function, never as a method of this logic: user code would see the
   * logic (and env: resolved params, checkpoint files) as its `this`.
   */
  private readonly callTransact = (record: unknown, tx: unknown): unknown => {
    const transact = this.transact;
    return transact(record, tx);
  };
  private readonly afterRun = (pending: Pending, outcome: TxOutcome): void => this.ran(pending, outcome);

  constructor(
    env: SubtaskEnvironment,
    private readonly keys: UserFunction,
    private readonly transact: UserFunction,
    private readonly maxParallelism: number,
  ) {
    super(env);
    const params = env.operator.operator.params as { tables: string[] };
    this.tables = new Set(params.tables);
    const regular = (env.inputs ?? []).filter((c) => !c.edge.feedback);
    this.channels = new Map(regular.map((c, i) => [c, i]));
    this.input = new OrderedInput(regular.length);
  }

  override process(envelope: Envelope): void | Promise<void> {
    const from = this.env.inputChannel;
    const channel = from === undefined ? undefined : this.channels.get(from);
    if (channel === undefined) this.rowsCame(envelope.value as RowsMessage);
    else {
      // A routed edge: the records skipped just before this one, told with it.
      if (envelope.key !== undefined) this.input.skip(channel, envelope.key as SkipCount);
      this.input.add(channel, envelope);
      if (envelope.timestamp !== undefined) this.held.add(envelope.timestamp);
    }
    return this.drain();
  }

  /** The least event time of a record it still holds: the watermark it passes on waits for it. */
  heldTime(): number {
    return this.held.least();
  }

  private letGo(record: QueuedRecord): void {
    const timestamp = record.envelope.timestamp;
    if (timestamp !== undefined) this.held.remove(timestamp);
  }

  /** Puts back the times of what it holds (after a restore or time travel). */
  private holdAgain(): void {
    this.held.clear();
    for (const record of this.input.queued())
      if (record.envelope.timestamp !== undefined) this.held.add(record.envelope.timestamp);
    for (const pending of this.window.all()) {
      const timestamp = pending.record.envelope.timestamp;
      if (timestamp !== undefined) this.held.add(timestamp);
    }
  }

  channelProgress(channel: Channel, watermark: number): void | Promise<void> {
    const index = this.channels.get(channel);
    if (index !== undefined) this.input.clocks[index]?.progress(watermark);
    return this.drain();
  }

  channelSkipped(channel: Channel, skipped: SkipCount): void | Promise<void> {
    const index = this.channels.get(channel);
    if (index !== undefined) this.input.skip(index, skipped);
    return this.drain();
  }

  /** At a cut nothing is under way: every transaction the records before it made runnable has run. */
  readyForSnapshot(): boolean {
    return this.window.size === 0 && this.input.peek() === undefined;
  }

  private rowsCame(message: RowsMessage): void {
    const pending = this.waiting.get(message.order);
    if (pending === undefined) {
      const list = this.early.get(message.order);
      if (list === undefined) this.early.set(message.order, [message]);
      else list.push(message);
      return;
    }
    this.absorb(pending, message);
    if (pending.read && pending.missing === 0) this.runnable.push(pending);
  }

  private absorb(pending: Pending, message: RowsMessage): void {
    // Copies: on one thread the other participant holds the same objects.
    for (const [index, exists, value] of message.rows)
      pending.values[index] = { exists, value: copied(value) };
    pending.missing--;
  }

  /** Runs what can run, emits in order, and takes the next records whose turn has come. */
  private drain(): void | Promise<void> {
    for (;;) {
      const next = this.runnable.shift();
      if (next !== undefined) {
        const pending = this.run(next);
        if (pending !== undefined) return pending.then(() => this.drain());
        continue;
      }
      this.flush();
      if (this.window.size >= WINDOW) return;
      const record = this.input.peek();
      if (record === undefined) return;
      this.input.take(record);
      this.admit(record);
    }
  }

  /** keys(record), called as a plain function for the reason callTransact is. */
  private keysOf(record: unknown): unknown {
    const keys = this.keys;
    return keys(record);
  }

  /** The turn of `record`: a transaction this subtask takes part in reads its rows when it may. */
  private admit(record: QueuedRecord): void {
    const env = this.env;
    const envelope = record.envelope;
    let rows: TxRows;
    try {
      rows = txRows(this.keysOf(envelope.value), this.tables, env.parallelism, this.maxParallelism);
    } catch (error) {
      throw new RecordFailure(error, envelope);
    }
    const me = env.subtask;
    if (!rows.participants.includes(me)) {
      this.letGo(record);
      return;
    }
    const pending: Pending = {
      record,
      rows,
      order: recordId(record),
      values: new Array(rows.rows.length),
      lockIds: undefined,
      missing: rows.participants.length - 1,
      blocked: 0,
      read: false,
      outcome: undefined,
    };
    this.window.push(pending);
    // Alone on its rows (no other participant, no earlier transaction holding one): it runs
    // now, and nothing can come between, so it needs no lock.
    if (pending.missing === 0 && (this.locks.size === 0 || !this.holdsAny(rows, me))) {
      this.readOwn(pending);
      return;
    }
    const lockIds: string[] = [];
    for (const row of rows.rows) if (row.owner === me) lockIds.push(rowId(row.table, row.key));
    pending.lockIds = lockIds;
    this.waiting.set(pending.order, pending);
    const early = this.early.get(pending.order);
    if (early !== undefined) {
      for (const came of early) this.absorb(pending, came);
      this.early.delete(pending.order);
    }
    for (const id of lockIds) if (!this.locks.request(id, pending)) pending.blocked++;
    if (pending.blocked === 0) this.readOwn(pending);
  }

  /** Some earlier transaction holds or waits for one of this subtask's rows of `rows`. */
  private holdsAny(rows: TxRows, me: number): boolean {
    for (const row of rows.rows)
      if (row.owner === me && this.locks.isHeld(rowId(row.table, row.key))) return true;
    return false;
  }

  /** Its own rows are its: read them and send them to the other participants. */
  private readOwn(pending: Pending): void {
    const env = this.env;
    const me = env.subtask;
    const shared = pending.rows.participants.length > 1;
    const mine = readOwnRows(env.state!, pending, me, shared);
    pending.read = true;
    if (mine !== undefined) {
      this.setLineage(pending);
      const message: RowsMessage = { order: pending.order, rows: mine };
      for (const other of pending.rows.participants)
        if (other !== me) env.emitter.sendTo(ROWS_PORT, other, message);
    }
    if (pending.missing === 0) this.runnable.push(pending);
  }

  private setLineage(pending: Pending): void {
    const envelope = pending.record.envelope;
    const lineage = this.env.emitter.lineage;
    lineage.timestamp = envelope.timestamp;
    lineage.source = envelope.source;
    lineage.position = envelope.position;
  }

  private run(pending: Pending): MaybePromise {
    return runTransaction(this.handle, pending, this.callTransact, this.afterRun);
  }

  /** All or nothing: an aborted transaction writes no row. Its locks go to the next in line. */
  private ran(pending: Pending, outcome: TxOutcome): void {
    const env = this.env;
    pending.outcome = outcome;
    writeOwnRows(env.state!, pending, outcome, env.subtask);
    const lockIds = pending.lockIds;
    if (lockIds === undefined) return;
    this.waiting.delete(pending.order);
    for (const id of lockIds) {
      const next = this.locks.release(id, pending);
      if (next !== undefined && --next.blocked === 0) this.readOwn(next);
    }
  }

  /** Emits, in the serial order, what the transactions this subtask leads have run. */
  private flush(): void {
    const window = this.window;
    for (let pending = window.first(); pending?.outcome !== undefined; pending = window.first()) {
      window.shift();
      this.emitOutcome(pending);
      this.letGo(pending.record);
    }
  }

  private emitOutcome(pending: Pending): void {
    const env = this.env;
    const outcome = pending.outcome!;
    if (pending.rows.leader !== env.subtask) return;
    this.setLineage(pending);
    let emitted = 0;
    for (const { record, port, afterAbort } of outcome.emits) {
      // Aborted: only what it emitted to `aborted` once it had aborted (the reason) goes out.
      if (outcome.aborted !== undefined && !(afterAbort && port === 'aborted')) continue;
      env.emitter.emit(record, port);
      emitted++;
    }
    env.transactionTap?.(transactionReport(env, pending, outcome, emitted));
  }

  override snapshot(_checkpointId: number): OperatorSnapshot {
    return {
      operatorState: queueSnapshot(
        this.input.clocks.map((c) => c.state()),
        this.input.queued(),
      ),
    };
  }

  restoreOperatorState(states: readonly unknown[]): void {
    const restored = restoredQueue(states, this.input.clocks.length);
    if (restored === undefined) return;
    // The old subtasks' records of this one's rows (as the parallelism is now): another's wait
    // there. One keys() fails on stays, to fail at its turn as it would have.
    const me = this.env.subtask;
    const mine = restored.records.filter((record) => {
      try {
        const rows = txRows(
          this.keysOf(record.envelope.value),
          this.tables,
          this.env.parallelism,
          this.maxParallelism,
        );
        return rows.participants.includes(me);
      } catch {
        return true;
      }
    });
    this.input.restore(mine, restored.clocks);
    this.holdAgain();
  }

  override endInput(): void {
    // Every channel has ended: nothing may be left waiting for its turn or for rows.
    const left = this.window.size + this.input.size;
    if (left > 0) throw new Error(`internal: ${left} transaction(s) were left unrun when the input ended`);
  }

  progress(): SavedProgress {
    return {
      queued: this.input.queued(),
      clocks: this.input.clocks.map((c) => c.state()),
      window: this.window.all().map(savedPending),
      early: [...this.early].map(([order, list]) => [order, [...list]]),
    };
  }

  restoreProgress(progress: unknown): void {
    const saved = progress as SavedProgress;
    this.input.restore(saved.queued, saved.clocks);
    this.early = new Map(saved.early.map(([order, list]) => [order, [...list]]));
    this.window.clear();
    this.waiting.clear();
    this.locks.clear();
    this.runnable = [];
    const me = this.env.subtask;
    for (const p of saved.window) {
      const envelope = p.record.envelope;
      const rows = txRows(
        this.keysOf(envelope.value),
        this.tables,
        this.env.parallelism,
        this.maxParallelism,
      );
      const pending = restoredPending(p, rows);
      this.window.push(pending);
      if (pending.outcome !== undefined) continue;
      this.waiting.set(pending.order, pending);
      const lockIds: string[] = [];
      for (const row of rows.rows) if (row.owner === me) lockIds.push(rowId(row.table, row.key));
      pending.lockIds = lockIds;
      for (const id of lockIds) if (!this.locks.request(id, pending)) pending.blocked++;
      if (pending.read && pending.missing === 0) this.runnable.push(pending);
    }
    this.holdAgain();
  }
}

export const transactionFactory: KindFactory = {
  role: 'transform',
  createLogic: ({ planned }) => {
    const operator = planned.operator;
    const code = (operator.params as { code: string }).code;
    // Compiled now, once per subtask: an error in the code stops the job before anything opens.
    const compiled = Array.from({ length: planned.parallelism }, () =>
      compileUserCode({
        code,
        operatorId: operator.id,
        functionNames: ['keys', 'transact'],
        required: ['keys', 'transact'],
      }),
    );
    return (env) => {
      const fns = compiled[env.subtask]!;
      return new TransactionLogic(env, fns.keys, fns.transact, maxParallelismOf(env));
    };
  },
  createRouter: ({ planned }) => {
    const operator = planned.operator;
    const params = operator.params as { code: string; tables: string[] };
    const tables = new Set(params.tables);
    // Compiled per producer subtask and edge, each in a Compartment of its own, when its
    // emitter is made: keys() runs there too now (it reads only the record).
    return (maxParallelism) => {
      const { keys } = compileUserCode({
        code: params.code,
        operatorId: operator.id,
        functionNames: ['keys', 'transact'],
        required: ['keys', 'transact'],
      });
      return txRouter(keys!, tables, planned.parallelism, maxParallelism);
    };
  },
};

function maxParallelismOf(env: SubtaskEnvironment): number {
  if (env.maxParallelism === undefined)
    throw new Error("internal: a transaction needs the job's maxParallelism");
  return env.maxParallelism;
}
