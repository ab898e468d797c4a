// Bank-transfer jobs for the transaction operator's tests (issue 15), and the plain serial
// program that says what they must produce: the transactions run one at a time, in the order the
// operator documents, over a Map. A transaction job is right when its output equals this
// program's over the same input, whatever the parallelism, the executor or the partitioning.
import { writeFileSync } from 'node:fs';
import type { Job } from '../engine/graph/schema.js';
import { seededRandom } from './checkpointHelpers.js';
import { type EdgeInput, makeJob, type OperatorInput, sink } from './jobBuilders.js';

/** Money into an account from outside (an opening deposit). */
export interface Deposit {
  readonly id: number;
  readonly to: string;
  readonly amount: number;
}

/** Money from one account to another; aborts when `from` has less than `amount`. */
export interface Transfer {
  readonly id: number;
  readonly from: string;
  readonly to: string;
  readonly amount: number;
}

/** A read-only transaction: emits the account's balance (null for an account never written). */
export interface Audit {
  readonly id: number;
  readonly audit: string;
}

export type LedgerRecord = Deposit | Transfer | Audit;

/**
 * The transaction operator's code: table `accounts`, a row per account holding its balance (a
 * number). A transfer that would overdraw aborts and emits the reason to port `aborted`.
 */
export const LEDGER_CODE = `function keys(r) {
  if (r.audit !== undefined) return [['accounts', r.audit]];
  if (r.from === undefined) return [['accounts', r.to]];
  return [['accounts', r.from], ['accounts', r.to]];
}

function transact(r, tx) {
  if (r.audit !== undefined) {
    const balance = tx.get('accounts', r.audit);
    tx.emit({ id: r.id, account: r.audit, balance: balance === undefined ? null : balance });
    return;
  }
  const toBefore = tx.get('accounts', r.to) ?? 0;
  if (r.from === undefined) {
    tx.set('accounts', r.to, toBefore + r.amount);
    tx.emit({ id: r.id, to: r.to, amount: r.amount, balance: toBefore + r.amount });
    return;
  }
  const fromBefore = tx.get('accounts', r.from) ?? 0;
  // Written and emitted before the check: an abort must leave none of it applied.
  tx.set('accounts', r.to, toBefore + r.amount);
  tx.set('accounts', r.from, fromBefore - r.amount);
  if (fromBefore < r.amount) {
    const reason = r.from + ' has ' + fromBefore + ', cannot send ' + r.amount;
    tx.emit({ id: r.id, never: 'emitted before an abort' });
    tx.emit({ id: r.id, never: 'emitted to aborted before the abort' }, 'aborted');
    tx.abort(reason);
    tx.emit({ id: r.id, from: r.from, to: r.to, amount: r.amount, reason }, 'aborted');
    return;
  }
  tx.emit({
    id: r.id,
    from: r.from,
    to: r.to,
    amount: r.amount,
    fromBalance: fromBefore - r.amount,
    toBalance: toBefore + r.amount,
  });
}`;

export interface LedgerResult {
  /** What the operator emits to port `out`, in serial order. */
  readonly out: Record<string, unknown>[];
  /** What it emits to port `aborted`, in serial order. */
  readonly aborted: Record<string, unknown>[];
  /** Every account's balance at the end. */
  readonly balances: Map<string, number>;
}

/** The serial program: LEDGER_CODE's transactions one at a time, in the order given. */
export function serialLedger(records: readonly LedgerRecord[]): LedgerResult {
  const balances = new Map<string, number>();
  const out: Record<string, unknown>[] = [];
  const aborted: Record<string, unknown>[] = [];
  for (const r of records) {
    if ('audit' in r) {
      out.push({ id: r.id, account: r.audit, balance: balances.get(r.audit) ?? null });
    } else if (!('from' in r)) {
      const balance = (balances.get(r.to) ?? 0) + r.amount;
      balances.set(r.to, balance);
      out.push({ id: r.id, to: r.to, amount: r.amount, balance });
    } else {
      const { id, from, to, amount } = r;
      const fromBefore = balances.get(from) ?? 0;
      if (fromBefore < amount) {
        aborted.push({ id, from, to, amount, reason: `${from} has ${fromBefore}, cannot send ${amount}` });
        continue;
      }
      balances.set(from, fromBefore - amount);
      balances.set(to, (balances.get(to) ?? 0) + amount);
      out.push({ id, from, to, amount, fromBalance: fromBefore - amount, toBalance: balances.get(to) });
    }
  }
  return { out, aborted, balances };
}

/** The sum of what the deposits brought in: the sum of the balances, whatever moved between them. */
export function depositedTotal(records: readonly LedgerRecord[]): number {
  return records.reduce((sum, r) => sum + ('to' in r && !('from' in r) ? r.amount : 0), 0);
}

export interface LedgerInputShape {
  readonly accounts: number;
  readonly transfers: number;
  readonly seed: number;
  /** Every record touches this account: deposits go to it, every transfer is from or to it. */
  readonly hot?: string;
  /** An audit of every account at the end (and of a few in between). */
  readonly audits?: boolean;
}

/**
 * An opening deposit per account, then transfers between random accounts of amounts that make
 * about a third of them overdraw; ids are 1, 2, ... in file order.
 */
