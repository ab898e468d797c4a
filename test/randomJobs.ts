// Random valid jobs for comparing executors: sources (JSONL files or generators, one or two, in
// union), stateless stages (map, filter, flatMap) at parallelism 1-4 over forward, hash,
// rebalance and broadcast edges, a keyed process with value state, and sometimes a loop round a
// feedback edge, all into one sink. Every record's content depends only on the input, never on
// the order records meet, so any executor must write the same multiset of lines.
//
// Per-key order: keyed operators send a line per record on their port "counts" ({by, k, n, ...},
// n counting the key's records) straight to the sink over an edge that keeps each key on one
// channel. Such a line carries order-dependent fields (sum, last) only where the records of a key
// reach the operator through one channel, in an order fixed by the input (`ordered` below).
import { seededRandom } from './checkpointHelpers.js';
import type { JobDocument } from './cliHarness.js';

export interface RandomJob {
  readonly job: JobDocument;
  /** Input files to write beside the job: name -> text. */
  readonly inputs: ReadonlyMap<string, string>;
  /** One line per operator and edge, for assertion messages. */
  readonly summary: string;
  /** Whether the job has a loop (a feedback edge). */
  readonly loop: boolean;
}

/** A stream of records at some point of the graph. */
interface Stream {
  readonly id: string;
  readonly port?: string;
  readonly parallelism: number;
  /** Each key's records pass through one subtask here, in an order the input fixes. */
  readonly ordered: boolean;
}

type Partition = 'forward' | 'hash' | 'rebalance' | 'broadcast';

/** The sink path of every random job. */
export const RANDOM_JOB_OUTPUT = 'out.jsonl';

