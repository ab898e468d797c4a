// transaction: each record is one serializable multi-key transaction (Calvin, Thomson et al.
// 2012; Streaming Ledger). The order comes first: every subtask takes every record and merges
// its input channels into one serial order (transaction/txOrder.ts). Then each subtask runs, in
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
// and the records still waiting for their turn (the same on every subtask). So no read is in
// flight at a cut, and a restore at any parallelism starts from one serial point.
import { ROWS_PORT } from '../graph/plan.js';
import type { Envelope } from '../runtime/envelope.js';
import { BaseLogic, type OperatorSnapshot, type SubtaskEnvironment } from '../runtime/operatorLogic.js';
import { RecordFailure } from '../runtime/recordFailure.js';
import type { TransactionReport } from '../runtime/transactionReport.js';
import { compileUserCode } from '../sandbox/userCode.js';
import type { KindFactory } from './kindFactory.js';
import { type RowValue, type TxOutcome, txHandle } from './transaction/txContext.js';
import {
  type ChannelClockState,
  OrderedInput,
  type OrderKey,
  orderText,
  type QueuedRecord,
} from './transaction/txOrder.js';
import { type TxRows, txRows } from './transaction/txRows.js';

// biome-ignore lint/complexity/noBannedTypes: user code is any function
type UserFunction = Function;

/** The rows one participant read for a transaction, sent to the others. */
interface RowsMessage {
  readonly order: string;
  readonly rows: ReadonlyArray<readonly [id: string, exists: boolean, value: unknown]>;
}

/** The transaction this subtask has reached and runs once the other participants' rows came. */
interface Running {
  readonly record: QueuedRecord;
  readonly rows: TxRows;
  readonly order: string;
  readonly values: Map<string, RowValue>;
  missing: number;
}

interface SavedProgress {
  readonly queued: QueuedRecord[];
  readonly clocks: ChannelClockState[];
  readonly running: { record: QueuedRecord; values: [string, RowValue][]; missing: number } | undefined;
  readonly early: [string, RowsMessage[]][];
}

/** A queued record as JSON: [time, channel, position, value, timestamp, source, sourcePosition]. */
type SavedRecord = [number, number, number, unknown, number | null, unknown, number];

interface SavedState {
  readonly clocks: ReadonlyArray<Record<string, number | boolean | null>>;
  readonly queued: readonly SavedRecord[];
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    value !== null &&
    (typeof value === 'object' || typeof value === 'function') &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

// JSON has no infinities: a clock's "nothing yet" is written as null.
const finite = (n: number) => (Number.isFinite(n) ? n : null);
const orMinusInfinity = (n: unknown) => (typeof n === 'number' ? n : Number.NEGATIVE_INFINITY);

class TransactionLogic extends BaseLogic {
  private readonly input: OrderedInput;
  private readonly handle = txHandle();
  private readonly tables: ReadonlySet<string>;
  private running: Running | undefined;
  /** Rows other participants sent for transactions this subtask has not reached yet. */
  private early = new Map<string, RowsMessage[]>();

  constructor(
    env: SubtaskEnvironment,
    private readonly keys: UserFunction,
    private readonly transact: UserFunction,
    private readonly maxParallelism: number,
  ) {
    super(env);
    const params = env.operator.operator.params as { tables: string[] };
    this.tables = new Set(params.tables);
    this.input = new OrderedInput(env.regularInputs ?? 0);
  }

  override process(envelope: Envelope): void | Promise<void> {
    const channel = this.env.inputChannel ?? -1;
    if (channel < 0) this.rowsCame(envelope.value as RowsMessage);
    else this.input.add(channel, envelope);
    return this.drain();
  }

  channelProgress(channel: number, watermark: number): void | Promise<void> {
    this.input.clocks[channel]?.progress(watermark);
    return this.drain();
  }

  readyForSnapshot(): boolean {
    return this.running === undefined;
  }

  private rowsCame(message: RowsMessage): void {
    const running = this.running;
    if (running !== undefined && running.order === message.order) {
      this.absorb(running, message);
      return;
    }
    const list = this.early.get(message.order);
    if (list === undefined) this.early.set(message.order, [message]);
    else list.push(message);
  }