export function ledgerRecords({
  accounts,
  transfers,
  seed,
  hot,
  audits = false,
}: LedgerInputShape): LedgerRecord[] {
  const random = seededRandom(seed);
  const names = Array.from({ length: accounts }, (_, i) => `a${i + 1}`);
  const pick = () => names[Math.floor(random() * names.length)]!;
  const records: LedgerRecord[] = [];
  const next = () => records.length + 1;
  if (hot === undefined)
    for (const to of names) records.push({ id: next(), to, amount: 50 + Math.floor(random() * 100) });
  else records.push({ id: next(), to: hot, amount: 100 * accounts });
  for (let i = 0; i < transfers; i++) {
    if (audits && i % 97 === 50) records.push({ id: next(), audit: pick() });
    let from = pick();
    let to = pick();
    while (to === from) to = pick();
    if (hot !== undefined) {
      if (random() < 0.5) from = hot;
      else to = hot;
      if (from === to) to = hot === names[0] ? names[1]! : names[0]!;
    }
    records.push({ id: next(), from, to, amount: 1 + Math.floor(random() * 120) });
  }
  if (audits)
    for (const account of [...names, ...(hot === undefined ? [] : [hot])])
      records.push({ id: next(), audit: account });
  return records;
}

export function writeLedgerInput(file: string, records: readonly LedgerRecord[]): void {
  writeFileSync(file, records.map((r) => `${JSON.stringify(r)}\n`).join(''));
}

// ------------------------------------------------------------------------------------- the jobs

export const LEDGER_OUTPUT = 'out.jsonl';
export const ABORTED_OUTPUT = 'aborted.jsonl';

export interface LedgerJobShape {
  /** The transaction operator's parallelism. */
  readonly parallelism: number;
  /** The partitioning of the edge into the transaction operator: any will do. */
  readonly partition?: 'rebalance' | 'hash' | 'broadcast';
  /** The source: the JSON Lines file `input` (default), or any source operator with id "src". */
  readonly source?: OperatorInput;
  readonly input?: string;
  readonly settings?: Record<string, unknown>;
}

/** src -> ledger (transaction over table accounts) -> out.jsonl; port aborted -> aborted.jsonl. */
export function ledgerJob({
  parallelism,
  partition = 'rebalance',
  source,
  input = 'input.jsonl',
  settings = {},
}: LedgerJobShape): Job {
  const operators: OperatorInput[] = [
    source ?? { id: 'src', kind: 'source.jsonl', parallelism: 1, params: { path: input } },
    { id: 'ledger', kind: 'transaction', parallelism, params: { tables: ['accounts'], code: LEDGER_CODE } },
    sink('out', LEDGER_OUTPUT),
    sink('abortedOut', ABORTED_OUTPUT),
  ];
  const into: EdgeInput = { id: 'src-ledger', from: 'src', to: 'ledger', partition };
  if (partition === 'hash') into.key = 'id';
  const edges: EdgeInput[] = [
    into,
    { id: 'ledger-out', from: 'ledger', to: 'out', partition: 'rebalance' },
    { id: 'ledger-aborted', from: 'ledger', fromPort: 'aborted', to: 'abortedOut', partition: 'rebalance' },
  ];
  return makeJob('ledger', operators, edges, settings);
}

// ------------------------------------------------------------------------- the documented order

/**
 * The transaction operator's serial order over several input channels (one per upstream
 * subtask, in the order of the input edges and then of the subtasks): by (time, channel,
 * position), where time is the highest event timestamp the channel has carried up to and
 * including the record, or the record's position on its channel when records have no time.
 * (Watermarks a channel carries count too: a source with no out-of-orderness bound, as here,
 * never sends one ahead of its records' times.)
 */
export function serialOrder<T>(channels: readonly (readonly T[])[], timeOf?: (record: T) => number): T[] {
  const keyed: { time: number; channel: number; position: number; record: T }[] = [];
  channels.forEach((records, channel) => {
    let time = Number.NEGATIVE_INFINITY;
    records.forEach((record, position) => {
      time = timeOf === undefined ? position : Math.max(time, timeOf(record));
      keyed.push({ time, channel, position, record });
    });
  });
  keyed.sort((a, b) => a.time - b.time || a.channel - b.channel || a.position - b.position);
  return keyed.map((k) => k.record);
}

/**
 * A generator of ledger records by index, run by the engine's generator source and by the test
 * (through generatorRecords) alike: 12 accounts with a deposit each, then transfers.
 */
export const LEDGER_GENERATOR_CODE = `function generate(i) {
  const n = 12;
  if (i < n) return { id: i + 1, to: 'a' + (i + 1), amount: 40 + ((i * 37) % 60), t: i * TIME_STEP(i) };
  const h = Math.imul(i, 2654435761) >>> 0;
  const from = 1 + (h % n);
  let to = 1 + ((h >>> 8) % n);
  if (to === from) to = 1 + (from % n);
  return { id: i + 1, from: 'a' + from, to: 'a' + to, amount: 1 + ((h >>> 16) % 90), t: i * TIME_STEP(i) };
}
function TIME_STEP(i) {
  // Odd indexes (the second generator subtask at parallelism 2) run three times as fast in event time.
  return i % 2 === 0 ? 10 : 30;
}`;

/** What LEDGER_GENERATOR_CODE makes for indexes 0 .. count-1, evaluated here as the engine would. */
export function generatorRecords(count: number): (LedgerRecord & { t: number })[] {
  const generate = new Function(`${LEDGER_GENERATOR_CODE}\nreturn generate;`)() as (
    i: number,
  ) => LedgerRecord & { t: number };
  return Array.from({ length: count }, (_, i) => generate(i));
}
