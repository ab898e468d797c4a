// A large, valid job built to a size: many parallel pipelines of mixed kinds, side outputs and
// a feedback loop per pipeline. Tests and manual checks use it to hold the canvas to the
// "a 500-operator job opens, validates and pans without stutter" promise.
import type { JobDraft, JsonObject } from '../document/jobDraft';

const STAGES = ['map', 'filter', 'process', 'flatMap'] as const;

function code(kind: (typeof STAGES)[number], side: boolean): string {
  switch (kind) {
    case 'map':
      return 'function map(record, ctx) {\n  return record;\n}\n';
    case 'filter':
      return 'function filter(record, ctx) {\n  return true;\n}\n';
    case 'flatMap':
      return 'function flatMap(record, ctx) {\n  return [record];\n}\n';
    case 'process':
      return side
        ? 'function process(record, ctx) {\n  if (record.retry) ctx.emit(record, "retry");\n  else ctx.emit(record);\n}\n'
        : 'function process(record, ctx) {\n  ctx.emit(record);\n}\n';
  }
}

/** A job of about `operators` operators, laid out when `positioned`, else left to the automatic layout. */
export function generatedJob(operators: number, positioned = true): JobDraft {
  const ops: JsonObject[] = [];
  const edges: JsonObject[] = [];
  const positions: JsonObject = {};
  const perPipeline = 10;
  const pipelines = Math.max(1, Math.round(operators / perPipeline));
  for (let p = 0; p < pipelines; p++) {
    const ids: string[] = [];
    const add = (op: JsonObject) => {
      ops.push(op);
      ids.push(String(op.id));
      positions[String(op.id)] = { x: (ids.length - 1) * 240, y: p * 140 };
    };
    add({
      id: `src${p}`,
      kind: 'source.generator',
      parallelism: 1,
      params: { code: 'function generate(i, ctx) {\n  return { id: i, key: i % 7 };\n}\n', count: 1000 },
    });
    for (let s = 0; s < perPipeline - 2; s++) {
      const kind = STAGES[s % STAGES.length]!;
      add({ id: `p${p}_${kind}${s}`, kind, parallelism: 2, params: { code: code(kind, s === 2) } });
    }
    add({ id: `out${p}`, kind: 'sink.jsonl', parallelism: 1, params: { path: `out${p}.jsonl` } });
    for (let k = 1; k < ids.length; k++) {
      const from = ids[k - 1]!;
      const keyed = ids[k]!.includes('process');
      edges.push(
        keyed
          ? { id: `e${p}_${k}`, from, to: ids[k]!, partition: 'hash', key: 'key' }
          : {
              id: `e${p}_${k}`,
              from,
              to: ids[k]!,
              partition: k === 1 || k === ids.length - 1 ? 'rebalance' : 'forward',
            },
      );
    }
    // The process stage sends retries back to itself round a loop.
    const loop = ids.find((id) => id.includes('process2'))!;
    edges.push({
      id: `fb${p}`,
      from: loop,
      fromPort: 'retry',
      to: loop,
      partition: 'hash',
      key: 'key',
      feedback: true,
    });
  }
  const job: JobDraft = {
    format: 'pipewright.job/1',
    name: `generated-${ops.length}`,
    operators: ops,
    edges,
  };
  if (positioned) job.editor = { positions };
  return job;
}