  private absorb(running: Running, message: RowsMessage): void {
    for (const [id, exists, value] of message.rows) {
      // A copy: on one thread the other participant holds the same object.
      running.values.set(id, { exists, value: exists ? structuredClone(value) : undefined });
    }
    running.missing--;
  }

  /** Runs transactions in order until one waits for rows or no record is runnable. */
  private drain(): void | Promise<void> {
    for (;;) {
      const running = this.running;
      if (running !== undefined) {
        if (running.missing > 0) return;
        this.running = undefined;
        const pending = this.run(running);
        if (pending !== undefined) return pending.then(() => this.drain());
        continue;
      }
      const next = this.input.peek();
      if (next === undefined) return;
      this.input.take(next);
      this.reach(next);
    }
  }

  /** This subtask's turn for `record`: if it owns a row, it reads its rows and sends them on. */
  private reach(record: QueuedRecord): void {
    const env = this.env;
    const envelope = record.envelope;
    let rows: TxRows;
    try {
      rows = txRows(this.keys(envelope.value), this.tables, env.parallelism, this.maxParallelism);
    } catch (error) {
      throw new RecordFailure(error, envelope);
    }
    const me = env.subtask;
    if (!rows.participants.includes(me)) return;
    const lineage = env.emitter.lineage;
    lineage.timestamp = envelope.timestamp;
    lineage.source = envelope.source;
    lineage.position = envelope.position;
    const order = orderText(record.key);
    const values = new Map<string, RowValue>();
    const state = env.state!;
    const mine: [string, boolean, unknown][] = [];
    for (const row of rows.rows) {
      if (row.owner !== me) continue;
      state.setKey(row.keyGroup, row.key);
      const value = state.api.value(row.table).get();
      values.set(row.id, { exists: value !== undefined, value });
      mine.push([row.id, value !== undefined, value]);
    }
    const running: Running = { record, rows, order, values, missing: rows.participants.length - 1 };
    if (running.missing > 0) {
      const message: RowsMessage = { order, rows: mine };
      for (const other of rows.participants) if (other !== me) env.emitter.sendTo(ROWS_PORT, other, message);
      for (const came of this.early.get(order) ?? []) this.absorb(running, came);
      this.early.delete(order);
    }
    this.running = running;
  }

  private run(running: Running): Promise<void> | undefined {
    const envelope = running.record.envelope;
    const outcome = this.handle.begin(running.rows, running.values, envelope.timestamp);
    let result: unknown;
    try {
      result = this.transact(envelope.value, this.handle.tx);
    } catch (error) {
      this.handle.end();
      throw new RecordFailure(error, envelope);
    }
    if (!isThenable(result)) {
      this.handle.end();
      this.apply(running, outcome);
      return undefined;
    }
    return Promise.resolve(result).then(
      () => {
        this.handle.end();
        this.apply(running, outcome);
      },
      (error) => {
        this.handle.end();
        throw new RecordFailure(error, envelope);
      },
    );
  }

  /** All or nothing: an aborted transaction writes no row and emits only to its `aborted` port. */
  private apply(running: Running, outcome: TxOutcome): void {
    const env = this.env;
    const me = env.subtask;
    const envelope = running.record.envelope;
    const lineage = env.emitter.lineage;
    lineage.timestamp = envelope.timestamp;
    lineage.source = envelope.source;
    lineage.position = envelope.position;
    if (outcome.aborted === undefined) {
      const state = env.state!;
      for (const [id, written] of outcome.writes) {
        const row = running.rows.byId.get(id)!;
        if (row.owner !== me) continue;
        state.setKey(row.keyGroup, row.key);
        const value = state.api.value(row.table);
        if (written.exists) value.set(written.value);
        else value.clear();
      }
    }
    if (running.rows.leader !== me) return;
    let emitted = 0;
    for (const { record, port, afterAbort } of outcome.emits) {
      // Aborted: only what it emitted to `aborted` once it had aborted (the reason) goes out.
      if (outcome.aborted !== undefined && !(afterAbort && port === 'aborted')) continue;
      env.emitter.emit(record, port);
      emitted++;
    }
    env.transactionTap?.(this.report(running, outcome, emitted));
  }

