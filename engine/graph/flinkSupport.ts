// What of a job can run on Apache Flink now (`pipewright flink`, flink/PROTOCOL.md): a kind,
// param or edge the runner cannot run yet is refused before anything is submitted, one line
// naming the operator or edge and why. Pure: the designer lists the same lines before it offers
// "Run on Flink…".
import type { Problem } from './problem.js';
import type { Job } from './schema.js';

/** The kinds the runner builds, and what each maps to on Flink (docs/flink.md says the same). */
export const FLINK_KINDS: Readonly<Record<string, string>> = {
  'source.jsonl': "Flink's FileSource, one split per file",
  'source.nexmark':
    "a Flink source whose readers make the events with the engine's own generator, in a worker each",
  'source.generator': "a Flink source whose readers make record i with the user's generate, in a worker each",
  'sink.jsonl': "Flink's FileSink, exactly once, joined into the sink's file at the end",
  map: 'a Node worker per subtask',
  filter: 'a Node worker per subtask',
  flatMap: 'a Node worker per subtask',
  process: 'a Node worker per subtask, keyed state in Flink (RocksDB)',
  window: "Flink's window operator, its built-in aggregates in Java, a code aggregate in a worker beside it",
  'source.kafka': "Flink's KafkaSource, read_committed, offsets in checkpoints",
  'sink.kafka': "Flink's KafkaSink, exactly once: a transaction per checkpoint",
  'source.redis':
    "the runner's own Redis source (Jedis): subtask 0 reads the stream, the last id read in checkpoints",
  'sink.redis':
    "the runner's own Redis sink (Jedis), exactly once: a checkpoint's entries and marker in one MULTI/EXEC",
  'source.postgres':
    "the runner's own pgoutput source (the JDBC driver's replication API): subtask 0 reads the snapshot, then the slot's changes, the LSN in checkpoints",
  'sink.postgres':
    'a JDBC sink of the runner: upsert flushed at every checkpoint, append exactly once through prepared transactions',
};

/** Why a kind does not run on Flink yet: said after "cannot run on Flink yet". */
const LATER: Readonly<Record<string, string>> = {
  transaction: 'transactions on Flink are the next issue',
};

/** Params a kind that runs on Flink cannot honour there yet, and why. */
const PARAMS_LATER: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  'source.kafka': {
    retryTimeoutMs:
      "on Flink the Kafka client's own timeouts and Flink's restarts decide how long an unreachable broker is waited for",
  },
  'sink.kafka': {
    retryTimeoutMs:
      "on Flink the Kafka client's own timeouts and Flink's restarts decide how long an unreachable broker is waited for",
  },
  'source.postgres': {
    retryTimeoutMs:
      "on Flink a server that does not answer fails the subtask, and Flink's restarts from the last checkpoint decide how long it is waited for",
  },
  'sink.postgres': {
    retryTimeoutMs:
      "on Flink a server that does not answer fails the subtask, and Flink's restarts from the last checkpoint decide how long it is waited for",
  },
};

function problem(code: string, message: string, path: string, ids: readonly string[]): Problem {
  return { code, message, path, ids };
}

/** The kinds a loop head may have on Flink: a worker operator, which LoopHead is chained before. */
const LOOP_HEAD_KINDS = new Set(['map', 'filter', 'flatMap', 'process']);

/**
 * Loops run on Flink with one loop head operator, a worker keyed by hash edges
 * (docs/flink-loops-design.md §6): the ending rule is per loop, and the loop log is written by key
 * group.
 */
function loopRefusals(job: Job): Problem[] {
  const problems: Problem[] = [];
  const heads = job.operators.filter((o) => job.edges.some((e) => e.feedback && e.to === o.id));
  heads.forEach((head, n) => {
    const at = `$.operators[${job.operators.indexOf(head)}]`;
    if (n > 0) {
      problems.push(
        problem(
          'flink-loops',
          `operator "${head.id}": a second loop head (after "${heads[0]!.id}") cannot run on Flink yet (one loop head operator per job)`,
          at,
          [head.id],
        ),
      );
    }
    if (!LOOP_HEAD_KINDS.has(head.kind)) {
      problems.push(
        problem(
          'flink-loop-head',
          `operator "${head.id}": a ${head.kind} cannot head a loop on Flink yet (only map, filter, flatMap and process)`,
          `${at}.kind`,
          [head.id],
        ),
      );
    }
    // Feedback edges are hash edges already (validateJob): the regular inputs are checked here.
    const other = job.edges.find((e) => e.to === head.id && !e.feedback && e.partition !== 'hash');
    if (other !== undefined) {
      problems.push(
        problem(
          'flink-loop-inputs',
          `operator "${head.id}": a loop head's inputs must be hash edges on Flink, edge "${other.id}" is ${other.partition}`,
          at,
          [head.id, other.id],
        ),
      );
    }
  });
  return problems;
}

/** Every reason the job cannot run on Flink now; none: it can. */
export function flinkRefusals(job: Job): Problem[] {
  const problems: Problem[] = [];
  job.operators.forEach((operator, i) => {
    const at = `$.operators[${i}]`;
    if (FLINK_KINDS[operator.kind] === undefined) {
      const why = LATER[operator.kind] ?? 'the Flink runner does not know this kind';
      problems.push(
        problem(
          'flink-kind',
          `operator "${operator.id}": ${operator.kind} cannot run on Flink yet (${why})`,
          `${at}.kind`,
          [operator.id],
        ),
      );
      return;
    }
    const params = operator.params as Record<string, unknown>;
    for (const [param, why] of Object.entries(PARAMS_LATER[operator.kind] ?? {})) {
      if (params[param] === undefined) continue;
      problems.push(
        problem(
          'flink-param',
          `operator "${operator.id}": params.${param} cannot run on Flink yet (${why})`,
          `${at}.params.${param}`,
          [operator.id],
        ),
      );
    }
  });
  problems.push(...loopRefusals(job));
  // Flink keys a stream, not an operator: the union of a keyed and an unkeyed input has no key.
  for (const operator of job.operators) {
    const inputs = job.edges.filter((e) => e.to === operator.id && !e.feedback);
    const hashed = inputs.filter((e) => e.partition === 'hash');
    if (hashed.length > 0 && hashed.length < inputs.length) {
      const other = inputs.find((e) => e.partition !== 'hash')!;
      problems.push(
        problem(
          'flink-mixed-inputs',
          `operator "${operator.id}": its inputs mix hash edges with edge "${other.id}" (${other.partition}), which Flink cannot key as one stream`,
          `$.operators[${job.operators.indexOf(operator)}]`,
          [operator.id, other.id],
        ),
      );
    }
  }
  return problems;
}
