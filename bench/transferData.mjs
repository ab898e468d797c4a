// The input of the transactions benchmark, written under bench/.work/data and reused while its
// parameters are unchanged (a .meta.json beside it says what it holds).
//
// {"id":<i>,"from":"acct-<n>","to":"acct-<m>","amount":<1..500>} lines: `records` transfers
// between two different accounts of `accounts`, drawn uniformly by a seeded PRNG. An account
// nobody has written yet holds OPENING_BALANCE; a transfer of more than its `from` account holds
// aborts. Run one at a time in input order (what every implementation must equal), a transfer
// writes {"id","from","to","fromBalance","toBalance"} and an aborted one {"id","reason":"overdraft"};
// the meta file keeps the digest of that multiset of lines (both kinds in one output file).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ChunkWriter, DATA_DIR, MultisetDigest, mulberry32, readMeta } from './data.mjs';

const GENERATOR_VERSION = 1;
/** What an account holds before its first transfer (the engine and the scripts default to it). */
export const OPENING_BALANCE = 1000;
/** Amounts are 1..MAX_AMOUNT: no transfer overdraws an account still at its opening balance; about one in eight of 1M over 100k accounts overdraws one that has drifted. */
const MAX_AMOUNT = 500;

/** The canonical form of one output line: the line itself, as every implementation writes its fields in this order. */
export const transferCanon = (o) => JSON.stringify(o);

/** One transfer against `balances` (a Map, missing = opening): the output line's object. */
export function applyTransfer(balances, r) {
  const from = balances.get(r.from) ?? OPENING_BALANCE;
  if (from < r.amount) return { id: r.id, reason: 'overdraft' };
  const to = balances.get(r.to) ?? OPENING_BALANCE;
  balances.set(r.from, from - r.amount);
  balances.set(r.to, to + r.amount);
  return { id: r.id, from: r.from, to: r.to, fromBalance: from - r.amount, toBalance: to + r.amount };
}

/** The transfers input. Returns { path, records, accounts, bytes, aborted, expectedDigest }. */
export function transferData({ records, accounts, seed = 15 }) {
  mkdirSync(DATA_DIR, { recursive: true });
  const params = { kind: 'transfers', v: GENERATOR_VERSION, records, accounts, seed };
  const path = join(DATA_DIR, `transfers-r${records}-a${accounts}-s${seed}.jsonl`);
  const metaPath = `${path}.meta.json`;
  const cached = readMeta(metaPath, params);
  if (cached) return cached;

  const rand = mulberry32(seed);
  const balances = new Map();
  const digest = new MultisetDigest();
  const out = new ChunkWriter(path);
  let aborted = 0;
  for (let id = 0; id < records; id++) {
    const f = rand() % accounts;
    let t = rand() % accounts;
    while (t === f) t = rand() % accounts;
    const r = { id, from: `acct-${f}`, to: `acct-${t}`, amount: 1 + (rand() % MAX_AMOUNT) };
    out.line(JSON.stringify(r));
    const o = applyTransfer(balances, r);
    if (o.reason) aborted++;
    digest.add(transferCanon(o));
  }
  out.close();
  const meta = {
    params,
    path,
    records,
    accounts,
    bytes: out.bytes,
    aborted,
    expectedDigest: digest.toString(),
  };
  writeFileSync(metaPath, `${JSON.stringify(meta, null, 2)}\n`);
  return meta;
}