/** `loop`: whether the job has a loop (else chosen at random). */
export function randomJob(seed: number, options: { readonly loop?: boolean } = {}): RandomJob {
  const random = seededRandom(seed);
  const int = (low: number, high: number) => low + Math.floor(random() * (high - low + 1));
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const keys = int(3, 12);
  const operators: JobDocument[] = [];
  const edges: JobDocument[] = [];
  const inputs = new Map<string, string>();
  let broadcasts = 0;

  /** An edge from `from` into an operator at `toParallelism`; `keepOrder` allows only edges that keep a key on one channel. */
  const connect = (from: Stream, to: string, toParallelism: number, keepOrder = false): boolean => {
    const choices: Partition[] = ['hash', 'hash'];
    if (from.parallelism === toParallelism) choices.push('forward', 'forward');
    if (!keepOrder || toParallelism === 1) {
      choices.push('rebalance');
      if (broadcasts === 0 && toParallelism <= 3) choices.push('broadcast');
    }
    const partition = pick(choices);
    if (partition === 'broadcast') broadcasts++;
    edges.push({
      id: `e${edges.length + 1}`,
      from: from.id,
      ...(from.port === undefined ? {} : { fromPort: from.port }),
      to,
      partition,
      ...(partition === 'hash' ? { key: 'k' } : {}),
    });
    if (partition === 'forward' || partition === 'hash') return from.ordered;
    return from.ordered && toParallelism === 1;
  };

  const source = (s: number): Stream => {
    const id = `src${s}`;
    const count = int(120, 400);
    const mulK = pick([1, 7, 13, 31]);
    const mulV = pick([3, 11, 29]);
    const record = `{ id: ${s * 100_000} + i, k: 'k' + ((i * ${mulK}) % ${keys}), v: (i * ${mulV}) % 97 }`;
    if (random() < 0.5) {
      const path = `in${s}.jsonl`;
      const lines = Array.from({ length: count }, (_, i) =>
        JSON.stringify({ id: s * 100_000 + i, k: `k${(i * mulK) % keys}`, v: (i * mulV) % 97 }),
      );
      inputs.set(path, `${lines.join('\n')}\n`);
      operators.push({ id, kind: 'source.jsonl', parallelism: 1, params: { path } });
      return { id, parallelism: 1, ordered: true };
    }
    const parallelism = int(1, 2);
    const code = `function generate(i) {\n  return ${record};\n}`;
    operators.push({ id, kind: 'source.generator', parallelism, params: { code, count } });
    return { id, parallelism, ordered: parallelism === 1 };
  };

  const stateless = (from: readonly Stream[], n: number): Stream => {
    const kind = pick(['map', 'filter', 'flatMap'] as const);
    const id = `${kind}${n}`;
    const parallelism = int(1, 4);
    const a = int(2, 7);
    const b = int(0, 50);
    const code = {
      map: `function map(r) {\n  return { ...r, v: (r.v * ${a} + ${b}) % 101, h: (r.h ?? 0) + 1 };\n}`,
      filter: `function filter(r) {\n  return r.v % ${a + 2} !== ${b % (a + 2)};\n}`,
      flatMap: `function flatMap(r) {\n  return r.v % ${a} === 0 ? [r, { ...r, copy: (r.copy ?? 0) + 1 }] : [r];\n}`,
    }[kind];
    operators.push({ id, kind, parallelism, params: { code } });
    const ordered = from.map((f) => connect(f, id, parallelism)).every(Boolean);
    return { id, parallelism, ordered: ordered && from.length === 1 };
  };

  /** Value state per key; a line per record on "counts", the record itself on "out". */
  const keyed = (from: Stream): { out: Stream; counts: Stream } => {
    const id = 'agg';
    const parallelism = int(1, 4);
    edges.push({ id: `e${edges.length + 1}`, from: from.id, to: id, partition: 'hash', key: 'k' });
    const count = from.ordered
      ? `{ by: '${id}', k: r.k, n: t.n, sum: t.sum, last: r.id }`
      : `{ by: '${id}', k: r.k, n: t.n }`;
    const code = `function process(r, ctx) {
  const s = ctx.state.value('t');
  const t = s.get() ?? { n: 0, sum: 0 };
  t.n += 1;
  t.sum += r.v;
  s.set(t);
  ctx.emit(${count}, 'counts');
  ctx.emit({ ...r, seen: t.n > 0 });
}`;
    operators.push({ id, kind: 'process', parallelism, params: { code } });
    return {
      out: { id, parallelism, ordered: false },
      counts: { id, port: 'counts', parallelism, ordered: from.ordered },
    };
  };

  /** Records go round a feedback edge 0-3 times, each hop to another key. */
  const loop = (from: Stream): { out: Stream; counts: Stream } => {
    const id = 'loop';
    const parallelism = int(1, 4);
    const step = int(1, keys - 1);
    edges.push({ id: `e${edges.length + 1}`, from: from.id, to: id, partition: 'hash', key: 'k' });
    edges.push({
      id: `e${edges.length + 1}`,
      from: id,
      fromPort: 'again',
      to: id,
      partition: 'hash',
      key: 'k',
      feedback: true,
    });
    const code = `function process(r, ctx) {
  const seen = ctx.state.value('seen');
  const n = (seen.get() ?? 0) + 1;
  seen.set(n);
  ctx.emit({ by: '${id}', k: r.k, n }, 'counts');
  const hops = r.hops ?? r.v % 4;
  const at = Number(r.k.slice(1));
  const path = (r.path ?? 0) * 7 + at;
  if (hops > 0) ctx.emit({ ...r, k: 'k' + ((at + ${step}) % ${keys}), hops: hops - 1, path }, 'again');
  else ctx.emit({ ...r, hops: 0, path });
}`;
    operators.push({ id, kind: 'process', parallelism, params: { code } });
    return {
      out: { id, parallelism, ordered: false },
      counts: { id, port: 'counts', parallelism, ordered: false },
    };
  };

  // Sources, in union into the first stage when there are two.
  const sources = Array.from({ length: int(1, 2) }, (_, s) => source(s + 1));
  let stage = 0;
  let main: Stream = stateless(sources, ++stage);
  for (let i = int(0, 2); i > 0; i--) main = stateless([main], ++stage);
  const countStreams: Stream[] = [];
  const withKeyed = random() < 0.8;
  if (withKeyed) {
    const { out, counts } = keyed(main);
    countStreams.push(counts);
    main = out;
  }
  const withLoop = random() < 0.4 || options.loop === true;
  if (withLoop) {
    const { out, counts } = loop(main);
    countStreams.push(counts);
    main = out;
  }
  if (random() < 0.5) main = stateless([main], ++stage);

  const sinkParallelism = int(1, 2);
  operators.push({
    id: 'out',
    kind: 'sink.jsonl',
    parallelism: sinkParallelism,
    params: { path: RANDOM_JOB_OUTPUT },
  });
  connect(main, 'out', sinkParallelism);
  for (const counts of countStreams) connect(counts, 'out', sinkParallelism, true);
  // Another branch straight from the first source into the sink: one more union.
  if (random() < 0.3) connect(sources[0]!, 'out', sinkParallelism);

  const checkpointIntervalMs = pick([0, 0, 20, 50]);
  const job: JobDocument = {
    format: 'pipewright.job/1',
    name: `random-${seed}`,
    settings: { maxParallelism: 128, stateBackend: 'level', checkpointIntervalMs, checkpointsRetained: 2 },
    operators,
    edges,
  };
  const summary = [
    `job random-${seed} (checkpoints every ${checkpointIntervalMs} ms):`,
    ...operators.map((op) => `  ${op.id} ${op.kind} p${op.parallelism}`),
    ...edges.map(
      (e) =>
        `  ${e.from}${e.fromPort ? `.${e.fromPort}` : ''} -> ${e.to} ${e.partition}${e.feedback ? ' (feedback)' : ''}`,
    ),
  ].join('\n');
  return { job, inputs, summary, loop: withLoop };
}