  private report(running: Running, outcome: TxOutcome, emitted: number): TransactionReport {
    const env = this.env;
    return {
      operator: env.operator.id,
      subtask: env.subtask,
      order: running.order,
      record: structuredClone(running.record.envelope.value),
      rows: running.rows.rows.map((row) => {
        const before = running.values.get(row.id);
        const written = outcome.aborted === undefined ? outcome.writes.get(row.id) : undefined;
        const after = written ?? before;
        return {
          table: row.table,
          key: row.key,
          subtask: row.owner,
          before: before?.exists ? structuredClone(before.value) : undefined,
          after: after?.exists ? structuredClone(after.value) : undefined,
          read: outcome.read.has(row.id),
          written: written !== undefined,
        };
      }),
      aborted: outcome.aborted,
      emitted,
    };
  }

  override snapshot(_checkpointId: number): OperatorSnapshot {
    const state: SavedState = {
      clocks: this.input.clocks.map((c) => {
        const s = c.state();
        return {
          next: s.next,
          time: finite(s.time),
          timed: s.timed,
          watermark: finite(s.watermark),
          ended: s.ended,
        };
      }),
      queued: this.input
        .queued()
        .map(
          ({ key, envelope }): SavedRecord => [
            key.time,
            key.channel,
            key.position,
            envelope.value,
            envelope.timestamp ?? null,
            envelope.source ?? null,
            envelope.position,
          ],
        ),
    };
    return { operatorState: state };
  }

  restoreOperatorState(states: readonly unknown[]): void {
    // Every old subtask held the same records and clocks: the first one's will do.
    const saved = states.find((s) => s !== undefined) as SavedState | undefined;
    if (saved === undefined) return;
    const records = saved.queued.map(
      ([time, channel, position, value, timestamp, source, sourcePosition]) => {
        const key: OrderKey = { time, channel, position };
        const envelope: Envelope = {
          type: 'record',
          value,
          key: undefined,
          keyGroup: -1,
          timestamp: timestamp ?? undefined,
          source: (source ?? undefined) as Envelope['source'],
          position: sourcePosition,
        };
        return { key, envelope };
      },
    );
    const clocks = saved.clocks.map(
      (c): ChannelClockState => ({
        next: c.next as number,
        time: orMinusInfinity(c.time),
        timed: c.timed === true,
        watermark: orMinusInfinity(c.watermark),
        ended: c.ended === true,
      }),
    );
    this.input.restore(records, clocks);
  }

  override endInput(): void {
    // Every channel has ended: nothing may be left waiting for its turn or for rows.
    if (this.running !== undefined || this.input.size > 0) {
      throw new Error(
        `internal: ${this.input.size + (this.running === undefined ? 0 : 1)} transaction(s) were left unrun when the input ended`,
      );
    }
  }

  progress(): SavedProgress {
    const running = this.running;
    return {
      queued: this.input.queued(),
      clocks: this.input.clocks.map((c) => c.state()),
      running:
        running === undefined
          ? undefined
          : { record: running.record, values: [...running.values], missing: running.missing },
      early: [...this.early].map(([order, list]) => [order, [...list]]),
    };
  }

  restoreProgress(progress: unknown): void {
    const saved = progress as SavedProgress;
    this.input.restore(saved.queued, saved.clocks);
    this.early = new Map(saved.early.map(([order, list]) => [order, [...list]]));
    const running = saved.running;
    if (running === undefined) {
      this.running = undefined;
      return;
    }
    const envelope = running.record.envelope;
    const rows = txRows(this.keys(envelope.value), this.tables, this.env.parallelism, this.maxParallelism);
    this.running = {
      record: running.record,
      rows,
      order: orderText(running.record.key),
      values: new Map(running.values),
      missing: running.missing,
    };
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
};

function maxParallelismOf(env: SubtaskEnvironment): number {
  if (env.maxParallelism === undefined)
    throw new Error("internal: a transaction needs the job's maxParallelism");
  return env.maxParallelism;
}
