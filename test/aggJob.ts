// A keyed aggregation for the parallel executor's tests: src (JSONL) -> agg (process, keyed by k,
// a running count and sum in value state, one line per record) -> out. Every line is fixed by the
// input, whatever the executor, the parallelism or the restores: `k`'s records reach one subtask
// through one channel, in file order.
import { writeFileSync } from 'node:fs';
import type { JobDocument } from './cliHarness.js';

const AGG_CODE = `function process(record, ctx) {
  const total = ctx.state.value('total');
  const t = total.get() ?? { n: 0, sum: 0 };
  t.n += 1;
  t.sum += record.v;
  total.set(t);
  ctx.emit({ k: record.k, seq: record.seq, n: t.n, sum: t.sum });
}`;

export const AGG_OUTPUT = 'out/totals.jsonl';

export interface AggShape {
  readonly intervalMs: number;
  readonly parallelism: number;
  /** settings.threads (absent: not set, the CLI's --threads or the cores decide). */
  readonly threads?: number;
}

export function aggJob(input: string, shape: AggShape): JobDocument {
  return keyedProcessJob({ name: 'agg', process: 'agg', code: AGG_CODE, output: AGG_OUTPUT }, input, shape);
}

/** What a job of keyedProcessJob's shape is made of. */
export interface KeyedProcess {
  readonly name: string;
  /** The process operator's id. */
  readonly process: string;
  readonly code: string;
  /** The sink's path. */
  readonly output: string;
}

/** src (JSONL) -> a process keyed by k on LevelDB -> out (JSONL, rebalanced). */
export function keyedProcessJob(
  { name, process, code, output }: KeyedProcess,
  input: string,
  { intervalMs, parallelism, threads }: AggShape,
): JobDocument {
  return {
    format: 'pipewright.job/1',
    name,
    settings: {
      maxParallelism: 128,
      stateBackend: 'level',
      checkpointIntervalMs: intervalMs,
      checkpointsRetained: 3,
      ...(threads === undefined ? {} : { threads }),
    },
    operators: [
      { id: 'src', kind: 'source.jsonl', parallelism: 1, params: { path: input } },
      { id: process, kind: 'process', parallelism, params: { code } },
      { id: 'out', kind: 'sink.jsonl', parallelism: 1, params: { path: output } },
    ],
    edges: [
      { id: `src-${process}`, from: 'src', to: process, partition: 'hash', key: 'k' },
      { id: `${process}-out`, from: process, to: 'out', partition: 'rebalance' },
    ],
  };
}

/** Record `seq` of an input over `keys` keys. */
const aggRecord = (seq: number, keys: number) => ({
  seq,
  k: `k${(seq * 7919) % keys}`,
  v: (seq * 31) % 1000,
});

/** `records` lines {seq, k, v} over `keys` keys. */
export function writeAggInput(file: string, records: number, keys: number): void {
  const lines: string[] = [];
  for (let seq = 0; seq < records; seq++) lines.push(JSON.stringify(aggRecord(seq, keys)));
  writeFileSync(file, `${lines.join('\n')}\n`);
}

/** The lines the job writes for writeAggInput's input, in input order: what a clean run gives. */
export function aggOutputLines(records: number, keys: number): string[] {
  const totals = new Map<string, { n: number; sum: number }>();
  const lines: string[] = [];
  for (let seq = 0; seq < records; seq++) {
    const { k, v } = aggRecord(seq, keys);
    const t = totals.get(k) ?? { n: 0, sum: 0 };
    t.n += 1;
    t.sum += v;
    totals.set(k, t);
    lines.push(JSON.stringify({ k, seq, n: t.n, sum: t.sum }));
  }
  return lines;
}
