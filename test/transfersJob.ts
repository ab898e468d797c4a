// The transfers job of the transaction operator's restore tests (issue 15; transactionRestore
// .test.ts and .soak.test.ts): deposits and transfers between accounts, a transfer that would
// overdraw aborting and saying so on port `aborted`, and the plain serial program that says what
// it must produce.
//
// Every output line carries the balances the transaction left, so a transaction lost, run twice
// or run out of the serial order shows. The input comes from two sources, the even ids and the
// odd ones: two input channels, merged by (position, channel) as the operator documents, which
// is the order of the ids. So a subtask holds records it cannot run yet (those of the channel
// ahead) at many barriers, and the queue of them is in the checkpoints too. The sinks get the
// transaction subtasks' outputs interleaved, so outputs are compared as multisets of lines.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { seededRandom } from './checkpointHelpers.js';
import type { JobDocument } from './cliHarness.js';

export const TRANSFERS_OUTPUT = 'out/transfers.jsonl';
export const TRANSFERS_ABORTED = 'out/aborted.jsonl';

type Transfer =
  | { readonly id: number; readonly type: 'deposit'; readonly to: string; readonly amount: number }
  | {
      readonly id: number;
      readonly type: 'transfer';
      readonly from: string;
      readonly to: string;
      readonly amount: number;
    };

const TRANSFERS_CODE = `function keys(r) {
  return r.type === 'deposit' ? [['accounts', r.to]] : [['accounts', r.from], ['accounts', r.to]];
}

function transact(r, tx) {
  const to = tx.get('accounts', r.to) ?? 0;
  if (r.type === 'deposit') {
    tx.set('accounts', r.to, to + r.amount);
    tx.emit({ id: r.id, type: r.type, to: r.to, amount: r.amount, balance: to + r.amount });
    return;
  }
  const from = tx.get('accounts', r.from) ?? 0;
  if (from < r.amount) {
    // Written and emitted before the abort: none of it may apply.
    tx.set('accounts', r.to, to + r.amount);
    tx.emit({ id: r.id, type: 'never', from: r.from });
    tx.abort('overdraft');
    tx.emit({ id: r.id, from: r.from, balance: from, amount: r.amount, reason: 'overdraft' }, 'aborted');
    return;
  }
  tx.set('accounts', r.from, from - r.amount);
  tx.set('accounts', r.to, to + r.amount);
  tx.emit({ id: r.id, type: r.type, from: r.from, to: r.to, amount: r.amount, fromBalance: from - r.amount, toBalance: to + r.amount });
}`;

/**
 * Transfers between `accounts` accounts: every fifth a deposit, the others transfers from one
 * account to another. The generator follows the balances so that about one transfer in eight
 * asks for more than its account holds (and aborts) all along the input, the others for part
 * of it; so a transaction run out of the serial order changes which ones abort.
 */
function transfers(count: number, accounts: number): Transfer[] {
  const random = seededRandom(15_2026);
  const balances = new Array<number>(accounts).fill(0);
  const pick = () => Math.floor(random() * accounts);
  const rows: Transfer[] = [];
  for (let id = 0; id < count; id++) {
    const to = pick();
    if (id % 5 === 0) {
      const amount = 1 + Math.floor(random() * 300);
      balances[to]! += amount;
      rows.push({ id, type: 'deposit', to: `a${to}`, amount });
      continue;
    }
    let from = pick();
    while (from === to) from = pick();
    const held = balances[from]!;
    const overdraw = random() < 0.125;
    const amount = overdraw
      ? held + 1 + Math.floor(random() * 50)
      : 1 + Math.floor(random() * Math.max(held, 1));
    if (amount <= held) {
      balances[from] = held - amount;
      balances[to]! += amount;
    }
    rows.push({ id, type: 'transfer', from: `a${from}`, to: `a${to}`, amount });
  }
  return rows;
}

