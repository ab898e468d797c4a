// What one transaction did, as the debugger and the record trace see it. The transaction
// operator runs each transaction on every subtask that owns one of its rows (Calvin); the
// subtask that owns the first row named by keys() is its leader: it emits, and it is the one
// that reports. All of it is plain data.

/** One row a transaction named in keys(): its value before and after, and who owns it. */
export interface TransactionRow {
  readonly table: string;
  readonly key: string | number;
  /** The subtask of the transaction operator that owns the row's key group. */
  readonly subtask: number;
  /** Undefined when the row did not exist. */
  readonly before: unknown;
  /** Undefined when the row does not exist afterwards (deleted, or never written). */
  readonly after: unknown;
  readonly read: boolean;
  readonly written: boolean;
}

export interface TransactionReport {
  readonly operator: string;
  /** The leader's subtask index. */
  readonly subtask: number;
  /**
   * The transaction's place in the serial order, as text that sorts like the order: the
   * input channel, its position on that channel and, with event time, the order's time.
   */
  readonly order: string;
  readonly record: unknown;
  readonly rows: readonly TransactionRow[];
  /** The reason given to tx.abort(), when it aborted: none of its writes applied. */
  readonly aborted: string | undefined;
  /** Records it emitted (to port `aborted` when it aborted and emitted there). */
  readonly emitted: number;
}

/** Hears each transaction its leader ran (debug runs). */
export type TransactionTap = (report: TransactionReport) => void;
