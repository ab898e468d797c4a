// A keyed job on LevelDB whose state is list and map state, for the kill -9 soak: src (JSONL) ->
// keep (process, keyed by k) -> out. Each record adds to its key's list, counts into its map
// (and now and then deletes an entry there); when the list reaches its key's size it is read
// whole and cleared: by key for the small ones (7 elements), by one range for the large ones
// (300, past the 256 a list is cleared by key). Every line is fixed by the input: a key's records
// reach one subtask through one channel, in file order.
import { writeFileSync } from 'node:fs';
import { type AggShape, keyedProcessJob } from './aggJob.js';
import type { JobDocument } from './cliHarness.js';

const KEEP_CODE = `async function process(r, ctx) {
  const items = ctx.state.list('items');
  const counts = ctx.state.map('counts');
  const size = ctx.state.value('size');
  const bucket = 'b' + (r.v % 7);
  counts.set(bucket, (counts.get(bucket) ?? 0) + 1);
  if (r.seq % 13 === 0) counts.delete('b' + (r.seq % 7));
  items.add(r.v);
  const n = (size.get() ?? 0) + 1;
  const out = { k: r.k, seq: r.seq, n, c: counts.get(bucket) ?? 0 };
  if (n === (r.k.length % 2 === 0 ? 300 : 7)) {
    let count = 0;
    let sum = 0;
    for await (const v of items.values()) { count++; sum += v; }
    items.clear();
    size.set(0);
    out.count = count;
    out.sum = sum;
  } else size.set(n);
  ctx.emit(out);
}`;

export const COLLECTIONS_OUTPUT = 'out/kept.jsonl';

export function collectionsJob(input: string, shape: AggShape): JobDocument {
  return keyedProcessJob(
    { name: 'collections', process: 'keep', code: KEEP_CODE, output: COLLECTIONS_OUTPUT },
    input,
    shape,
  );
}

/** `records` lines {seq, k, v} over `keys` keys (k0, k1, ...: names of two and three characters). */
export function writeCollectionsInput(file: string, records: number, keys: number): void {
  const lines: string[] = [];
  for (let seq = 0; seq < records; seq++)
    lines.push(JSON.stringify({ seq, k: `k${(seq * 7919) % keys}`, v: (seq * 31) % 1000 }));
  writeFileSync(file, `${lines.join('\n')}\n`);
}