/** The job's output computed by a plain serial program: the lines of each sink. */
function serialOutput(rows: readonly Transfer[]): Map<string, string[]> {
  const balances = new Map<string, number>();
  const out: string[] = [];
  const aborted: string[] = [];
  for (const r of rows) {
    const to = balances.get(r.to) ?? 0;
    if (r.type === 'deposit') {
      balances.set(r.to, to + r.amount);
      out.push(
        JSON.stringify({ id: r.id, type: r.type, to: r.to, amount: r.amount, balance: to + r.amount }),
      );
      continue;
    }
    const from = balances.get(r.from) ?? 0;
    if (from < r.amount) {
      aborted.push(
        JSON.stringify({ id: r.id, from: r.from, balance: from, amount: r.amount, reason: 'overdraft' }),
      );
      continue;
    }
    balances.set(r.from, from - r.amount);
    balances.set(r.to, to + r.amount);
    out.push(
      JSON.stringify({
        id: r.id,
        type: r.type,
        from: r.from,
        to: r.to,
        amount: r.amount,
        fromBalance: from - r.amount,
        toBalance: to + r.amount,
      }),
    );
  }
  return new Map([
    [TRANSFERS_OUTPUT, out],
    [TRANSFERS_ABORTED, aborted],
  ]);
}

export interface TransfersInput {
  /** The even ids' file, then the odd ids': channel 0 and channel 1. */
  readonly inputs: readonly [string, string];
  /** What each sink must hold at the end: the serial program's lines. */
  readonly reference: Map<string, string[]>;
}

/** Writes `count` transfers between `accounts` accounts into `dir` (evens.jsonl, odds.jsonl). */
export function writeTransfers(dir: string, count: number, accounts: number): TransfersInput {
  const inputs = [path.join(dir, 'evens.jsonl'), path.join(dir, 'odds.jsonl')] as const;
  const rows = transfers(count, accounts);
  inputs.forEach((file, parity) => {
    const lines = rows.filter((r) => r.id % 2 === parity).map((r) => JSON.stringify(r));
    writeFileSync(file, `${lines.join('\n')}\n`);
  });
  return { inputs, reference: serialOutput(rows) };
}

export interface TransfersShape {
  /** Checkpoint interval (0: none). */
  readonly intervalMs: number;
  /** The transaction operator's parallelism. */
  readonly parallelism: number;
  readonly threads: number;
  /**
   * Each source's records pass a `map` (p1, forward) before the ledger: a producer into the
   * transaction that takes barriers between records, in the middle of a slice, so the records it
   * sent other subtasks just before must be told before the barrier (runtime/edgeRouter.ts).
   */
  readonly throughMaps?: boolean;
}

/**
 * evens, odds -> ledger (transaction; input edges rebalanced and hashed: the planner broadcasts
 * them) -> out; port aborted -> aborted.
 */
export function transfersJob(
  inputs: readonly [string, string],
  { intervalMs, parallelism, threads, throughMaps = false }: TransfersShape,
): JobDocument {
  const maps = throughMaps
    ? [
        { id: 'evensMap', kind: 'map', parallelism: 1, params: { code: 'function map(r) { return r; }' } },
        { id: 'oddsMap', kind: 'map', parallelism: 1, params: { code: 'function map(r) { return r; }' } },
      ]
    : [];
  const into = (source: string) => (throughMaps ? `${source}Map` : source);
  return {
    format: 'pipewright.job/1',
    name: 'transfers',
    settings: {
      maxParallelism: 128,
      stateBackend: 'level',
      checkpointIntervalMs: intervalMs,
      checkpointsRetained: 3,
      threads,
    },
    operators: [
      { id: 'evens', kind: 'source.jsonl', parallelism: 1, params: { path: inputs[0] } },
      { id: 'odds', kind: 'source.jsonl', parallelism: 1, params: { path: inputs[1] } },
      ...maps,
      {
        id: 'ledger',
        kind: 'transaction',
        parallelism,
        params: { tables: ['accounts'], code: TRANSFERS_CODE },
      },
      { id: 'out', kind: 'sink.jsonl', parallelism: 1, params: { path: TRANSFERS_OUTPUT } },
      { id: 'aborted', kind: 'sink.jsonl', parallelism: 1, params: { path: TRANSFERS_ABORTED } },
    ],
    edges: [
      ...(throughMaps
        ? [
            { id: 'evens-map', from: 'evens', to: 'evensMap', partition: 'forward' },
            { id: 'odds-map', from: 'odds', to: 'oddsMap', partition: 'forward' },
          ]
        : []),
      { id: 'evens-ledger', from: into('evens'), to: 'ledger', partition: 'rebalance' },
      { id: 'odds-ledger', from: into('odds'), to: 'ledger', partition: 'hash', key: 'to' },
      { id: 'ledger-out', from: 'ledger', to: 'out', partition: 'rebalance' },
      { id: 'ledger-aborted', from: 'ledger', fromPort: 'aborted', to: 'aborted', partition: 'rebalance' },
    ],
  };
}
